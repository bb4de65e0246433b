import torch
import triton
import triton.language as tl


# A program owns BLOCK_PL whole (H, W) planes. For each output row i it sums the bin's input rows (loads of
# (BLOCK_PL, W) rows, float32), then reduces that row sum over each of the 7 column bins. Rows shared by two
# neighbouring bins are re-read from L1/L2, so HBM reads x once; out is 1/13 or less of the traffic.
@triton.jit
def _adaptive_avg7_kernel(x_ptr, out_ptr, n_planes, H, W,
                          RMAX: tl.constexpr, BLOCK_PL: tl.constexpr, W_PAD: tl.constexpr):
    planes = tl.program_id(0) * BLOCK_PL + tl.arange(0, BLOCK_PL)
    cols = tl.arange(0, W_PAD)
    p_ok = planes < n_planes
    base = planes.to(tl.int64) * H * W
    for i in tl.static_range(7):
        hs = (i * H) // 7
        he = ((i + 1) * H + 6) // 7
        rowsum = tl.zeros((BLOCK_PL, W_PAD), dtype=tl.float32)
        for r in tl.static_range(RMAX):
            h = hs + r
            ok = p_ok[:, None] & (cols < W)[None, :] & (h < he)
            rowsum += tl.load(x_ptr + base[:, None] + h * W + cols[None, :], mask=ok, other=0.0).to(tl.float32)
        for j in tl.static_range(7):
            ws = (j * W) // 7
            we = ((j + 1) * W + 6) // 7
            inside = (cols >= ws) & (cols < we)
            s = tl.sum(tl.where(inside[None, :], rowsum, 0.0), axis=1)
            mean = s / ((he - hs) * (we - ws)).to(tl.float32)
            tl.store(out_ptr + planes.to(tl.int64) * 49 + (i * 7 + j), mean.to(out_ptr.dtype.element_ty), mask=p_ok)


def adaptive_avgpool2d(x: torch.Tensor) -> torch.Tensor:
    n, c, h, w = x.shape
    out = torch.empty((n, c, 7, 7), dtype=x.dtype, device=x.device)
    n_planes = n * c
    rmax = max(((i + 1) * h + 6) // 7 - (i * h) // 7 for i in range(7))
    w_pad = triton.next_power_of_2(w)
    block_pl = max(1, 1024 // w_pad)
    grid = (triton.cdiv(n_planes, block_pl),)
    _adaptive_avg7_kernel[grid](x, out, n_planes, h, w, RMAX=rmax, BLOCK_PL=block_pl, W_PAD=w_pad, num_warps=4)
    return out
