import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Random codes of 8 * DB bits packed in bytes, plus 3 planted near-duplicates per query: each query has
    three database codes at distinct random positions equal to it with every bit flipped with probability 1/8
    (about D / 8 differing bits), so each neighbour list starts with a few close codes and ends in the
    Binomial(D, 1/2) bulk, where equal distances are common and the index tie rule decides."""
    q_count, n, db, k = dims["Q"], dims["N"], dims["DB"], dims["K"]
    kw = dict(generator=generator, device=generator.device)
    queries = torch.randint(-128, 128, (q_count, db), dtype=torch.int32, **kw)
    codes = torch.randint(-128, 128, (n, db), dtype=torch.int32, **kw)
    planted = 3
    where = torch.randperm(n, **kw)[: q_count * planted].view(q_count, planted)
    noise = (torch.randint(0, 256, (3, q_count, planted, db), dtype=torch.int32, **kw)).unbind(0)
    flips = noise[0] & noise[1] & noise[2]  # each bit set with probability 1/8
    codes[where.reshape(-1)] = (queries[:, None, :] ^ flips).reshape(-1, db)
    as_bytes = lambda t: (((t + 128) % 256) - 128).to(torch.int8)  # noqa: E731 (two's complement byte)
    return [as_bytes(queries), as_bytes(codes), int(k)]


def reference(queries: torch.Tensor, codes: torch.Tensor, k: int):
    """Exact Hamming distances from the unpacked bits (float32 sums of 0/1 products are exact for D <= 2**24),
    then the k smallest (distance, index) pairs per query, by a top-k over distance * N + index."""
    n = codes.shape[0]
    shifts = torch.arange(8, device=codes.device, dtype=torch.int32)
    unpack = lambda t: ((t.to(torch.int32)[..., None] >> shifts) & 1).flatten(1).to(torch.float32)  # noqa: E731
    qb, cb = unpack(queries), unpack(codes)
    dist = qb.sum(1, keepdim=True) + cb.sum(1)[None, :] - 2.0 * (qb @ cb.T)
    key = dist.to(torch.int64) * n + torch.arange(n, device=codes.device)
    best = torch.topk(key, k, dim=1, largest=False, sorted=True).values
    return best % n, (best // n).to(torch.int32)
