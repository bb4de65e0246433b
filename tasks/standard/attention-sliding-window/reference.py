import torch
import torch.nn.functional as F


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, window: int) -> torch.Tensor:
    S = q.shape[-2]
    g = q.shape[1] // k.shape[1]
    i = torch.arange(S, device=q.device)
    diff = i[:, None] - i[None, :]  # query i - key j
    allowed = (diff >= 0) & (diff < window)
    # bfloat16 SDPA (a fused kernel on the GPU: fp32 softmax and accumulation inside)
    return F.scaled_dot_product_attention(q, k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1),
                                          attn_mask=allowed)
