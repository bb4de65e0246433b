import torch
import torch.nn.functional as F


def _shares(n: int, total: int, generator: torch.Generator) -> torch.Tensor:
    """n lengths >= 1 proportional to uniform draws in [0.75, 1.25), summing to total exactly."""
    u = 0.75 + 0.5 * torch.rand(n, generator=generator, device=generator.device, dtype=torch.float64)
    lens = torch.floor(u / u.sum() * total).to(torch.int64).clamp_min(1)
    short = total - int(lens.sum())
    lens[: abs(short)] += 1 if short > 0 else -1
    return lens


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """NLONG long sequences share NLONG * LONG tokens and the B - NLONG short ones share (B - NLONG) * SHORT
    (each group ragged within +-25%), in a random order of sequences; the keys and values are packed."""
    b, nlong, long_, short, hq, hkv, d = (dims[x] for x in ("B", "NLONG", "LONG", "SHORT", "Hq", "Hkv", "D"))
    dev = generator.device
    lens = torch.cat([_shares(nlong, nlong * long_, generator), _shares(b - nlong, (b - nlong) * short, generator)])
    lens = lens[torch.randperm(b, generator=generator, device=dev)]
    cu = torch.zeros(b + 1, dtype=torch.int32, device=dev)
    cu[1:] = torch.cumsum(lens, 0).to(torch.int32)
    total = nlong * long_ + (b - nlong) * short
    q = (4.0 * torch.randn(b, hq, d, generator=generator, device=dev)).to(dtype)
    k = torch.randn(total, hkv, d, generator=generator, device=dev).to(dtype)
    v = torch.randn(total, hkv, d, generator=generator, device=dev).to(dtype)
    return [q, k, v, cu]


def reference(q, k, v, cu_seqlens_k):
    b, hq, d = q.shape
    hkv = k.shape[1]
    out = torch.empty_like(q)
    bounds = cu_seqlens_k.tolist()
    for i in range(b):
        ks = k[bounds[i]:bounds[i + 1]].transpose(0, 1)  # (Hkv, n, D)
        vs = v[bounds[i]:bounds[i + 1]].transpose(0, 1)
        # bfloat16 SDPA, the query heads of KV head j being j * g .. j * g + g - 1
        out[i] = F.scaled_dot_product_attention(q[i].view(hkv, hq // hkv, d), ks, vs).reshape(hq, d)
    return out
