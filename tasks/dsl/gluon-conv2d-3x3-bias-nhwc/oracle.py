import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)


# Implicit GEMM whose im2col is done by the TMA unit. An output tile is a TH x TW rectangle of pixels of one
# image (BM = TH * TW rows of the GEMM) times BN output channels. For tap (r, s) and channel block c0 the A tile
# is the input box [img, h0 + r - 1, w0 + s - 1, c0] of shape [1, TH, TW, BK] from a 4-D descriptor over x:
# the box may start at -1 or run past H and W, and TMA fills those pixels (and channels past C) with zeros,
# which is exactly the convolution's zero padding, with no address arithmetic or masks in the kernel. The
# 4-D box lands in a 128-byte swizzled NVMMA buffer whose bytes are those of the 2-D [BM, BK] tile, so the
# shared memory view is reshaped, not copied, for wgmma. The weight is a 3-D descriptor over (K, 9, C), so the
# channel tail is zero-filled too. A STAGES-deep ring of TMA loads on mbarriers runs ahead of asynchronous
# wgmma; the epilogue adds the bias and stores the tile with a 4-D TMA store that clips the rectangle to the
# image.
@gluon.jit
def _conv3x3_kernel(x_desc, w_desc, o_desc, bias_ptr, KOUT, STAGES: gl.constexpr, num_warps: gl.constexpr):
    TH: gl.constexpr = x_desc.block_type.shape[1]
    TW: gl.constexpr = x_desc.block_type.shape[2]
    BK: gl.constexpr = x_desc.block_type.shape[3]
    BN: gl.constexpr = w_desc.block_type.shape[0]
    BM: gl.constexpr = TH * TW
    dtype: gl.constexpr = x_desc.dtype
    H = x_desc.shape[1]
    W = x_desc.shape[2]
    C = x_desc.shape[3]

    # Output channel blocks vary fastest: the programs running together share their input pixels in L2.
    pid = gl.program_id(0)
    num_pid_n = gl.cdiv(KOUT, BN)
    pid_n = pid % num_pid_n
    pid_m = pid // num_pid_n
    tiles_w = gl.cdiv(W, TW)
    tiles_h = gl.cdiv(H, TH)
    img = pid_m // (tiles_h * tiles_w)
    rest = pid_m % (tiles_h * tiles_w)
    h0 = (rest // tiles_w) * TH
    w0 = (rest % tiles_w) * TW
    n0 = pid_n * BN

    # 2-D operand views of the rings: same bytes, same 128-byte swizzle as the 4-D / 3-D TMA boxes.
    a_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)
    a_ring = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], a_layout)
    b_ring = gl.allocate_shared_memory(dtype, [STAGES, BN, BK], a_layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(bars.index(i), count=1)

    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BN, 16])
    acc = gl.zeros((BM, BN), dtype=gl.float32, layout=mma_layout)
    step_bytes: gl.constexpr = x_desc.block_type.nbytes + w_desc.block_type.nbytes
    num_cb = gl.cdiv(C, BK)
    num_k = 9 * num_cb

    for i in gl.static_range(STAGES - 1):
        _issue(x_desc, w_desc, a_ring, b_ring, bars, i, i < num_k, num_cb, img, h0, w0, n0, STAGES)

    for ki in range(num_k):
        s = ki % STAGES
        mbarrier.wait(bars.index(s), (ki // STAGES) & 1)
        acc = warpgroup_mma(a_ring.index(s), b_ring.index(s).permute((1, 0)), acc, is_async=True)
        # wgmma ki - 1 has finished (in every warpgroup, after the barrier), so its slot takes step
        # ki + STAGES - 1 while wgmma ki runs.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))
        gl.thread_barrier()
        kl = ki + STAGES - 1
        _issue(x_desc, w_desc, a_ring, b_ring, bars, kl, kl < num_k, num_cb, img, h0, w0, n0, STAGES)

    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(i))

    offs_n = n0 + gl.arange(0, BN, layout=gl.SliceLayout(0, mma_layout))
    bias = gl.load(bias_ptr + offs_n, mask=offs_n < KOUT, other=0.0).to(gl.float32)
    out = (acc + bias[None, :]).to(dtype)
    c_smem = gl.allocate_shared_memory(dtype, [BM, BN], gl.NVMMASharedLayout.get_default_for([BM, BN], dtype))
    c_smem.store(out)
    fence_async_shared()
    c_view = c_smem._reinterpret(dtype, [1, TH, TW, BN], o_desc.layout)
    tma.async_copy_shared_to_global(o_desc, [img, h0, w0, n0], c_view)
    tma.store_wait(pendings=0)


@gluon.jit
def _issue(x_desc, w_desc, a_ring, b_ring, bars, step, pred, num_cb, img, h0, w0, n0, STAGES: gl.constexpr):
    """Starts the TMA loads of reduction step `step` (tap `step // num_cb`, channel block `step % num_cb`)
    into its ring slot."""
    TH: gl.constexpr = x_desc.block_type.shape[1]
    TW: gl.constexpr = x_desc.block_type.shape[2]
    BK: gl.constexpr = x_desc.block_type.shape[3]
    BN: gl.constexpr = w_desc.block_type.shape[0]
    slot = step % STAGES
    tap = step // num_cb
    c0 = (step % num_cb) * BK
    r = tap // 3
    bar = bars.index(slot)
    mbarrier.expect(bar, x_desc.block_type.nbytes + w_desc.block_type.nbytes, pred=pred)
    a_box = a_ring.index(slot)._reinterpret(x_desc.dtype, [1, TH, TW, BK], x_desc.layout)
    b_box = b_ring.index(slot)._reinterpret(w_desc.dtype, [BN, 1, BK], w_desc.layout)
    tma.async_copy_global_to_shared(x_desc, [img, h0 + r - 1, w0 + (tap - 3 * r) - 1, c0], bar, a_box, pred)
    tma.async_copy_global_to_shared(w_desc, [n0, tap, c0], bar, b_box, pred)


def _tile_shape(h: int, w: int) -> tuple[int, int]:
    """The TH x TW = 128 pixel rectangle that wastes the fewest pixels at the image's edges (wider first)."""
    best = None
    for tw in (128, 64, 32, 16, 8):
        th = 128 // tw
        covered = triton.cdiv(h, th) * th * triton.cdiv(w, tw) * tw
        if best is None or covered < best[0]:
            best = (covered, th, tw)
    return best[1], best[2]


def conv2d_3x3_bias(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    n, h, w, c = x.shape
    k = weight.shape[0]
    out = torch.empty((n, h, w, k), dtype=x.dtype, device=x.device)
    th, tw = _tile_shape(h, w)
    bk = 64
    bn = 128 if k % 128 == 0 else 64  # no padded output channels where K is a multiple of 64
    stages = 6 if bn == 128 else 4  # 196 KiB (one program per SM) or 96 KiB (two)
    elt = gl.bfloat16 if x.dtype == torch.bfloat16 else gl.float16
    x_layout = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=4)
    w_layout = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=3)
    o_layout = gl.NVMMASharedLayout.get_default_for([th * tw, bn], elt)
    o_layout = gl.NVMMASharedLayout(swizzle_byte_width=o_layout.swizzle_byte_width, element_bitwidth=16, rank=4)
    x_desc = TensorDescriptor.from_tensor(x, [1, th, tw, bk], x_layout)
    w_desc = TensorDescriptor.from_tensor(weight.view(k, 9, c), [bn, 1, bk], w_layout)
    o_desc = TensorDescriptor.from_tensor(out, [1, th, tw, bn], o_layout)
    grid = (n * triton.cdiv(h, th) * triton.cdiv(w, tw) * triton.cdiv(k, bn), )
    _conv3x3_kernel[grid](x_desc, w_desc, o_desc, bias, k, STAGES=stages, num_warps=8)
    return out
