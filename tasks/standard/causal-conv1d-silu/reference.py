import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    d, l = x.shape[1], x.shape[2]
    y = F.conv1d(x, weight.unsqueeze(1), bias, padding=3, groups=d)[..., :l]
    return F.silu(y)
