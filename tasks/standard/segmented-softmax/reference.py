import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x ~ normal(0, 1); S - 1 distinct random cut points in [1, N - 1], so lengths are random (roughly
    geometric around N / S) and every segment is non-empty."""
    n, s = dims["N"], dims["S"]
    device = generator.device
    x = torch.randn(n, generator=generator, dtype=torch.float32, device=device).to(dtype)
    cuts = torch.randperm(n - 1, generator=generator, device=device)[: s - 1] + 1
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64, device=device), cuts.sort().values,
                         torch.full((1,), n, dtype=torch.int64, device=device)])
    return [x, offsets.to(torch.int64)]


def reference(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    lengths = offsets[1:] - offsets[:-1]
    segment = torch.repeat_interleave(torch.arange(lengths.numel(), device=x.device), lengths)
    xf = x.double()  # float64 so the reference carries no rounding of its own
    seg_max = torch.full((lengths.numel(),), -float("inf"), dtype=torch.float64, device=x.device).scatter_reduce(
        0, segment, xf, reduce="amax", include_self=True)
    e = torch.exp(xf - seg_max[segment])
    seg_sum = torch.zeros(lengths.numel(), dtype=torch.float64, device=x.device).index_add(0, segment, e)
    return (e / seg_sum[segment]).to(x.dtype)
