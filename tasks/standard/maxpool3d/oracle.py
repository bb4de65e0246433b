import torch
import triton
import triton.language as tl


# Channels-last makes every tap a contiguous run of C values: a program owns BLOCK_P output voxels x BLOCK_C
# channels and takes the maximum of 27 vectorised (16-byte) tap loads; neighbouring windows overlap in L1/L2,
# so HBM reads x about once and writes out once.
@triton.jit
def _maxpool3d_kernel(x_ptr, out_ptr, P, D, H, W, OD, OH, OW, C,
                      BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr):
    offs_p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    offs_c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    p_ok = offs_p < P
    c_ok = offs_c < C
    j = offs_p % OW
    t = offs_p // OW
    i = t % OH
    t = t // OH
    a = t % OD
    n = t // OD
    best = tl.full((BLOCK_P, BLOCK_C), float("-inf"), x_ptr.dtype.element_ty)
    for tt in tl.static_range(3):
        idd = 2 * a - 1 + tt
        ok_d = p_ok & (idd >= 0) & (idd < D)
        for r in tl.static_range(3):
            ih = 2 * i - 1 + r
            ok_h = ok_d & (ih >= 0) & (ih < H)
            vox_row = ((n.to(tl.int64) * D + idd) * H + ih) * W
            for s in tl.static_range(3):
                iw = 2 * j - 1 + s
                ok = ok_h & (iw >= 0) & (iw < W)
                v = tl.load(x_ptr + ((vox_row + iw) * C)[:, None] + offs_c[None, :],
                            mask=ok[:, None] & c_ok[None, :], other=float("-inf"))
                best = tl.maximum(best, v)
    o = offs_p.to(tl.int64)[:, None] * C + offs_c[None, :]
    tl.store(out_ptr + o, best.to(out_ptr.dtype.element_ty), mask=p_ok[:, None] & c_ok[None, :])


def maxpool3d(x: torch.Tensor) -> torch.Tensor:
    n, d, h, w, c = x.shape
    od, oh, ow = (d - 1) // 2 + 1, (h - 1) // 2 + 1, (w - 1) // 2 + 1
    out = torch.empty((n, od, oh, ow, c), dtype=x.dtype, device=x.device)
    p = n * od * oh * ow
    block_c = 64 if c % 64 == 0 else 32 if c % 32 == 0 else min(128, triton.next_power_of_2(c))
    block_p = max(1, 2048 // block_c)
    grid = (triton.cdiv(p, block_p), triton.cdiv(c, block_c))
    _maxpool3d_kernel[grid](x, out, p, d, h, w, od, oh, ow, c, BLOCK_P=block_p, BLOCK_C=block_c, num_warps=4)
    return out
