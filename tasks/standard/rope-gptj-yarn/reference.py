import math

import torch

# DeepSeek-V3's rotary configuration (rope_scaling type yarn)
BASE, FACTOR, ORIGINAL_MAX_POS, BETA_FAST, BETA_SLOW = 10000.0, 40.0, 4096, 32.0, 1.0


def yarn_inv_freq(dim: int, device) -> torch.Tensor:
    """YaRN's blend of interpolated and extrapolated frequencies (float64)."""
    def correction_dim(num_rotations):
        return dim * math.log(ORIGINAL_MAX_POS / (num_rotations * 2 * math.pi)) / (2 * math.log(BASE))

    low = max(math.floor(correction_dim(BETA_FAST)), 0)
    high = min(math.ceil(correction_dim(BETA_SLOW)), dim - 1)
    pos_freqs = BASE ** (torch.arange(0, dim, 2, dtype=torch.float64, device=device) / dim)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (FACTOR * pos_freqs)
    ramp = ((torch.arange(dim // 2, dtype=torch.float64, device=device) - low) / max(high - low, 1e-3)).clamp(0, 1)
    keep = 1.0 - ramp  # 1: extrapolate (high frequencies), 0: interpolate (low frequencies)
    return interpolation * (1 - keep) + extrapolation * keep


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    t, h, d, p = dims["T"], dims["H"], dims["D"], dims["P"]
    dev = generator.device
    q_pe = torch.randn(t, h, d, generator=generator, device=dev).to(dtype)
    k_pe = torch.randn(t, d, generator=generator, device=dev).to(dtype)
    positions = torch.randint(0, p, (t,), generator=generator, device=dev, dtype=torch.int64)
    angles = torch.arange(p, dtype=torch.float64, device=dev)[:, None] * yarn_inv_freq(d, dev)[None, :]
    cos_sin_cache = torch.cat([angles.cos(), angles.sin()], dim=-1).to(torch.float32)  # (P, D), mscale 1
    return [q_pe, k_pe, positions, cos_sin_cache]


def reference(q_pe, k_pe, positions, cos_sin_cache):
    half = q_pe.shape[-1] // 2
    cs = cos_sin_cache[positions]  # (T, D)
    c, s = cs[:, :half], cs[:, half:]

    def rotate(x, c, s):  # pairs (x[2i], x[2i+1]) rotated by angle i
        xf = x.float().unflatten(-1, (half, 2))
        x0, x1 = xf[..., 0], xf[..., 1]
        return torch.stack([x0 * c - x1 * s, x1 * c + x0 * s], dim=-1).flatten(-2).to(x.dtype)

    return rotate(q_pe, c[:, None], s[:, None]), rotate(k_pe, c, s)
