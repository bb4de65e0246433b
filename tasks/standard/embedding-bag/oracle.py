import torch
import triton
import triton.language as tl


# One program per bag (and BLOCK_D columns): it walks its slice of indices BLOCK_I at a time, gathering
# (BLOCK_I, BLOCK_D) table rows with vector loads (D is a compile-time constant, so row starts are provably
# aligned) and summing them in float32 registers; one contiguous store per bag. Table rows are read once per
# lookup (repeats may hit L2), indices once, out written once.
@triton.jit
def _embedding_bag_sum_kernel(idx_ptr, off_ptr, w_ptr, out_ptr, B, T, D: tl.constexpr,
                              BLOCK_I: tl.constexpr, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    c_ok = cols < D
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1, mask=bag + 1 < B, other=T)
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    offs_i = tl.arange(0, BLOCK_I)
    for i0 in range(start, end, BLOCK_I):
        ii = i0 + offs_i
        i_ok = ii < end
        rows = tl.load(idx_ptr + ii, mask=i_ok, other=0)
        v = tl.load(w_ptr + rows[:, None] * D + cols[None, :], mask=i_ok[:, None] & c_ok[None, :], other=0.0)
        acc += tl.sum(v.to(tl.float32), axis=0)
    tl.store(out_ptr + bag.to(tl.int64) * D + cols, acc.to(out_ptr.dtype.element_ty), mask=c_ok)


def embedding_bag(indices: torch.Tensor, offsets: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    d = weight.shape[1]
    b = offsets.numel()
    t = indices.numel()
    out = torch.empty((b, d), dtype=weight.dtype, device=weight.device)
    block_d = min(256, triton.next_power_of_2(d))
    block_i = max(1, 2048 // block_d)
    grid = (b, triton.cdiv(d, block_d))
    _embedding_bag_sum_kernel[grid](indices, offsets, weight, out, b, t, d, BLOCK_I=block_i, BLOCK_D=block_d,
                                    num_warps=4)
    return out
