import torch


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=-1)
