import os

import torch
import triton
import triton.language as tl

# One pass over memory: each program reads a (ROWS, GROUPS*128) tile once, reshapes it into its 1x128 blocks,
# reduces each block's |x| to its maximum, and writes the fp8 values and the block scales. IEEE divisions
# (div_rn) match torch's x / scale bit for bit; the GPU's fp8 conversion rounds to nearest even as torch does.
# Triton 3.6's interpreter mis-rounds float32 -> float8e4nv (a carry out of the mantissa is lost: 127.4 becomes
# 64, ties go away from zero, subnormals flush), so on the interpreter only the rounding is done in software
# (bit-exact round-to-nearest-even); the GPU uses the hardware conversion.
SOFT_CVT = os.environ.get("TRITON_INTERPRET") == "1"
FP8_MAX = tl.constexpr(448.0)
EPS = tl.constexpr(1e-12)


@triton.jit
def _fp8e4m3_bits(y):
    """Round-to-nearest-even encoding of float32 y (|y| <= 448) as float8_e4m3fn bits (uint8)."""
    a = tl.abs(y)
    e = ((a.to(tl.int32, bitcast=True) >> 23) & 0xFF) - 127
    qexp = tl.maximum(e, -6) - 3  # the spacing of e4m3 values around a (subnormals below 2^-6)
    quantum = ((qexp + 127) << 23).to(tl.float32, bitcast=True)
    inv = ((127 - qexp) << 23).to(tl.float32, bitcast=True)
    r = ((a * inv + 8388608.0) - 8388608.0) * quantum  # exact scaling; the add rounds half to even
    rb = r.to(tl.int32, bitcast=True)
    code = tl.where(r >= 0.015625, (rb >> 20) - 960, (r * 512.0).to(tl.int32))
    sign = (y.to(tl.int32, bitcast=True) >> 24) & 0x80
    return (code | sign).to(tl.uint8)


@triton.jit
def _quant_blocks_kernel(x_ptr, q_ptr, s_ptr, M, K, ROWS: tl.constexpr, GROUPS: tl.constexpr,
                         SOFT: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    g0 = tl.program_id(1) * GROUPS
    cols = g0 * 128 + tl.arange(0, GROUPS * 128)
    r_mask = rows < M
    mask = r_mask[:, None] & (cols < K)[None, :]
    offs = rows.to(tl.int64)[:, None] * K + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    xb = tl.reshape(x, (ROWS, GROUPS, 128))
    amax = tl.maximum(tl.max(tl.abs(xb), axis=2), EPS)
    scale = tl.math.div_rn(amax, tl.full([ROWS, GROUPS], 448.0, tl.float32))
    y = tl.math.div_rn(xb, scale[:, :, None])
    y = tl.reshape(tl.minimum(tl.maximum(y, -FP8_MAX), FP8_MAX), (ROWS, GROUPS * 128))
    if SOFT:
        tl.store(q_ptr + offs, _fp8e4m3_bits(y), mask=mask)
    else:
        tl.store(q_ptr + offs, y.to(q_ptr.dtype.element_ty), mask=mask)
    n_groups = K // 128
    groups = g0 + tl.arange(0, GROUPS)
    s_mask = r_mask[:, None] & (groups < n_groups)[None, :]
    tl.store(s_ptr + rows.to(tl.int64)[:, None] * n_groups + groups[None, :], scale, mask=s_mask)


def fp8_quant_block(x: torch.Tensor):
    M, K = x.shape
    q = torch.empty((M, K), device=x.device, dtype=torch.float8_e4m3fn)
    scale = torch.empty((M, K // 128), device=x.device, dtype=torch.float32)
    rows, groups = 4, 8
    grid = (triton.cdiv(M, rows), triton.cdiv(K // 128, groups))
    _quant_blocks_kernel[grid](x, q.view(torch.uint8) if SOFT_CVT else q, scale, M, K, ROWS=rows, GROUPS=groups,
                               SOFT=SOFT_CVT, num_warps=8)
    return q, scale
