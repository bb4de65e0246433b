import torch
import triton
import triton.language as tl

# One program sorts one row in registers. Each element becomes a unique int64 key: the float's bits mapped
# to an order-preserving signed integer in the high half, the column in the low half, so sorting the keys
# ascending is exactly the stable sort (equal values by column). Triton's bitonic sort (tl.sort) orders the
# keys; the row is padded to a power of two with the largest key, and both outputs are decoded from the
# sorted keys (x read once, values and indices written once).
_LOW_MASK = tl.constexpr(0xFFFFFFFF)
_NEG_MAG = tl.constexpr(0x7FFFFFFF)


@triton.jit
def _sort_row_kernel(x_ptr, val_ptr, idx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row.to(tl.int64) * N
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + base + cols, mask=mask, other=0.0) + 0.0  # -0.0 becomes +0.0
    b = x.to(tl.int32, bitcast=True)
    b = tl.where(b < 0, b ^ _NEG_MAG, b)
    key = (b.to(tl.int64) << 32) | cols.to(tl.int64)
    key = tl.where(mask, key, 9223372036854775807)
    key = tl.sort(key)
    col = key & _LOW_MASK
    kb = (key >> 32).to(tl.int32)
    kb = tl.where(kb < 0, kb ^ _NEG_MAG, kb)
    tl.store(val_ptr + base + cols, kb.to(tl.float32, bitcast=True), mask=mask)
    tl.store(idx_ptr + base + cols, col, mask=mask)


def sort_rows(x: torch.Tensor):
    m, n = x.shape
    values = torch.empty_like(x)
    indices = torch.empty((m, n), dtype=torch.int64, device=x.device)
    block = triton.next_power_of_2(n)
    _sort_row_kernel[(m,)](x, values, indices, n, BLOCK=block, num_warps=8 if block >= 2048 else 4)
    return values, indices
