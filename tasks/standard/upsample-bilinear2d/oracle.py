import torch
import triton
import triton.language as tl


# A program owns (BLOCK_R output rows over all planes) x (BLOCK_OW output columns). Each output reads its 4
# neighbours; every input element is shared by about 4 outputs of the same tile or its neighbour, so the
# gathers hit L1/L2 and HBM sees x once; the stores are contiguous rows, 4x the input's bytes.
@triton.jit
def _upsample2x_kernel(x_ptr, out_ptr, n_rows, H, W, OH, OW, BLOCK_R: tl.constexpr, BLOCK_OW: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)  # output rows over all (n, c) planes
    cols = tl.program_id(1) * BLOCK_OW + tl.arange(0, BLOCK_OW)
    plane = rows // OH
    p = rows - plane * OH
    sh = tl.maximum(0.5 * p.to(tl.float32) - 0.25, 0.0)
    h0 = sh.to(tl.int32)  # sh >= 0: truncation is floor
    lh = sh - h0.to(tl.float32)
    h1 = tl.minimum(h0 + 1, H - 1)
    sw = tl.maximum(0.5 * cols.to(tl.float32) - 0.25, 0.0)
    w0 = sw.to(tl.int32)
    lw = sw - w0.to(tl.float32)
    w1 = tl.minimum(w0 + 1, W - 1)
    mask = (rows < n_rows)[:, None] & (cols < OW)[None, :]
    base = plane.to(tl.int64) * H * W
    r0 = (base + h0 * W)[:, None]
    r1 = (base + h1 * W)[:, None]
    a = tl.load(x_ptr + r0 + w0[None, :], mask=mask, other=0.0).to(tl.float32)
    b = tl.load(x_ptr + r0 + w1[None, :], mask=mask, other=0.0).to(tl.float32)
    c = tl.load(x_ptr + r1 + w0[None, :], mask=mask, other=0.0).to(tl.float32)
    d = tl.load(x_ptr + r1 + w1[None, :], mask=mask, other=0.0).to(tl.float32)
    lw2 = lw[None, :]
    lh2 = lh[:, None]
    top = (1.0 - lw2) * a + lw2 * b
    bot = (1.0 - lw2) * c + lw2 * d
    v = (1.0 - lh2) * top + lh2 * bot
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * OW + cols[None, :], v.to(out_ptr.dtype.element_ty), mask=mask)


def upsample_bilinear2d(x: torch.Tensor) -> torch.Tensor:
    n, c, h, w = x.shape
    oh, ow = 2 * h, 2 * w
    out = torch.empty((n, c, oh, ow), dtype=x.dtype, device=x.device)
    n_rows = n * c * oh
    best = None
    for bw in (256, 128, 64, 32):  # the column block that leaves the fewest idle lanes
        padded = triton.cdiv(ow, bw) * bw
        if best is None or padded < best[0]:
            best = (padded, bw)
    block_ow = best[1]
    block_r = max(1, 2048 // block_ow)
    grid = (triton.cdiv(n_rows, block_r), triton.cdiv(ow, block_ow))
    _upsample2x_kernel[grid](x, out, n_rows, h, w, oh, ow, BLOCK_R=block_r, BLOCK_OW=block_ow, num_warps=4)
    return out
