import torch
import triton
import triton.language as tl


# Rows up to 4K elements: BLOCK_M whole rows per program; x and the mask (read as bytes) are loaded once,
# the masked values scanned in registers (tl.cumsum along axis 1) and written once.
@triton.jit
def _mcumsum_tile_kernel(x_ptr, m_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    offsets = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0, eviction_policy="evict_first")
    keep = tl.load(m_ptr + offsets, mask=mask, other=0, eviction_policy="evict_first")
    x = tl.where(keep != 0, x, 0.0)
    tl.store(out_ptr + offsets, tl.cumsum(x, axis=1), mask=mask)


# Longer rows: one program per row scans BLOCK_N-element chunks and carries the running total.
@triton.jit
def _mcumsum_loop_kernel(x_ptr, m_ptr, out_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        o = row * n_cols + cols
        x = tl.load(x_ptr + o, mask=mask, other=0.0, eviction_policy="evict_first")
        keep = tl.load(m_ptr + o, mask=mask, other=0, eviction_policy="evict_first")
        x = tl.where(keep != 0, x, 0.0)
        tl.store(out_ptr + o, tl.cumsum(x, axis=0) + carry, mask=mask)
        carry += tl.sum(x, axis=0)


def masked_cumsum(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    mask_u8 = mask.view(torch.uint8)  # a view, no copy
    block_n = triton.next_power_of_2(n)
    if block_n <= 4096:
        block_m = max(1, 4096 // block_n)
        _mcumsum_tile_kernel[(triton.cdiv(m, block_m),)](x, mask_u8, out, m, n, BLOCK_M=block_m, BLOCK_N=block_n,
                                                         num_warps=8)
    else:
        _mcumsum_loop_kernel[(m,)](x, mask_u8, out, n, BLOCK_N=4096, num_warps=8)
    return out
