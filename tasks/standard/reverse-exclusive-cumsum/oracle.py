import torch
import triton
import triton.language as tl


# Rows up to 4K elements: BLOCK_M whole rows per program, scanned right to left in registers
# (tl.cumsum(reverse=True) gives the inclusive suffix sum; minus x makes it exclusive): one read, one write.
@triton.jit
def _rev_excl_tile_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    offsets = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0, eviction_policy="evict_first")
    tl.store(out_ptr + offsets, tl.cumsum(x, axis=1, reverse=True) - x, mask=mask)


# Longer rows: one program per row walks BLOCK_N-element chunks from the end, carrying the sum of
# everything to the right of the chunk.
@triton.jit
def _rev_excl_loop_kernel(x_ptr, out_ptr, n_cols, n_chunks, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    out_row = out_ptr + row * n_cols
    carry = tl.zeros((), dtype=tl.float32)
    for c in range(0, n_chunks):
        cols = (n_chunks - 1 - c) * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0, eviction_policy="evict_first")
        tl.store(out_row + cols, tl.cumsum(x, axis=0, reverse=True) - x + carry, mask=mask)
        carry += tl.sum(x, axis=0)


def reverse_exclusive_cumsum(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    block_n = triton.next_power_of_2(n)
    if block_n <= 4096:
        block_m = max(1, 4096 // block_n)
        _rev_excl_tile_kernel[(triton.cdiv(m, block_m),)](x, out, m, n, BLOCK_M=block_m, BLOCK_N=block_n,
                                                          num_warps=8)
    else:
        _rev_excl_loop_kernel[(m,)](x, out, n, triton.cdiv(n, 4096), BLOCK_N=4096, num_warps=8)
    return out
