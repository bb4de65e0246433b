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


@triton.jit
def _packed_segmented_softmax_kernel(x_ptr, off_ptr, out_ptr, S, SEGS: tl.constexpr, BLOCK: tl.constexpr):
    # Short segments: the program's SEGS segments are one contiguous range of x, streamed densely in BLOCK
    # chunks (fully coalesced); a (BLOCK, SEGS) membership mask turns the per-segment max / sum and their
    # broadcast back to the elements into register reductions.
    first = tl.program_id(0) * SEGS
    segs = first + tl.arange(0, SEGS)
    seg_mask = segs < S
    starts = tl.load(off_ptr + segs, mask=seg_mask, other=0)
    ends = tl.load(off_ptr + segs + 1, mask=seg_mask, other=0)
    lo = tl.load(off_ptr + first)
    hi = tl.load(off_ptr + tl.minimum(first + SEGS, S))
    lanes = tl.arange(0, BLOCK)
    m = tl.full((SEGS,), -float("inf"), dtype=tl.float32)
    total = tl.zeros((SEGS,), dtype=tl.float32)
    for c0 in range(lo, hi, BLOCK):
        e = c0 + lanes
        v = tl.load(x_ptr + e, mask=e < hi, other=-float("inf"))
        member = (e[:, None] >= starts[None, :]) & (e[:, None] < ends[None, :])
        m_new = tl.maximum(m, tl.max(tl.where(member, v[:, None], -float("inf")), axis=0))
        m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        m_elem = tl.sum(tl.where(member, m_safe[None, :], 0.0), axis=1)
        p = tl.exp(v - m_elem)
        total = total * tl.exp(m - m_safe) + tl.sum(tl.where(member, p[:, None], 0.0), axis=0)
        m = m_new
    inv = 1.0 / tl.where(total > 0, total, 1.0)
    m = tl.where(m == -float("inf"), 0.0, m)
    for c0 in range(lo, hi, BLOCK):
        e = c0 + lanes
        e_mask = e < hi
        v = tl.load(x_ptr + e, mask=e_mask, other=0.0)
        member = (e[:, None] >= starts[None, :]) & (e[:, None] < ends[None, :])
        m_elem = tl.sum(tl.where(member, m[None, :], 0.0), axis=1)
        inv_elem = tl.sum(tl.where(member, inv[None, :], 0.0), axis=1)
        tl.store(out_ptr + e, tl.exp(v - m_elem) * inv_elem, mask=e_mask)


PACKED_BELOW = 64  # mean segment length under which the packed kernel is used


def segmented_softmax(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    s = offsets.numel() - 1
    out = torch.empty_like(x)
    mean = n // max(1, s)
    if mean < PACKED_BELOW:
        segs = max(4, min(64, triton.next_power_of_2(max(1, 256 // max(1, mean)))))
        _packed_segmented_softmax_kernel[(triton.cdiv(s, segs),)](x, offsets, out, s, SEGS=segs, BLOCK=256,
                                                                  num_warps=4)
        return out
    block = min(2048, max(32, triton.next_power_of_2(max(1, n // max(1, s)))))
    segs = max(1, 2048 // block)
    _segmented_softmax_kernel[(triton.cdiv(s, segs),)](x, offsets, out, s, SEGS=segs, BLOCK=block, num_warps=4)
    return out
