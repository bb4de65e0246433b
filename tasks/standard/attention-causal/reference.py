import torch


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    S = q.shape[-2]
    scale = q.shape[-1] ** -0.5
    scores = (q.float() @ k.float().transpose(-1, -2)) * scale
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    p = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return (p @ v.float()).to(q.dtype)
