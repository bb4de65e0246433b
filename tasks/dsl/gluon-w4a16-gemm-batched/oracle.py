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


# 128 x 128 output tiles, 8 warps (two warpgroups on wgmma m64n128k16), K walked 64 at a time. One mbarrier
# ring of STAGES slots carries, per K step, the activation tile (TMA, 128-byte swizzle), the 8 x 128 packed
# int32 words of the weight and the group's scale and zero rows (TMA). Each step the program dequantizes the
# slot's words from shared memory into registers laid out (k // 8, k % 8, n) with the eight nibbles of a word
# in one thread, so the unpacking is shifts and masks on registers: q | 0x4B000000 read as float32 is
# 2^23 + q exactly, one subtraction gives q - z, one product the weight, one rounding its bfloat16. The tile
# goes into one of three NVMMA-swizzled weight buffers and feeds an asynchronous wgmma, which runs while the
# next step is dequantized. A slot is refilled two steps after its wgmma was issued: by then the barrier of
# the step between has seen every warpgroup wait for it.
@gluon.jit
def _w4a16_kernel(x_desc, q_desc, s_desc, z_desc, y_desc, STAGES: gl.constexpr, num_warps: gl.constexpr):
    BM: gl.constexpr = x_desc.block_type.shape[0]
    BK: gl.constexpr = x_desc.block_type.shape[1]
    BKP: gl.constexpr = q_desc.block_type.shape[0]  # BK // 8 packed rows
    BN: gl.constexpr = q_desc.block_type.shape[1]
    GROUP: gl.constexpr = 128
    dtype: gl.constexpr = x_desc.dtype
    M = x_desc.shape[0]
    K = x_desc.shape[1]

    # The M tiles of one weight column block run side by side: the weight is read from DRAM once.
    pid = gl.program_id(0)
    num_pid_m = gl.cdiv(M, BM)
    off_m = (pid % num_pid_m) * BM
    off_n = (pid // num_pid_m) * BN

    x_ring = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], x_desc.layout)
    q_ring = gl.allocate_shared_memory(gl.int32, [STAGES, BKP, BN], q_desc.layout)
    s_ring = gl.allocate_shared_memory(dtype, [STAGES, 1, BN], s_desc.layout)
    z_ring = gl.allocate_shared_memory(dtype, [STAGES, 1, BN], z_desc.layout)
    w_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BK, BN], dtype)
    w_bufs = gl.allocate_shared_memory(dtype, [3, BK, BN], w_layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(bars.index(i), count=1)

    # Dequantization layout: (packed row, nibble, column); a thread owns the 8 nibbles of 4 adjacent words.
    L3: gl.constexpr = gl.BlockedLayout([1, 8, 4], [1, 1, 32], [num_warps, 1, 1], [2, 1, 0])
    words_layout: gl.constexpr = gl.SliceLayout(1, L3)
    shifts = 4 * gl.arange(0, 8, layout=gl.SliceLayout(0, gl.SliceLayout(2, L3)))
    shifts = shifts[None, :, None]

    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BN, 16])
    acc = gl.zeros((BM, BN), dtype=gl.float32, layout=mma_layout)
    num_k = K // BK

    for i in gl.static_range(STAGES - 2):
        _issue(x_desc, q_desc, s_desc, z_desc, x_ring, q_ring, s_ring, z_ring, bars, i, i < num_k, off_m, off_n,
               STAGES, GROUP)

    for ki in range(num_k):
        s = ki % STAGES
        mbarrier.wait(bars.index(s), (ki // STAGES) & 1)
        words = q_ring.index(s).load(words_layout)
        scale = s_ring.index(s).load(words_layout).to(gl.float32)
        zero = z_ring.index(s).load(words_layout).to(gl.float32) + 8388608.0
        codes = (words[:, None, :] >> shifts) & 0xF
        biased = (codes | 0x4B000000).to(gl.float32, bitcast=True)  # 2^23 + code, exactly
        w = ((biased - zero[:, None, :]) * scale[:, None, :]).to(dtype)
        w_buf = w_bufs.index(ki % 3)
        w_buf.store(gl.reshape(w, [BK, BN]))
        fence_async_shared()
        gl.thread_barrier()
        # Every warpgroup has waited for wgmma ki - 2: its slot takes step ki + STAGES - 2.
        kl = ki + STAGES - 2
        _issue(x_desc, q_desc, s_desc, z_desc, x_ring, q_ring, s_ring, z_ring, bars, kl, kl < num_k, off_m,
               off_n, STAGES, GROUP)
        acc = warpgroup_mma(x_ring.index(s), w_buf, acc, is_async=True)
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))

    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(i))

    c_smem = gl.allocate_shared_memory(dtype, [BM, BN], y_desc.layout)
    c_smem.store(acc.to(dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(y_desc, [off_m, off_n], c_smem)
    tma.store_wait(pendings=0)


@gluon.jit
def _issue(x_desc, q_desc, s_desc, z_desc, x_ring, q_ring, s_ring, z_ring, bars, step, pred, off_m, off_n,
           STAGES: gl.constexpr, GROUP: gl.constexpr):
    """Starts the TMA loads of K step `step` into its ring slot."""
    BK: gl.constexpr = x_desc.block_type.shape[1]
    BKP: gl.constexpr = q_desc.block_type.shape[0]
    slot = step % STAGES
    bar = bars.index(slot)
    nbytes: gl.constexpr = (x_desc.block_type.nbytes + q_desc.block_type.nbytes + s_desc.block_type.nbytes +
                            z_desc.block_type.nbytes)
    mbarrier.expect(bar, nbytes, pred=pred)
    group = (step * BK) // GROUP
    tma.async_copy_global_to_shared(x_desc, [off_m, step * BK], bar, x_ring.index(slot), pred)
    tma.async_copy_global_to_shared(q_desc, [step * BKP, off_n], bar, q_ring.index(slot), pred)
    tma.async_copy_global_to_shared(s_desc, [group, off_n], bar, s_ring.index(slot), pred)
    tma.async_copy_global_to_shared(z_desc, [group, off_n], bar, z_ring.index(slot), pred)


def w4a16_gemm(x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor) -> torch.Tensor:
    m, k = x.shape
    n = qweight.shape[1]
    y = torch.empty((m, n), dtype=x.dtype, device=x.device)
    bm, bn, bk, stages, num_warps = 128, 128, 64, 6, 8
    elt = gl.bfloat16 if x.dtype == torch.bfloat16 else gl.float16
    x_layout = gl.NVMMASharedLayout.get_default_for([bm, bk], elt)
    q_layout = gl.NVMMASharedLayout.get_default_for([bk // 8, bn], gl.int32)
    row_layout = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=16, rank=2)  # one row per slot
    y_layout = gl.NVMMASharedLayout.get_default_for([bm, bn], elt)
    x_desc = TensorDescriptor.from_tensor(x, [bm, bk], x_layout)
    q_desc = TensorDescriptor.from_tensor(qweight, [bk // 8, bn], q_layout)
    s_desc = TensorDescriptor.from_tensor(scales, [1, bn], row_layout)
    z_desc = TensorDescriptor.from_tensor(zeros, [1, bn], row_layout)
    y_desc = TensorDescriptor.from_tensor(y, [bm, bn], y_layout)
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), )
    _w4a16_kernel[grid](x_desc, q_desc, s_desc, z_desc, y_desc, STAGES=stages, num_warps=num_warps)
    return y
