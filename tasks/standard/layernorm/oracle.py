import torch
import triton
import triton.language as tl


# BLOCK_M whole rows per program held in registers: x is read from HBM once and out written once; the mean
# and the centred variance (two passes over registers, no E[x^2]-E[x]^2 cancellation) cost no extra traffic.
@triton.jit
def _layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_rows, n_cols, eps,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    mask = (rows < n_rows)[:, None] & col_mask[None, :]
    offsets = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    w = tl.load(w_ptr + cols, mask=col_mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    b = tl.load(b_ptr + cols, mask=col_mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    mean = tl.sum(x, axis=1) / n_cols
    xc = tl.where(mask, x - mean[:, None], 0.0)
    var = tl.sum(xc * xc, axis=1) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    y = xc * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    block_n = triton.next_power_of_2(n)
    block_m = max(1, 4096 // block_n)
    num_warps = min(16, max(4, block_m * block_n // 512))
    _layernorm_kernel[(triton.cdiv(m, block_m),)](x, weight, bias, out, m, n, float(eps),
                                                   BLOCK_M=block_m, BLOCK_N=block_n, num_warps=num_warps)
    return out
