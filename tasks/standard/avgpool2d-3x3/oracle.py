import torch
import triton
import triton.language as tl


# Stencil: each program owns a (BLOCK_H, BLOCK_W) tile of one (n, c) plane; the 9 shifted loads are
# coalesced along W and overlap in L1/L2, so HBM sees ~one read of x and one write of out; the
# divisor (valid rows x valid columns) is computed from the indices, not loaded.
@triton.jit
def _avgpool3x3_kernel(x_ptr, out_ptr, H, W, tiles_w, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(1)
    tile = tl.program_id(0)
    th = tile // tiles_w
    tw = tile - th * tiles_w
    rows = th * BLOCK_H + tl.arange(0, BLOCK_H)
    cols = tw * BLOCK_W + tl.arange(0, BLOCK_W)
    base = x_ptr + plane.to(tl.int64) * H * W
    acc = tl.zeros((BLOCK_H, BLOCK_W), dtype=tl.float32)
    for r in tl.static_range(3):
        ih = rows + (r - 1)
        row_ok = (ih >= 0) & (ih < H)
        for s in tl.static_range(3):
            iw = cols + (s - 1)
            col_ok = (iw >= 0) & (iw < W)
            acc += tl.load(base + ih[:, None] * W + iw[None, :], mask=row_ok[:, None] & col_ok[None, :], other=0.0)
    cnt_h = tl.minimum(rows + 1, H - 1) - tl.maximum(rows - 1, 0) + 1
    cnt_w = tl.minimum(cols + 1, W - 1) - tl.maximum(cols - 1, 0) + 1
    count = tl.maximum(cnt_h[:, None] * cnt_w[None, :], 1).to(tl.float32)  # >= 1 in masked lanes too
    out_mask = (rows[:, None] < H) & (cols[None, :] < W)
    out_base = out_ptr + plane.to(tl.int64) * H * W
    tl.store(out_base + rows[:, None] * W + cols[None, :], acc / count, mask=out_mask)


def avgpool2d_3x3(x: torch.Tensor) -> torch.Tensor:
    n, c, h, w = x.shape
    out = torch.empty_like(x)
    # ~2048-element tiles; the tile width (a multiple of a 128-byte line) that pads the plane least
    best = None
    for bw in (128, 64, 32):
        bh = max(1, min(2048 // bw, triton.next_power_of_2(h)))
        area = triton.cdiv(w, bw) * bw * triton.cdiv(h, bh) * bh
        if best is None or area < best[0]:
            best = (area, bh, bw)
    _, block_h, block_w = best
    tiles_w = triton.cdiv(w, block_w)
    grid = (triton.cdiv(h, block_h) * tiles_w, n * c)
    _avgpool3x3_kernel[grid](x, out, h, w, tiles_w, BLOCK_H=block_h, BLOCK_W=block_w, num_warps=8)
    return out
