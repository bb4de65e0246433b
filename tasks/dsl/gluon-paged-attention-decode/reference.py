import torch
import torch.nn.functional as F

PAGE = 16  # tokens per page


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Context lengths: shares of B * L tokens proportional to uniform draws in [0.5, 1.5) (ragged, up to
    about 3x apart, summing to B * L exactly). The page pool holds B * MAXP pages; each sequence's table
    row is a slice of one random permutation of the pool, so no page is used twice."""
    b, l, hq, hkv, d = dims["B"], dims["L"], dims["Hq"], dims["Hkv"], dims["D"]
    dev = generator.device
    u = 0.5 + torch.rand(b, generator=generator, device=dev, dtype=torch.float64)
    lens = torch.floor(u / u.sum() * (b * l)).to(torch.int64).clamp_min(1)
    short = b * l - int(lens.sum())
    lens[: abs(short)] += 1 if short > 0 else -1
    maxp = (3 * l // 2 + PAGE - 1) // PAGE + 2  # pages a sequence may need, with room to spare
    pool = b * maxp
    block_table = torch.randperm(pool, generator=generator, device=dev).to(torch.int32).view(b, maxp)
    q = (4.0 * torch.randn(b, hq, d, generator=generator, device=dev)).to(dtype)
    k_cache = torch.randn(pool, PAGE, hkv, d, generator=generator, device=dev).to(dtype)
    v_cache = torch.randn(pool, PAGE, hkv, d, generator=generator, device=dev).to(dtype)
    return [q, k_cache, v_cache, block_table, lens.to(torch.int32)]


def reference(q, k_cache, v_cache, block_table, context_lens):
    b, hq, d = q.shape
    hkv = k_cache.shape[2]
    out = torch.empty_like(q)
    for i, n in enumerate(context_lens.tolist()):
        pages = block_table[i, : (n + PAGE - 1) // PAGE].long()
        k = k_cache[pages].reshape(-1, hkv, d)[:n].transpose(0, 1)  # (Hkv, n, D)
        v = v_cache[pages].reshape(-1, hkv, d)[:n].transpose(0, 1)
        # bfloat16 SDPA, the query heads of KV head j being j * g .. j * g + g - 1
        o = F.scaled_dot_product_attention(q[i].view(hkv, hq // hkv, d), k, v)  # (Hkv, g, D)
        out[i] = o.reshape(hq, d)
    return out
