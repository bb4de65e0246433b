import torch
import torch.nn.functional as F


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.pixel_shuffle(x, 2)
