import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """values ~ normal(0, 1); S - 1 distinct random cut points in [1, TOTAL - 1], so the lengths are ragged
    (roughly geometric around TOTAL / S) and every segment is non-empty."""
    total, s, d = dims["TOTAL"], dims["S"], dims["D"]
    dev = generator.device
    values = torch.randn(total, d, generator=generator, device=dev).to(dtype)
    cuts = torch.randperm(total - 1, generator=generator, device=dev)[: s - 1] + 1
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64, device=dev), cuts.sort().values.to(torch.int64),
                         torch.full((1,), total, dtype=torch.int64, device=dev)])
    return [values, offsets]


def reference(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    lengths = offsets[1:] - offsets[:-1]
    s = lengths.numel()
    segment = torch.repeat_interleave(torch.arange(s, device=values.device), lengths)
    out = torch.zeros(s, values.shape[1], dtype=torch.float64, device=values.device)
    out.index_add_(0, segment, values.double())  # float64: the reference carries no rounding of its own
    return (out / lengths.double()[:, None]).to(values.dtype)
