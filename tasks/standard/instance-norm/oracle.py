import torch
import triton
import triton.language as tl


# Planes of up to 16K elements: BLOCK_P whole planes per program in registers, x read once, out written
# once, exact two-pass statistics from the registers. HW is a compile-time constant so the plane starts are
# provably aligned when HW is a multiple of 8 and the loads vectorise.
@triton.jit
def _in_tile_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_planes, C, eps, HW: tl.constexpr,
                    BLOCK_P: tl.constexpr, BLOCK_HW: tl.constexpr):
    planes = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    cols = tl.arange(0, BLOCK_HW)
    pmask = planes < n_planes
    mask = pmask[:, None] & (cols < HW)[None, :]
    offs = planes.to(tl.int64)[:, None] * HW + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    mean = tl.sum(x, axis=1) / HW
    xc = tl.where(mask, x - mean[:, None], 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=1) / HW + eps)
    c = planes % C
    w = tl.load(w_ptr + c, mask=pmask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + c, mask=pmask, other=0.0).to(tl.float32)
    out = xc * (rstd * w)[:, None] + b[:, None]
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


# Larger planes: one program per plane streams it twice. Pass 1 keeps per-lane sums of (x - x0) and
# (x - x0)^2, shifted by the plane's first element so the variance does not cancel; pass 2 re-reads the
# chunks in reverse order (the last ones read are the likeliest in L2) and writes out once.
@triton.jit
def _in_loop_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C, eps, HW: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    base = plane.to(tl.int64) * HW
    offs = tl.arange(0, BLOCK)
    x0 = tl.load(x_ptr + base).to(tl.float32)
    s1 = tl.zeros((BLOCK,), tl.float32)
    s2 = tl.zeros((BLOCK,), tl.float32)
    n_chunks: tl.constexpr = (HW + BLOCK - 1) // BLOCK
    for k in range(0, n_chunks):
        cols = k * BLOCK + offs
        mask = cols < HW
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
        d = tl.where(mask, x - x0, 0.0)
        s1 += d
        s2 += d * d
    m1 = tl.sum(s1, axis=0) / HW
    var = tl.maximum(tl.sum(s2, axis=0) / HW - m1 * m1, 0.0)
    mean = x0 + m1
    rstd = 1.0 / tl.sqrt(var + eps)
    c = plane % C
    a = rstd * tl.load(w_ptr + c).to(tl.float32)
    b = tl.load(b_ptr + c).to(tl.float32)
    for k in range(0, n_chunks):
        cols = (n_chunks - 1 - k) * BLOCK + offs
        mask = cols < HW
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        tl.store(out_ptr + base + cols, ((x - mean) * a + b).to(out_ptr.dtype.element_ty), mask=mask)


def instance_norm(x, weight, bias, eps):
    n, c, h, w = x.shape
    out = torch.empty_like(x)
    hw = h * w
    n_planes = n * c
    block_hw = triton.next_power_of_2(hw)
    if block_hw <= 16384:
        block_p = max(1, 4096 // block_hw)
        num_warps = min(16, max(4, block_p * block_hw // 512))
        _in_tile_kernel[(triton.cdiv(n_planes, block_p),)](x, weight, bias, out, n_planes, c, float(eps), HW=hw,
                                                           BLOCK_P=block_p, BLOCK_HW=block_hw, num_warps=num_warps)
    else:
        _in_loop_kernel[(n_planes,)](x, weight, bias, out, c, float(eps), HW=hw, BLOCK=4096, num_warps=8)
    return out
