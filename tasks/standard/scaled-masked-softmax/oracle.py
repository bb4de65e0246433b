import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)


# BLOCK_M whole rows per program in registers (Sk up to 16K): x read once, out written once, the mask row
# read as bytes (the heads of one batch element follow each other, so it comes from L2 after the first
# head). Sk is a compile-time constant, so row starts are provably aligned when Sk allows it.
@triton.jit
def _smsoftmax_kernel(x_ptr, mask_ptr, out_ptr, n_rows, HSQ, SQ, scale, SK: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    rmask = rows < n_rows
    cmask = cols < SK
    valid = rmask[:, None] & cmask[None, :]
    offs = rows.to(tl.int64)[:, None] * SK + cols[None, :]
    b = rows // HSQ
    i = rows % SQ
    moffs = (b.to(tl.int64) * SQ + i)[:, None] * SK + cols[None, :]
    x = tl.load(x_ptr + offs, mask=valid, other=0.0, eviction_policy="evict_first").to(tl.float32)
    m = tl.load(mask_ptr + moffs, mask=valid, other=1)
    s = tl.where(m != 0, -10000.0, x * scale) * _LOG2E
    s = tl.where(cmask[None, :], s, -float("inf"))
    p = tl.exp2(s - tl.max(s, axis=1)[:, None])
    out = p / tl.sum(p, axis=1)[:, None]
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=valid)


def scaled_masked_softmax(x, mask, scale):
    b, h, sq, sk = x.shape
    out = torch.empty_like(x)
    n_rows = b * h * sq
    block_n = triton.next_power_of_2(sk)
    block_m = max(1, 4096 // block_n)
    num_warps = min(16, max(4, block_m * block_n // 512))
    _smsoftmax_kernel[(triton.cdiv(n_rows, block_m),)](x, mask, out, n_rows, h * sq, sq, float(scale), SK=sk,
                                                       BLOCK_M=block_m, BLOCK_N=block_n, num_warps=num_warps)
    return out
