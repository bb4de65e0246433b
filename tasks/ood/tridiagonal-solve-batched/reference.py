import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """a, c uniform in (-1, 1) and b = |a| + |c| + uniform(0.25, 1): strictly diagonally dominant rows, so the
    solve is stable without pivoting; a[:, 0] = c[:, N - 1] = 0 (they lie outside the matrix). d ~ normal(0, 1)."""
    batch, n = dims["B"], dims["N"]
    kw = dict(generator=generator, device=generator.device, dtype=torch.float32)
    a = torch.rand(batch, n, **kw) * 2 - 1
    c = torch.rand(batch, n, **kw) * 2 - 1
    a[:, 0] = 0
    c[:, n - 1] = 0
    b = a.abs() + c.abs() + 0.25 + 0.75 * torch.rand(batch, n, **kw)
    d = torch.randn(batch, n, **kw)
    return [a.to(dtype), b.to(dtype), c.to(dtype), d.to(dtype)]


def _shift(t: torch.Tensor, s: int, fill: float) -> torch.Tensor:
    # out[:, j] = t[:, j - s] (s > 0) or t[:, j + |s|] (s < 0), `fill` where that index is outside [0, N)
    pad = torch.full_like(t[:, : abs(s)], fill)
    return torch.cat((pad, t[:, :-s]), dim=1) if s > 0 else torch.cat((t[:, -s:], pad), dim=1)


def reference(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """Parallel cyclic reduction in float32, vectorised over the batch: step s eliminates x[j - s] and x[j + s]
    from row j using rows j - s and j + s (identity rows outside the system); after ceil(log2 N) steps every row
    holds b[j] x[j] = d[j]."""
    n = a.shape[1]
    s = 1
    while s < n:
        k1 = a / _shift(b, s, 1.0)
        k2 = c / _shift(b, -s, 1.0)
        a, b, c, d = (-_shift(a, s, 0.0) * k1,
                      b - _shift(c, s, 0.0) * k1 - _shift(a, -s, 0.0) * k2,
                      -_shift(c, -s, 0.0) * k2,
                      d - _shift(d, s, 0.0) * k1 - _shift(d, -s, 0.0) * k2)
        s *= 2
    return d / b
