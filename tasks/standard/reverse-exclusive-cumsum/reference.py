import torch


def reference(x: torch.Tensor) -> torch.Tensor:
    suffix = torch.cumsum(x.flip(1), dim=1).flip(1)  # inclusive: sum_{k >= j}
    out = torch.zeros_like(x)
    out[:, :-1] = suffix[:, 1:]
    return out
