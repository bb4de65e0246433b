import torch

VOCAB = 16  # every token, padding included, is in [0, VOCAB)


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Independent uniform tokens in [0, 16) for a and b (so the distances are large, about 0.8 of the longer
    length, and no band of the DP matrix can be skipped), lengths uniform in [ceil(7L/8), L] for each sequence
    on its own, and random tokens past each length (which must be ignored)."""
    n, length = dims["B"], dims["L"]
    dev = generator.device
    a = torch.randint(0, VOCAB, (n, length), generator=generator, device=dev).to(dtype)
    b = torch.randint(0, VOCAB, (n, length), generator=generator, device=dev).to(dtype)
    low = (7 * length + 7) // 8
    len_a = torch.randint(low, length + 1, (n,), generator=generator, device=dev).to(torch.int32)
    len_b = torch.randint(low, length + 1, (n,), generator=generator, device=dev).to(torch.int32)
    return [a, b, len_a, len_b]


def reference(a: torch.Tensor, b: torch.Tensor, len_a: torch.Tensor, len_b: torch.Tensor) -> torch.Tensor:
    # The DP row by row, all pairs at once: with D[i][0] = i and, for j >= 1,
    #   X[j] = min(D[i-1][j] + 1, D[i-1][j-1] + (a[i-1] != b[j-1])),
    # the insertions chain D[i][j] = min(X[j], D[i][j-1] + 1) is D[i][j] = j + min_{j' <= j} (X[j'] - j'),
    # a cumulative minimum. Columns past len_b never feed the columns before them, and the answer of a pair is
    # read in row len_a at column len_b.
    n, length = a.shape
    dev = a.device
    cols = torch.arange(length + 1, device=dev, dtype=torch.int32)
    prev = cols.expand(n, length + 1).clone()                                  # D[0][j] = j
    at = len_b.long()[:, None]
    out = torch.where(len_a == 0, len_b, torch.zeros_like(len_b))
    for i in range(1, length + 1):
        cost = (a[:, i - 1, None] != b).to(torch.int32)                        # (B, L)
        x = torch.minimum(prev[:, 1:] + 1, prev[:, :-1] + cost)
        x = torch.cat([torch.full((n, 1), i, device=dev, dtype=torch.int32), x], dim=1)
        prev = torch.cummin(x - cols, dim=1).values + cols
        out = torch.where(len_a == i, prev.gather(1, at)[:, 0], out)
    return out.to(torch.int32)
