import torch
import triton
import triton.language as tl

_EPS = tl.constexpr(1.0e-6)
_MARGIN = tl.constexpr(1.0)


# One streaming pass: each program takes BLOCK_B whole rows of the three tensors ((BLOCK_B, BLOCK_D) tiles,
# looping over D when a row is longer than BLOCK_D), forms both distances and the clamped row losses and
# writes one partial sum; a one-program kernel adds the partials in a fixed order (deterministic).
@triton.jit
def _triplet_partial_kernel(a_ptr, p_ptr, n_ptr, part_ptr, B, D, BLOCK_B: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    r_mask = rows < B
    base = rows.to(tl.int64)[:, None] * D
    sp = tl.zeros((BLOCK_B, BLOCK_D), tl.float32)
    sn = tl.zeros((BLOCK_B, BLOCK_D), tl.float32)
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        mask = r_mask[:, None] & (cols < D)[None, :]
        o = base + cols[None, :]
        a = tl.load(a_ptr + o, mask=mask, other=0.0, eviction_policy="evict_first")
        p = tl.load(p_ptr + o, mask=mask, other=0.0, eviction_policy="evict_first")
        n = tl.load(n_ptr + o, mask=mask, other=0.0, eviction_policy="evict_first")
        dp = tl.where(mask, a - p + _EPS, 0.0)
        dn = tl.where(mask, a - n + _EPS, 0.0)
        sp += dp * dp
        sn += dn * dn
    l = tl.maximum(tl.sqrt(tl.sum(sp, axis=1)) - tl.sqrt(tl.sum(sn, axis=1)) + _MARGIN, 0.0)
    tl.store(part_ptr + tl.program_id(0), tl.sum(tl.where(r_mask, l, 0.0), axis=0))


@triton.jit
def _finish_kernel(part_ptr, out_ptr, n_part, scale, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(0, n_part, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + offs, mask=offs < n_part, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) * scale)


def triplet_margin_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
    b, d = anchor.shape
    block_d = min(1024, triton.next_power_of_2(d))
    block_b = max(1, 2048 // block_d)
    n_prog = triton.cdiv(b, block_b)
    part = torch.empty((n_prog,), dtype=torch.float32, device=anchor.device)
    out = torch.empty((), dtype=torch.float32, device=anchor.device)
    _triplet_partial_kernel[(n_prog,)](anchor, positive, negative, part, b, d, BLOCK_B=block_b, BLOCK_D=block_d,
                                       num_warps=8)
    _finish_kernel[(1,)](part, out, n_prog, 1.0 / b, BLOCK=1024, num_warps=4)
    return out
