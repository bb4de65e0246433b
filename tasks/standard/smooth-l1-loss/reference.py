import torch
import torch.nn.functional as F


def reference(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return F.smooth_l1_loss(pred, target, beta=1.0)
