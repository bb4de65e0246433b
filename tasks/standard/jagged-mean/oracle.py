import torch
import triton
import triton.language as tl


# One program per (segment, BLOCK_D columns): it reads its two offsets and streams the segment's rows in
# (BLOCK_R, BLOCK_D) tiles (coalesced rows, every value read once) into a float32 register tile, reduced
# over the rows once at the end. Long segments only lengthen their own programs; with thousands of
# programs in flight the scheduler balances the ragged lengths.
@triton.jit
def _jagged_kernel(values_ptr, offsets_ptr, out_ptr, D, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr,
                   MEAN: tl.constexpr):
    seg = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    c_mask = cols < D
    start = tl.load(offsets_ptr + seg)
    end = tl.load(offsets_ptr + seg + 1)
    acc = tl.zeros((BLOCK_R, BLOCK_D), tl.float32)
    for r0 in range(start, end, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        mask = (rows < end)[:, None] & c_mask[None, :]
        acc += tl.load(values_ptr + rows[:, None] * D + cols[None, :], mask=mask, other=0.0,
                       eviction_policy="evict_first")
    total = tl.sum(acc, axis=0)
    if MEAN:
        total = total / (end - start).to(tl.float32)
    tl.store(out_ptr + seg.to(tl.int64) * D + cols, total, mask=c_mask)


def jagged_mean(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    d = values.shape[1]
    s = offsets.numel() - 1
    out = torch.empty((s, d), dtype=torch.float32, device=values.device)
    block_d = min(128, triton.next_power_of_2(d))
    block_r = max(1, 4096 // block_d)
    _jagged_kernel[(s, triton.cdiv(d, block_d))](values, offsets, out, d, BLOCK_R=block_r, BLOCK_D=block_d,
                                                 MEAN=True, num_warps=8)
    return out
