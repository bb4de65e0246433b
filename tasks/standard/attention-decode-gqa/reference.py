import torch


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, Hq, _, D = q.shape
    Hkv = k.shape[1]
    qg = q.float().reshape(B, Hkv, Hq // Hkv, D)  # query heads h = kv_head * g + r
    p = torch.softmax((qg @ k.float().transpose(-1, -2)) * D ** -0.5, dim=-1)  # (B, Hkv, g, S)
    return (p @ v.float()).reshape(B, Hq, 1, D).to(q.dtype)
