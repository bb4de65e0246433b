import torch


def reference(x: torch.Tensor, wq: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    w = wq.float() * scale.float()[:, None]
    return (x.float() @ w.t()).to(x.dtype)
