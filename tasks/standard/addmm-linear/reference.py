import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return F.linear(x, weight, bias)
