import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Log-domain operands with a wide range: every row of a carries its own offset in [-40, 40] and every column
    of b its own, around which the entries spread as 2.5 * normal(0, 1) clipped to [-10, 10]. So each row of a and
    each column of b spans at most 20, and every entry lies in [-50, 50]: exp(a + b) overflows float32 for the
    largest sums and underflows to zero for the smallest."""
    m, n, k = dims["M"], dims["N"], dims["K"]
    dev = generator.device
    row_offset = torch.rand(m, 1, generator=generator, device=dev) * 80.0 - 40.0
    col_offset = torch.rand(1, n, generator=generator, device=dev) * 80.0 - 40.0
    a = row_offset + (2.5 * torch.randn(m, k, generator=generator, device=dev)).clamp(-10.0, 10.0)
    b = col_offset + (2.5 * torch.randn(k, n, generator=generator, device=dev)).clamp(-10.0, 10.0)
    return [a.to(dtype).contiguous(), b.to(dtype).contiguous()]


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # out[i, j] = logsumexp over k of a[i, k] + b[k, j], a block of rows of a at a time so that the
    # (rows, K, N) intermediate stays at most 2^30 elements.
    m, k = a.shape
    n = b.shape[1]
    rows = max(1, (1 << 30) // max(1, k * n))
    return torch.cat([torch.logsumexp(a[start:start + rows, :, None] + b[None, :, :], dim=1)
                      for start in range(0, m, rows)])
