import torch
import torch.nn.functional as F

KV_LORA_RANK = 512  # latent width: the first 512 columns of the cache are also the values


def reference(q: torch.Tensor, kv_cache: torch.Tensor, sm_scale: float) -> torch.Tensor:
    # q (B, H, 576), kv_cache (B, S, 576): one shared latent KV head. SDPA in bfloat16 (an fp32 softmax
    # inside), keys = the whole 576-wide rows, values = their first 512 columns.
    k = kv_cache[:, None]  # (B, 1, S, 576)
    v = kv_cache[:, None, :, :KV_LORA_RANK]  # (B, 1, S, 512)
    out = F.scaled_dot_product_attention(q[:, :, None], k, v, scale=sm_scale, enable_gqa=True)
    return out[:, :, 0]
