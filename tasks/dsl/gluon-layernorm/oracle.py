import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


# One read of x and one write of out: whole rows in registers in a 2-D BlockedLayout (several rows per
# program for short rows), weight/bias loaded once per program in the column SliceLayout; N is
# passed as N // VEC so the compiler can prove the rows' alignment, and each thread owns VEC contiguous
# elements (16-byte vectors when N % 8 == 0) so every warp access is fully coalesced whatever N is.
@gluon.jit
def _layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, n_vec, eps, VEC: gl.constexpr, BLOCK_M: gl.constexpr,
                      BLOCK_N: gl.constexpr, TPW_M: gl.constexpr, TPW_N: gl.constexpr, WPC_M: gl.constexpr,
                      WPC_N: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout(size_per_thread=[1, VEC], threads_per_warp=[TPW_M, TPW_N],
                                            warps_per_cta=[WPC_M, WPC_N], order=[1, 0])
    row_layout: gl.constexpr = gl.SliceLayout(1, layout)
    col_layout: gl.constexpr = gl.SliceLayout(0, layout)
    n = n_vec * VEC
    rows = gl.program_id(0) * BLOCK_M + gl.arange(0, BLOCK_M, layout=row_layout)
    cols = gl.arange(0, BLOCK_N, layout=col_layout)
    col_mask = cols < n
    w = gl.load(w_ptr + cols, mask=col_mask, other=0.0).to(gl.float32)
    b = gl.load(b_ptr + cols, mask=col_mask, other=0.0).to(gl.float32)

    offs = gl.expand_dims(rows.to(gl.int64) * n, 1) + gl.expand_dims(cols, 0)
    mask = gl.expand_dims(rows < M, 1) & gl.expand_dims(col_mask, 0)
    x = gl.load(x_ptr + offs, mask=mask, other=0.0).to(gl.float32)
    mean = gl.sum(x, axis=1) / n
    xc = gl.where(mask, x - gl.expand_dims(mean, 1), 0.0)
    var = gl.sum(xc * xc, axis=1) / n
    rstd = gl.rsqrt(var + eps)
    y = xc * gl.expand_dims(rstd, 1) * gl.expand_dims(w, 0) + gl.expand_dims(b, 0)
    gl.store(out_ptr + offs, y.to(gl.float16), mask=mask)


def layernorm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    vec = 8 if n % 8 == 0 else 4 if n % 4 == 0 else 2 if n % 2 == 0 else 1
    block_n = max(triton.next_power_of_2(n), 16)
    block_m = max(1, 4096 // block_n)  # about 4K elements per program
    num_warps = 4 if block_n <= 2048 else 8
    tpw_n = min(32, block_n // vec)  # VEC contiguous elements per thread: the widest access rows allow
    tpw_m = 32 // tpw_n
    wpc_m = min(num_warps, max(1, block_m // tpw_m))  # warps along M first: cheaper row reductions
    wpc_n = num_warps // wpc_m
    _layernorm_kernel[(triton.cdiv(m, block_m),)](
        x, weight, bias, out, m, n // vec, float(eps), VEC=vec, BLOCK_M=block_m, BLOCK_N=block_n,
        TPW_M=tpw_m, TPW_N=tpw_n, WPC_M=wpc_m, WPC_N=wpc_n, num_warps=num_warps)
    return out
