import os

import torch
import triton
import triton.language as tl


# Implicit GEMM on tensor cores. In NHWC with 3 channels, one kernel row of one output pixel's receptive
# field, x[n, ih, iw0 .. iw0 + 6, 0 .. 2], is 21 contiguous elements, and weight[k, r, :, :] is 21 contiguous
# elements too: the reduction is 7 dots (one per kernel row) of K = 21 padded to 32, with padding as a load
# mask. A program computes BLOCK_M output pixels x all 64 output channels and stores one contiguous tile.
_CONFIGS = [
    triton.Config({"BLOCK_M": 128}, num_warps=4, num_stages=2),
    triton.Config({"BLOCK_M": 64}, num_warps=4, num_stages=2),
    triton.Config({"BLOCK_M": 256}, num_warps=8, num_stages=2),
    triton.Config({"BLOCK_M": 128}, num_warps=8, num_stages=2),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["H", "W"])
@triton.jit
def _stem_kernel(x_ptr, w_ptr, out_ptr, P, H, W, OH, OW,
                 C: tl.constexpr, KS: tl.constexpr, PAD: tl.constexpr, STRIDE: tl.constexpr,
                 COUT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    ROW: tl.constexpr = KS * C
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    m_mask = offs_m < P
    ow = offs_m % OW
    t = offs_m // OW
    oh = t % OH
    img = t // OH
    offs_j = tl.arange(0, BLOCK_K)          # position inside one 21-element kernel row
    offs_n = tl.arange(0, COUT)
    j_ok = offs_j < ROW
    iw = (ow * STRIDE - PAD)[:, None] + (offs_j // C)[None, :]
    col_ok = j_ok[None, :] & (iw >= 0) & (iw < W) & m_mask[:, None]
    base = (img.to(tl.int64) * H * W + (ow * STRIDE - PAD)) * C
    acc = tl.zeros((BLOCK_M, COUT), dtype=tl.float32)
    for r in tl.static_range(KS):
        ih = oh * STRIDE - PAD + r
        ok = col_ok & ((ih >= 0) & (ih < H))[:, None]
        a = tl.load(x_ptr + (base + ih * (W * C))[:, None] + offs_j[None, :], mask=ok, other=0.0)
        b = tl.load(w_ptr + offs_n[None, :] * (KS * ROW) + r * ROW + offs_j[:, None], mask=j_ok[:, None], other=0.0)
        acc = tl.dot(a, b, acc)
    out_ptrs = out_ptr + offs_m.to(tl.int64)[:, None] * COUT + offs_n[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=m_mask[:, None])


def conv2d_stem_7x7(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    n, h, w, c = x.shape
    cout = weight.shape[0]
    oh, ow = (h - 1) // 2 + 1, (w - 1) // 2 + 1
    out = torch.empty((n, oh, ow, cout), dtype=x.dtype, device=x.device)
    p = n * oh * ow
    grid = lambda meta: (triton.cdiv(p, meta["BLOCK_M"]),)
    _stem_kernel[grid](x, weight, out, p, h, w, oh, ow, C=c, KS=7, PAD=3, STRIDE=2, COUT=cout, BLOCK_K=32)
    return out
