import torch
import triton
import triton.language as tl


# Rolling-row stencil. Each plane's rows are cut into chunks of CH rows; a program owns a tile of BLOCK_Q
# chunks (from any planes) x BLOCK_W columns and walks down its chunks row by row. Every input row is loaded
# once per chunk as three column-shifted tiles (w-1, w, w+1: one HBM read, the shifts hit L1) that stay in
# registers for the next two output rows, so an output row costs 3 loads instead of 9, and HBM sees each
# input byte about once (chunk halos are L2 hits). The chunk's 3x3 filter is loaded once into registers
# (9 values per chunk). Tiles span planes, so odd H and W waste no lanes on per-plane padding. The nine
# products are accumulated in the reference's order (r, then s).
@triton.jit
def _dwconv3x3_kernel(x_ptr, w_ptr, out_ptr, C, H, W, n_chunks, chunks_per_plane,
                      CH: tl.constexpr, BLOCK_Q: tl.constexpr, BLOCK_W: tl.constexpr):
    q = tl.program_id(0) * BLOCK_Q + tl.arange(0, BLOCK_Q)
    q_ok = q < n_chunks
    plane = q // chunks_per_plane
    h0 = (q - plane * chunks_per_plane) * CH
    base = plane.to(tl.int64) * H * W
    wbase = w_ptr + (plane % C) * 9
    w00 = tl.load(wbase + 0, mask=q_ok, other=0.0)[:, None]
    w01 = tl.load(wbase + 1, mask=q_ok, other=0.0)[:, None]
    w02 = tl.load(wbase + 2, mask=q_ok, other=0.0)[:, None]
    w10 = tl.load(wbase + 3, mask=q_ok, other=0.0)[:, None]
    w11 = tl.load(wbase + 4, mask=q_ok, other=0.0)[:, None]
    w12 = tl.load(wbase + 5, mask=q_ok, other=0.0)[:, None]
    w20 = tl.load(wbase + 6, mask=q_ok, other=0.0)[:, None]
    w21 = tl.load(wbase + 7, mask=q_ok, other=0.0)[:, None]
    w22 = tl.load(wbase + 8, mask=q_ok, other=0.0)[:, None]
    cols = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    ok_l = ((cols >= 1) & (cols <= W))[None, :]  # column w - 1 in range
    ok_m = (cols < W)[None, :]
    ok_r = (cols + 1 < W)[None, :]
    zero = tl.zeros((BLOCK_Q, BLOCK_W), dtype=tl.float32)
    l0, m0, r0 = zero, zero, zero  # row h - 2 (kernel row 0 of the output row h - 1)
    l1, m1, r1 = zero, zero, zero  # row h - 1 (kernel row 1)
    for i in tl.static_range(CH + 2):
        h = h0 + (i - 1)  # input row loaded at this step
        row_ok = (q_ok & (h >= 0) & (h < H))[:, None]
        ptrs = x_ptr + (base + h.to(tl.int64) * W)[:, None] + cols[None, :]
        l2 = tl.load(ptrs - 1, mask=row_ok & ok_l, other=0.0)
        m2 = tl.load(ptrs, mask=row_ok & ok_m, other=0.0)
        r2 = tl.load(ptrs + 1, mask=row_ok & ok_r, other=0.0)
        if i >= 2:  # output row h - 1 has all three of its input rows now
            ho = h - 1
            acc = l0 * w00
            acc += m0 * w01
            acc += r0 * w02
            acc += l1 * w10
            acc += m1 * w11
            acc += r1 * w12
            acc += l2 * w20
            acc += m2 * w21
            acc += r2 * w22
            out_ok = (q_ok & (ho < H))[:, None] & ok_m
            out_ptrs = out_ptr + (base + ho.to(tl.int64) * W)[:, None] + cols[None, :]
            tl.store(out_ptrs, acc, mask=out_ok)
        l0, m0, r0 = l1, m1, r1
        l1, m1, r1 = l2, m2, r2


def _tiles(h, w):
    # column block (a multiple of a 128-byte line) that pads W least, the larger on ties; chunk height that
    # makes the fewest row steps (halo rows included)
    block_w = -min((triton.cdiv(w, bw) * bw, -bw) for bw in (128, 64, 32))[1]
    ch = min((triton.cdiv(h, c) * (c + 2), c) for c in (8, 16, 32))[1]
    return block_w, max(1, 1024 // block_w), ch


def depthwise_conv2d(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    n, c, h, w = x.shape
    out = torch.empty_like(x)
    block_w, block_q, ch = _tiles(h, w)
    chunks_per_plane = triton.cdiv(h, ch)
    n_chunks = n * c * chunks_per_plane
    grid = (triton.cdiv(n_chunks, block_q), triton.cdiv(w, block_w))
    _dwconv3x3_kernel[grid](x, weight, out, c, h, w, n_chunks, chunks_per_plane, CH=ch, BLOCK_Q=block_q,
                            BLOCK_W=block_w, num_warps=4)
    return out
