import torch
import triton
import triton.language as tl


@triton.jit
def _mul(a, b):
    return a * b


# Rows up to 4K elements: BLOCK_M whole rows per program, scanned in registers (tl.cumprod along axis 1):
# one coalesced read and one write of x.
@triton.jit
def _cumprod_tile_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    offsets = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0, eviction_policy="evict_first")
    tl.store(out_ptr + offsets, tl.cumprod(x, axis=1), mask=mask)


# Longer rows: one program per row scans BLOCK_N-element chunks and carries the running product.
@triton.jit
def _cumprod_loop_kernel(x_ptr, out_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    out_row = out_ptr + row * n_cols
    carry = tl.full((), 1.0, tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=1.0, eviction_policy="evict_first")
        tl.store(out_row + cols, tl.cumprod(x, axis=0) * carry, mask=mask)
        carry = carry * tl.reduce(x, 0, _mul)


def cumprod(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    block_n = triton.next_power_of_2(n)
    if block_n <= 4096:
        block_m = max(1, 4096 // block_n)
        _cumprod_tile_kernel[(triton.cdiv(m, block_m),)](x, out, m, n, BLOCK_M=block_m, BLOCK_N=block_n,
                                                         num_warps=8)
    else:
        _cumprod_loop_kernel[(m,)](x, out, n, BLOCK_N=4096, num_warps=8)
    return out
