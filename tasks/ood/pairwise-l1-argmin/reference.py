import math

import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Integer coordinates in [-4, 4] except the last one, which gives candidate j a distinct fraction
    j / 2**bits on top of an integer: every distance is then an integer plus a fraction unique to j, so no
    two candidates are ever at the same distance from a query, and every partial sum is exact in float32."""
    m, n, d = dims["M"], dims["N"], dims["D"]
    bits = max(1, math.ceil(math.log2(n)))
    assert math.ceil(math.log2((d + 2) * 8)) + bits <= 24, "distances would not be exact in float32"
    x = torch.randint(-4, 5, (m, d), generator=generator).to(torch.float32)
    c = torch.randint(-4, 5, (n, d), generator=generator).to(torch.float32)
    # last coordinate: queries at or below -4, candidates at integer + j / 2**bits >= -4, so |x - c| = c - x
    x[:, d - 1] = torch.randint(-8, -3, (m,), generator=generator).to(torch.float32)
    fraction = torch.arange(n, dtype=torch.float32) / float(2 ** bits)
    c[:, d - 1] = torch.randint(-4, 4, (n,), generator=generator).to(torch.float32) + fraction
    return [x.to(dtype), c.to(dtype)]


def reference(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    # Row blocks keep the (rows, N) distance matrix small.
    out = torch.empty(x.shape[0], dtype=torch.int64, device=x.device)
    step = max(1, (1 << 26) // max(1, c.shape[0] * c.shape[1]))
    for start in range(0, x.shape[0], step):
        dist = (x[start:start + step, None, :] - c[None, :, :]).abs().sum(dim=2)
        out[start:start + step] = dist.argmin(dim=1)
    return out
