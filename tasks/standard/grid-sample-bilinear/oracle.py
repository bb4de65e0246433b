import torch
import triton
import triton.language as tl


# A program owns BLOCK_P consecutive grid points (of one or two images) and computes their corners and weights
# once, then walks the channels BLOCK_C at a time: (BLOCK_C, BLOCK_P) tiles whose stores are contiguous runs
# along the output row and whose 4 corner gathers follow the smooth warp, so neighbouring lanes read
# neighbouring pixels (few sectors per warp, each input pixel fetched about once).
@triton.jit
def _grid_sample_kernel(x_ptr, g_ptr, out_ptr, total, C, H, W, HWG,
                        BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr):
    offs_p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    p_ok = offs_p < total
    n = offs_p // HWG
    q = offs_p - n * HWG
    gx = tl.load(g_ptr + offs_p.to(tl.int64) * 2, mask=p_ok, other=0.0)
    gy = tl.load(g_ptr + offs_p.to(tl.int64) * 2 + 1, mask=p_ok, other=0.0)
    ix = ((gx + 1.0) * W - 1.0) / 2.0
    iy = ((gy + 1.0) * H - 1.0) / 2.0
    fx0 = tl.floor(ix)
    fy0 = tl.floor(iy)
    x0 = fx0.to(tl.int32)
    y0 = fy0.to(tl.int32)
    x1 = x0 + 1
    y1 = y0 + 1
    w_nw = (fx0 + 1.0 - ix) * (fy0 + 1.0 - iy)
    w_ne = (ix - fx0) * (fy0 + 1.0 - iy)
    w_sw = (fx0 + 1.0 - ix) * (iy - fy0)
    w_se = (ix - fx0) * (iy - fy0)
    vx0 = (x0 >= 0) & (x0 < W)
    vx1 = (x1 >= 0) & (x1 < W)
    vy0 = (y0 >= 0) & (y0 < H)
    vy1 = (y1 >= 0) & (y1 < H)
    m_nw = p_ok & vy0 & vx0
    m_ne = p_ok & vy0 & vx1
    m_sw = p_ok & vy1 & vx0
    m_se = p_ok & vy1 & vx1
    o_nw = y0 * W + x0
    img = n.to(tl.int64) * C * H * W
    out_pix = n.to(tl.int64) * C * HWG + q
    offs_c = tl.arange(0, BLOCK_C)
    for c0 in range(0, C, BLOCK_C):
        cs = c0 + offs_c
        c_ok = (cs < C)[:, None]
        base = img[None, :] + (cs.to(tl.int64) * (H * W))[:, None] + o_nw[None, :]
        v_nw = tl.load(x_ptr + base, mask=c_ok & m_nw[None, :], other=0.0)
        v_ne = tl.load(x_ptr + base + 1, mask=c_ok & m_ne[None, :], other=0.0)
        v_sw = tl.load(x_ptr + base + W, mask=c_ok & m_sw[None, :], other=0.0)
        v_se = tl.load(x_ptr + base + W + 1, mask=c_ok & m_se[None, :], other=0.0)
        v = v_nw * w_nw[None, :] + v_ne * w_ne[None, :] + v_sw * w_sw[None, :] + v_se * w_se[None, :]
        tl.store(out_ptr + out_pix[None, :] + (cs.to(tl.int64) * HWG)[:, None], v, mask=c_ok & p_ok[None, :])


def grid_sample_bilinear(x: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
    n, c, h, w = x.shape
    hg, wg = grid.shape[1], grid.shape[2]
    out = torch.empty((n, c, hg, wg), dtype=x.dtype, device=x.device)
    total = n * hg * wg
    block_p, block_c = 128, 8
    grid_launch = (triton.cdiv(total, block_p),)
    _grid_sample_kernel[grid_launch](x, grid, out, total, c, h, w, hg * wg, BLOCK_P=block_p, BLOCK_C=block_c,
                                     num_warps=4)
    return out
