import torch


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y
