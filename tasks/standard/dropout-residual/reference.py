import torch

MASK32 = 0xFFFFFFFF


def _mul32(h: torch.Tensor, c: int) -> torch.Tensor:
    """(h * c) mod 2^32 for int64 tensors holding values in [0, 2^32), without leaving int64's range."""
    lo = h * (c & 0xFFFF)
    hi = (h * (c >> 16)) & 0xFFFF
    return (lo + (hi << 16)) & MASK32


def keep_mask(m: int, n: int, seed: int, p: float, device) -> torch.Tensor:
    i = torch.arange(m * n, dtype=torch.int64, device=device)
    h = (i + (seed * 0x9E3779B9) % (1 << 32)) & MASK32
    h = h ^ (h >> 16)
    h = _mul32(h, 0x7FEB352D)
    h = h ^ (h >> 15)
    h = _mul32(h, 0x846CA68B)
    h = h ^ (h >> 16)
    threshold = int(p * 4294967296.0)
    return (h >= threshold).reshape(m, n)


def reference(x, residual, p, seed):
    m, n = x.shape
    keep = keep_mask(m, n, seed, p, x.device)
    scale = torch.tensor(1.0 / (1.0 - p), dtype=torch.float32, device=x.device)
    dropped = torch.where(keep, x.float() * scale, torch.zeros((), dtype=torch.float32, device=x.device))
    return (residual.float() + dropped).to(x.dtype)
