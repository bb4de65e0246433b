import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor) -> torch.Tensor:
    g = x.float() @ w_gate.float().t()
    u = x.float() @ w_up.float().t()
    return (F.silu(g) * u).to(x.dtype)
