import torch

PAGE = 16  # tokens per page


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Context lengths: shares of B * L tokens proportional to uniform draws in [0.5, 1.5) (ragged, up to
    about 3x apart, summing to B * L exactly). The page pool holds the pages the sequences use plus B spare
    ones, so an input set is little more than the keys and values read; each sequence's pages are a slice of
    one random permutation of the pool (no page used twice), and its table row is filled past its last page
    with random valid page numbers, which are not part of its context."""
    b, l, hq, hkv, d = dims["B"], dims["L"], dims["Hq"], dims["Hkv"], dims["D"]
    dev = generator.device
    u = 0.5 + torch.rand(b, generator=generator, device=dev, dtype=torch.float64)
    lens = torch.floor(u / u.sum() * (b * l)).to(torch.int64).clamp_min(1)
    short = b * l - int(lens.sum())
    lens[: abs(short)] += 1 if short > 0 else -1
    pages = (lens + PAGE - 1) // PAGE
    maxp = int(pages.max()) + 2  # the longest sequence's pages, with room to spare
    pool = int(pages.sum()) + b
    order = torch.randperm(pool, generator=generator, device=dev)
    block_table = torch.randint(0, pool, (b, maxp), generator=generator, device=dev)
    starts = torch.cumsum(pages, 0) - pages
    used = torch.arange(maxp, device=dev)[None, :] < pages[:, None]
    block_table = torch.where(used, order[(starts[:, None] + torch.arange(maxp, device=dev)[None, :]).clamp_max(pool - 1)],
                              block_table).to(torch.int32).contiguous()
    q = (4.0 * torch.randn(b, hq, d, generator=generator, device=dev)).to(dtype)
    # Drawn in the task dtype: no float32 copy of the cache, which would double the peak memory of a draw.
    k_cache = torch.randn(pool, PAGE, hkv, d, generator=generator, device=dev, dtype=dtype)
    v_cache = torch.randn(pool, PAGE, hkv, d, generator=generator, device=dev, dtype=dtype)
    return [q, k_cache, v_cache, block_table, lens.to(torch.int32)]


def reference(q, k_cache, v_cache, block_table, context_lens):
    # In float64 per sequence, rounded to bfloat16 once. Not bfloat16 SDPA: the scores here reach about 16
    # (q has std 4), where one bfloat16 step is 0.0625, and a score rounded to bfloat16 moves its probability by
    # up to 3%, so a bfloat16 reference is off by more than the tolerance from the float32 answer.
    b, hq, d = q.shape
    hkv = k_cache.shape[2]
    g = hq // hkv
    out = torch.empty_like(q)
    for i, n in enumerate(context_lens.tolist()):
        pages = block_table[i, : (n + PAGE - 1) // PAGE].long()
        k = k_cache[pages].reshape(-1, hkv, d)[:n].transpose(0, 1).double()  # (Hkv, n, D)
        v = v_cache[pages].reshape(-1, hkv, d)[:n].transpose(0, 1).double()
        qi = q[i].view(hkv, g, d).double()  # the query heads of KV head j are j * g .. j * g + g - 1
        p = torch.softmax(qi @ k.transpose(1, 2) / d ** 0.5, dim=-1)  # (Hkv, g, n)
        out[i] = (p @ v).reshape(hq, d).to(q.dtype)
    return out
