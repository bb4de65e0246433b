import torch
import triton
import triton.language as tl


# Pure copy: each program moves (BLOCK_R tokens x BLOCK_D columns); one index load per token, then 16-byte
# vector loads of the table row and contiguous stores, so HBM sees one read and one write per element.
# D is a compile-time constant. As a runtime argument, D = 3000 ran at 324 us against eager's 71 us on the
# H200 (2026-11-30): D is not a multiple of 16, so Triton does not specialise it, and the column mask of the
# last block cannot be proven 8-aligned, which keeps the accesses from being 16-byte vectors.
@triton.jit
def _embedding_kernel(idx_ptr, w_ptr, out_ptr, T, D: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr,
                      ALIGN: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    r_mask = rows < T
    idx = tl.load(idx_ptr + rows, mask=r_mask, other=0)
    mask = r_mask[:, None] & (cols < D)[None, :]
    src = tl.multiple_of(idx * D, ALIGN)  # rows start on ALIGN-element boundaries: vector loads when D % 8 == 0
    dst = tl.multiple_of(rows.to(tl.int64) * D, ALIGN)
    v = tl.load(w_ptr + src[:, None] + cols[None, :], mask=mask)
    tl.store(out_ptr + dst[:, None] + cols[None, :], v, mask=mask)


def embedding(indices: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    d = weight.shape[1]
    out = torch.empty((*indices.shape, d), dtype=weight.dtype, device=weight.device)
    t = indices.numel()
    block_d = min(1024, triton.next_power_of_2(d))
    block_r = max(1, 4096 // block_d)
    align = 8 if d % 8 == 0 else 4 if d % 4 == 0 else 2 if d % 2 == 0 else 1
    grid = (triton.cdiv(t, block_r), triton.cdiv(d, block_d))
    _embedding_kernel[grid](indices, weight, out, t, d, BLOCK_R=block_r, BLOCK_D=block_d,
                            ALIGN=align, num_warps=4)
    return out
