import torch

BASE = 1000000.0  # Qwen3's rope_theta


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    t, hq, hkv, d, p = dims["T"], dims["Hq"], dims["Hkv"], dims["D"], dims["P"]
    dev = generator.device
    q = (3.0 * torch.randn(t, hq, d, generator=generator, device=dev)).to(dtype)
    k = (3.0 * torch.randn(t, hkv, d, generator=generator, device=dev)).to(dtype)
    q_weight = (0.5 + torch.rand(d, generator=generator, device=dev)).to(dtype)
    k_weight = (0.5 + torch.rand(d, generator=generator, device=dev)).to(dtype)
    positions = torch.randint(0, p, (t,), generator=generator, device=dev, dtype=torch.int64)
    inv_freq = 1.0 / (BASE ** (torch.arange(0, d, 2, dtype=torch.float64, device=dev) / d))
    angles = torch.arange(p, dtype=torch.float64, device=dev)[:, None] * inv_freq[None, :]
    cos_sin_cache = torch.cat([angles.cos(), angles.sin()], dim=-1).to(torch.float32)  # (P, D)
    return [q, k, q_weight, k_weight, positions, cos_sin_cache, 1.0e-6]


def reference(q, k, q_weight, k_weight, positions, cos_sin_cache, eps):
    half = q.shape[-1] // 2
    cs = cos_sin_cache[positions]  # (T, D)
    c, s = cs[:, None, :half], cs[:, None, half:]

    def norm_rotate(x, w):
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * w.float()
        x1, x2 = xf[..., :half], xf[..., half:]
        return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(x.dtype)

    return norm_rotate(q, q_weight), norm_rotate(k, k_weight)
