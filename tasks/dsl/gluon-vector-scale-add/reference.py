import torch


def reference(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    return alpha * x + y
