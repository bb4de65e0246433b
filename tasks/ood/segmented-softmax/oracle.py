import torch
import triton
import triton.language as tl


# Memory-bound with ragged rows: each program takes SEGS consecutive segments as the rows of a
# (SEGS, BLOCK) tile (BLOCK sized from the mean length, so short segments are packed many to a program and
# long ones stream in BLOCK-wide chunks), runs an online max/sum per row, then rescales and stores; the
# second sweep over a program's own (contiguous) range hits in L1/L2, so x leaves HBM about once.
@triton.jit
def _segmented_softmax_kernel(x_ptr, off_ptr, out_ptr, S, SEGS: tl.constexpr, BLOCK: tl.constexpr):
    segs = tl.program_id(0) * SEGS + tl.arange(0, SEGS)
    seg_mask = segs < S
    start = tl.load(off_ptr + segs, mask=seg_mask, other=0)
    length = tl.load(off_ptr + segs + 1, mask=seg_mask, other=0) - start
    longest = tl.max(length, axis=0)
    cols = tl.arange(0, BLOCK)
    m = tl.full((SEGS,), -float("inf"), dtype=tl.float32)
    total = tl.zeros((SEGS,), dtype=tl.float32)
    for c0 in range(0, longest, BLOCK):
        idx = c0 + cols
        mask = idx[None, :] < length[:, None]
        v = tl.load(x_ptr + start[:, None] + idx[None, :], mask=mask, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(v, axis=1))
        m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        total = total * tl.exp(m - m_safe) + tl.sum(tl.exp(v - m_safe[:, None]), axis=1)
        m = m_new
    inv = 1.0 / tl.where(seg_mask, total, 1.0)
    m = tl.where(seg_mask, m, 0.0)
    for c0 in range(0, longest, BLOCK):
        idx = c0 + cols
        mask = idx[None, :] < length[:, None]
        offs = start[:, None] + idx[None, :]
        v = tl.load(x_ptr + offs, mask=mask, other=-float("inf"))
        tl.store(out_ptr + offs, tl.exp(v - m[:, None]) * inv[:, None], mask=mask)


def segmented_softmax(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    s = offsets.numel() - 1
    out = torch.empty_like(x)
    block = min(2048, max(32, triton.next_power_of_2(max(1, n // max(1, s)))))
    segs = max(1, 2048 // block)
    _segmented_softmax_kernel[(triton.cdiv(s, segs),)](x, offsets, out, s, SEGS=segs, BLOCK=block, num_warps=4)
    return out
