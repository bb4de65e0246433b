import torch


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, softcap: float) -> torch.Tensor:
    B, Hq, S, D = q.shape
    g = Hq // k.shape[1]
    kf = k.float().repeat_interleave(g, dim=1)
    vf = v.float().repeat_interleave(g, dim=1)
    scores = (q.float() @ kf.transpose(-1, -2)) * D ** -0.5
    scores = softcap * torch.tanh(scores / softcap)
    future = torch.ones(S, S, dtype=torch.bool, device=q.device).triu(1)
    p = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return (p @ vf).to(q.dtype)
