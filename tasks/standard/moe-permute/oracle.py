import torch
import triton
import triton.language as tl


# A row gather like standard/embedding: each program copies BLOCK_R output rows x BLOCK_H columns with
# 16-byte accesses (H is a compile-time constant, so rows are known aligned); padding rows get zeros
# without reading x. The first column block also writes the inverse map for its rows.
@triton.jit
def _permute_kernel(x_ptr, ids_ptr, out_ptr, inv_ptr, P, M, K: tl.constexpr, H: tl.constexpr,
                    BLOCK_R: tl.constexpr, BLOCK_H: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    hb = tl.program_id(1)
    cols = hb * BLOCK_H + tl.arange(0, BLOCK_H)
    rmask = rows < P
    f = tl.load(ids_ptr + rows, mask=rmask, other=M)
    valid = f < M
    tok = tl.where(valid, f // K, 0).to(tl.int64)
    cmask = cols < H
    v = tl.load(x_ptr + tok[:, None] * H + cols[None, :], mask=valid[:, None] & cmask[None, :], other=0.0)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * H + cols[None, :], v, mask=rmask[:, None] & cmask[None, :])
    if hb == 0:
        tl.store(inv_ptr + f, rows, mask=rmask & valid)


def moe_permute(x: torch.Tensor, sorted_token_ids: torch.Tensor, top_k: int):
    t, h = x.shape
    p = sorted_token_ids.numel()
    m = t * top_k
    permuted = torch.empty((p, h), dtype=x.dtype, device=x.device)
    inverse = torch.empty(m, dtype=torch.int32, device=x.device)
    block_h = min(2048, triton.next_power_of_2(h))
    block_r = max(1, 4096 // block_h)
    grid = (triton.cdiv(p, block_r), triton.cdiv(h, block_h))
    _permute_kernel[grid](x, sorted_token_ids, permuted, inverse, p, m, K=top_k, H=h, BLOCK_R=block_r,
                          BLOCK_H=block_h, num_warps=4)
    return permuted, inverse
