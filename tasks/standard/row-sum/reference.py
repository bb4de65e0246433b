import torch


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=-1)
