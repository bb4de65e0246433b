import torch
import torch.nn.functional as F


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """q, k, v, dout normal(0, 1); out and lse from the exact causal forward (float32 scores, computed a
    few heads at a time), out rounded to the task dtype, lse the natural-log logsumexp of the scaled scores."""
    b, h, s, d = dims["B"], dims["H"], dims["S"], dims["D"]
    dev = generator.device
    q, k, v, dout = (torch.randn(b, h, s, d, generator=generator, device=dev).to(dtype) for _ in range(4))
    out = torch.empty_like(q)
    lse = torch.empty(b, h, s, dtype=torch.float32, device=dev)
    future = torch.ones(s, s, dtype=torch.bool, device=dev).triu(1)
    step = max(1, (1 << 28) // (s * s))  # heads per step: about 1 GiB of float32 scores
    qf, kf, vf = (x.reshape(b * h, s, d) for x in (q, k, v))
    for i in range(0, b * h, step):
        scores = (qf[i:i + step].float() @ kf[i:i + step].float().transpose(-1, -2)) * d ** -0.5
        scores.masked_fill_(future, float("-inf"))
        m = torch.logsumexp(scores, dim=-1)
        lse.view(b * h, s)[i:i + step] = m
        out.view(b * h, s, d)[i:i + step] = (torch.exp(scores - m[..., None]) @ vf[i:i + step].float()).to(dtype)
    return [q, k, v, out, dout, lse]


def reference(q, k, v, out, dout, lse):
    # The gradients of SDPA (flash attention's backward on the GPU) run on float16 copies of the bfloat16
    # inputs (exact for these values): its internal roundings of P and dS are then 8x finer than in a
    # bfloat16 backward, whose worst elements are about 1% off, the size of error the tolerance must catch.
    # out and lse are not needed by autograd, which recomputes the forward.
    half = torch.float16 if q.dtype == torch.bfloat16 else q.dtype
    qg, kg, vg = (x.detach().to(half).requires_grad_(True) for x in (q, k, v))
    with torch.enable_grad():
        o = F.scaled_dot_product_attention(qg, kg, vg, is_causal=True)
        grads = torch.autograd.grad(o, (qg, kg, vg), dout.to(half))
    return tuple(g.to(q.dtype) for g in grads)
