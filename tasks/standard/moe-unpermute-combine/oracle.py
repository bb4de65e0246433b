import torch
import triton
import triton.language as tl


# One pass: each program owns BLOCK_T tokens x BLOCK_H columns; for each of the K slots it loads the row
# index and weight, gathers the expert row with 16-byte loads and accumulates in float32 registers; one
# bfloat16 store per output element. H is a compile-time constant (aligned vector accesses).
@triton.jit
def _combine_kernel(y_ptr, inv_ptr, w_ptr, out_ptr, T, K: tl.constexpr, H: tl.constexpr,
                    BLOCK_T: tl.constexpr, BLOCK_H: tl.constexpr):
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    tmask = toks < T
    cmask = cols < H
    mask = tmask[:, None] & cmask[None, :]
    acc = tl.zeros((BLOCK_T, BLOCK_H), tl.float32)
    for j in tl.static_range(K):
        r = tl.load(inv_ptr + toks * K + j, mask=tmask, other=0).to(tl.int64)
        w = tl.load(w_ptr + toks * K + j, mask=tmask, other=0.0)
        v = tl.load(y_ptr + r[:, None] * H + cols[None, :], mask=mask, other=0.0)
        acc += w[:, None] * v.to(tl.float32)
    tl.store(out_ptr + toks.to(tl.int64)[:, None] * H + cols[None, :], acc.to(out_ptr.dtype.element_ty), mask=mask)


def moe_unpermute_combine(expert_out: torch.Tensor, inverse: torch.Tensor, weights: torch.Tensor):
    t, k = weights.shape
    h = expert_out.shape[1]
    out = torch.empty((t, h), dtype=expert_out.dtype, device=expert_out.device)
    block_h = min(1024, triton.next_power_of_2(h))
    block_t = max(1, 2048 // block_h)
    grid = (triton.cdiv(t, block_t), triton.cdiv(h, block_h))
    _combine_kernel[grid](expert_out, inverse, weights, out, t, K=k, H=h, BLOCK_T=block_t, BLOCK_H=block_h,
                          num_warps=4)
    return out
