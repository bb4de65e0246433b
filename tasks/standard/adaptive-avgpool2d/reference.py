import torch
import torch.nn.functional as F


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.adaptive_avg_pool2d(x, 7)
