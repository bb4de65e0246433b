import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    b, s, l, h, d = dims["B"], dims["S"], dims["L"], dims["H"], dims["D"]
    k = torch.randn(b, s, h, d, generator=generator).to(dtype)
    v = torch.randn(b, s, h, d, generator=generator).to(dtype)
    k_cache = torch.randn(b, l, h, d, generator=generator).to(dtype)
    v_cache = torch.randn(b, l, h, d, generator=generator).to(dtype)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    angles = torch.arange(l, dtype=torch.float64)[:, None] * inv_freq[None, :]
    cos, sin = angles.cos().to(torch.float32), angles.sin().to(torch.float32)
    # distinct slots per sequence, in random order
    positions = torch.stack([torch.randperm(l, generator=generator)[:s] for _ in range(b)]).to(torch.int64)
    return [k, v, k_cache, v_cache, cos, sin, positions]


def reference(k, v, k_cache, v_cache, cos, sin, positions):
    half = k.shape[-1] // 2
    c = cos[positions][:, :, None, :]  # (B, S, 1, half)
    sn = sin[positions][:, :, None, :]
    kf = k.float()
    k1, k2 = kf[..., :half], kf[..., half:]
    rotated = torch.cat([k1 * c - k2 * sn, k2 * c + k1 * sn], dim=-1).to(k.dtype)
    new_k_cache = k_cache.clone()
    new_v_cache = v_cache.clone()
    batch = torch.arange(k.shape[0], device=k.device)[:, None].expand_as(positions)
    new_k_cache[batch, positions] = rotated
    new_v_cache[batch, positions] = v
    return new_k_cache, new_v_cache
