import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """A CSR matrix of M rows and N columns with exactly NNZ nonzeros whose row lengths follow a power law: K
    heavy rows of LMAX / sqrt(k + 1) nonzeros (k = 0 .. K-1: the first ones tens of thousands long) at random
    rows, the other rows 1 + a multinomial share of what is left (a handful each). Columns are uniform in
    [0, N), in no order within a row, repeats allowed. Values are small nonzero integers and x integers, so every
    row sum is an integer below 2^24: exact in float32 whatever the order of the additions."""
    m, n, nnz, k, lmax = dims["M"], dims["N"], dims["NNZ"], dims["K"], dims["LMAX"]
    device = generator.device
    heavy = (lmax / torch.sqrt(torch.arange(1, k + 1, dtype=torch.float64, device=device))).floor().long()
    rest = nnz - int(heavy.sum()) - (m - k)
    assert rest >= 0, "NNZ too small for the heavy rows and one nonzero in every other row"
    light = 1 + torch.bincount(torch.randint(0, m - k, (rest,), generator=generator, device=device),
                               minlength=m - k)
    order = torch.randperm(m, generator=generator, device=device)       # heavy rows land at random rows
    lengths = torch.empty(m, dtype=torch.long, device=device)
    lengths[order[:k]] = heavy
    lengths[order[k:]] = light
    indptr = torch.zeros(m + 1, dtype=torch.long, device=device)
    indptr[1:] = torch.cumsum(lengths, 0)
    indices = torch.randint(0, n, (nnz,), generator=generator, device=device, dtype=torch.int32)
    magnitude = torch.randint(1, 5, (nnz,), generator=generator, device=device)
    sign = torch.randint(0, 2, (nnz,), generator=generator, device=device) * 2 - 1
    values = (magnitude * sign).to(dtype)
    x = torch.randint(-8, 9, (n,), generator=generator, device=device).to(dtype)
    return [indptr.to(torch.int32), indices, values, x]


def reference(indptr: torch.Tensor, indices: torch.Tensor, values: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    # y[i] = sum of values[p] * x[indices[p]] over p in [indptr[i], indptr[i + 1]), accumulated in float64.
    m = indptr.numel() - 1
    lengths = (indptr[1:] - indptr[:-1]).long()
    rows = torch.repeat_interleave(torch.arange(m, device=indptr.device), lengths, output_size=indices.numel())
    products = values.double() * x.double()[indices.long()]
    y = torch.zeros(m, dtype=torch.float64, device=indptr.device).index_add_(0, rows, products)
    return y.to(values.dtype)
