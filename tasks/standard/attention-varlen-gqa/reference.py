import torch
import torch.nn.functional as F


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Ragged lengths: each sequence gets a share of the T tokens proportional to a uniform draw in
    [0.5, 1.5) (so lengths differ by up to 3x), every length >= 1, summing to T exactly."""
    t, nseq, hq, hkv, d = dims["T"], dims["NSEQ"], dims["Hq"], dims["Hkv"], dims["D"]
    dev = generator.device
    u = 0.5 + torch.rand(nseq, generator=generator, device=dev, dtype=torch.float64)
    lengths = torch.floor(u / u.sum() * t).to(torch.int64).clamp_min(1)
    short = t - int(lengths.sum())
    lengths[: abs(short)] += 1 if short > 0 else -1  # T // NSEQ >= 4, so no length reaches 0
    cu_seqlens = torch.zeros(nseq + 1, dtype=torch.int32, device=dev)
    cu_seqlens[1:] = torch.cumsum(lengths, 0).to(torch.int32)
    q = (2.5 * torch.randn(t, hq, d, generator=generator, device=dev)).to(dtype)
    k = torch.randn(t, hkv, d, generator=generator, device=dev).to(dtype)
    v = torch.randn(t, hkv, d, generator=generator, device=dev).to(dtype)
    return [q, k, v, cu_seqlens]


def reference(q, k, v, cu_seqlens):
    g = q.shape[1] // k.shape[1]
    out = torch.empty_like(q)
    bounds = cu_seqlens.tolist()
    for s, e in zip(bounds[:-1], bounds[1:]):
        qs = q[s:e].transpose(0, 1)[None]  # (1, Hq, len, D)
        ks = k[s:e].transpose(0, 1)[None].repeat_interleave(g, dim=1)
        vs = v[s:e].transpose(0, 1)[None].repeat_interleave(g, dim=1)
        # bfloat16 SDPA (flash attention on the GPU: fp32 softmax and accumulation inside)
        out[s:e] = F.scaled_dot_product_attention(qs, ks, vs, is_causal=True)[0].transpose(0, 1)
    return out
