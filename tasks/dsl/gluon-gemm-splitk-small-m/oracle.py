import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma, warpgroup_mma, warpgroup_mma_wait

BLOCK_N = 128  # weight rows per tile: the wgmma M side (two m64 instructions for one warpgroup)
BLOCK_K = 64  # 128 bytes of bf16: one 128B-swizzled TMA box row
SMEM_BUDGET = 200 * 1024


# Decode GEMM, bound by streaming the weight once. Swap AB: the weight tile is wgmma's A operand
# (128 x 64, K-major, straight from TMA) and the few token rows are its N side (x tile MP x 64, read
# transposed through a permuted shared-memory view), so MP = 8..64 instead of a 64-row tile padded with
# zeros: each stage is mostly weight bytes and up to 8 stages (about 190 KB) stream from HBM at once.
# K is split so that the (column tile, split) programs fill the SMs in whole waves; fp32 partials go to a
# workspace that a second Gluon kernel sums in order (deterministic) and rounds to bf16.
@gluon.jit
def _splitk_swapab_kernel(w_desc, x_desc, part_ptr, M, N, K_TILES, tiles_per_split, STAGES: gl.constexpr,
                          DIRECT: gl.constexpr, num_warps: gl.constexpr):
    BN: gl.constexpr = w_desc.block_type.shape[0]
    BK: gl.constexpr = w_desc.block_type.shape[1]
    MP: gl.constexpr = x_desc.block_type.shape[0]
    dtype: gl.constexpr = w_desc.dtype
    pid_n = gl.program_id(0)
    split = gl.program_id(1)
    off_n = pid_n * BN
    kt0 = split * tiles_per_split
    num_k = gl.minimum(kt0 + tiles_per_split, K_TILES) - kt0  # at least 1: the host sizes the splits

    w_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, BK], w_desc.layout)
    x_bufs = gl.allocate_shared_memory(dtype, [STAGES, MP, BK], x_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(bars.index(i), count=1)

    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, MP, 16])
    acc = gl.zeros((BN, MP), dtype=gl.float32, layout=acc_layout)
    stage_bytes: gl.constexpr = w_desc.block_type.nbytes + x_desc.block_type.nbytes

    for i in gl.static_range(STAGES - 1):
        pred = i < num_k
        k = (kt0 + i) * BK
        mbarrier.expect(bars.index(i), stage_bytes, pred=pred)
        tma.async_copy_global_to_shared(w_desc, [off_n, k], bars.index(i), w_bufs.index(i), pred)
        tma.async_copy_global_to_shared(x_desc, [0, k], bars.index(i), x_bufs.index(i), pred)

    for ki in range(num_k):
        s = ki % STAGES
        mbarrier.wait(bars.index(s), (ki // STAGES) & 1)
        acc = warpgroup_mma(w_bufs.index(s), x_bufs.index(s).permute((1, 0)), acc, is_async=True)
        # One wgmma in flight: the one of step ki - 1 is done, so its slot takes step ki + STAGES - 1.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))
        kl = ki + STAGES - 1
        sl = kl % STAGES
        pred = kl < num_k
        k = (kt0 + kl) * BK
        mbarrier.expect(bars.index(sl), stage_bytes, pred=pred)
        tma.async_copy_global_to_shared(w_desc, [off_n, k], bars.index(sl), w_bufs.index(sl), pred)
        tma.async_copy_global_to_shared(x_desc, [0, k], bars.index(sl), x_bufs.index(sl), pred)

    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(i))

    # acc[i, m] is out[m, off_n + i]: store along i, which is contiguous in memory (16-byte vectors).
    out_layout: gl.constexpr = gl.BlockedLayout(size_per_thread=[4, 1], threads_per_warp=[32, 1],
                                                warps_per_cta=[1, num_warps], order=[0, 1])
    res = gl.convert_layout(acc, out_layout)
    ni = off_n + gl.arange(0, BN, layout=gl.SliceLayout(1, out_layout))
    mi = gl.arange(0, MP, layout=gl.SliceLayout(0, out_layout))
    mask = gl.expand_dims(ni < N, 1) & gl.expand_dims(mi < M, 0)
    offs = gl.expand_dims(ni, 1) + gl.expand_dims(mi * N, 0)
    if DIRECT:
        gl.store(part_ptr + offs, res.to(part_ptr.dtype.element_ty), mask=mask)
    else:
        gl.store(part_ptr + split.to(gl.int64) * M * N + offs, res, mask=mask)


@gluon.jit
def _sum_splits_kernel(part_ptr, out_ptr, MN, SPLITS: gl.constexpr, BLOCK: gl.constexpr, num_warps: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout(size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[num_warps],
                                            order=[0])
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < MN
    acc = gl.zeros([BLOCK], gl.float32, layout)
    for s in gl.static_range(SPLITS):
        acc += gl.load(part_ptr + s * MN + offs, mask=mask, other=0.0)
    gl.store(out_ptr + offs, acc.to(out_ptr.dtype.element_ty), mask=mask)


def _num_splits(n_tiles: int, k_tiles: int, sms: int) -> int:
    """The split count whose programs fill the SMs in the most nearly whole waves (one program per SM: the
    ring takes most of shared memory), each split keeping at least 8 K steps; fewer splits on ties."""
    best, best_eff = 1, 0.0
    for splits in range(1, 33):
        if splits > 1 and triton.cdiv(k_tiles, splits) < 8:
            break
        units = n_tiles * splits
        eff = units / (triton.cdiv(units, sms) * sms)
        if eff > best_eff + 0.02:
            best, best_eff = splits, eff
    return best


def decode_linear(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    m, k = x.shape
    n = weight.shape[0]
    out = torch.empty((m, n), device=x.device, dtype=x.dtype)
    mp = max(8, triton.next_power_of_2(m))
    stages = min(8, SMEM_BUDGET // ((BLOCK_N + mp) * BLOCK_K * x.element_size()))
    w_layout = gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_K], gl.bfloat16)
    x_layout = gl.NVMMASharedLayout.get_default_for([mp, BLOCK_K], gl.bfloat16)
    w_desc = TensorDescriptor.from_tensor(weight, [BLOCK_N, BLOCK_K], w_layout)
    x_desc = TensorDescriptor.from_tensor(x, [mp, BLOCK_K], x_layout)  # rows past M read as zero
    n_tiles = triton.cdiv(n, BLOCK_N)
    k_tiles = triton.cdiv(k, BLOCK_K)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 132
    splits = _num_splits(n_tiles, k_tiles, sms)
    per_split = triton.cdiv(k_tiles, splits)
    splits = triton.cdiv(k_tiles, per_split)
    direct = splits == 1
    part = out if direct else torch.empty((splits, m, n), device=x.device, dtype=torch.float32)
    _splitk_swapab_kernel[(n_tiles, splits)](w_desc, x_desc, part, m, n, k_tiles, per_split, STAGES=stages,
                                             DIRECT=direct, num_warps=4)
    if not direct:
        block = 2048
        _sum_splits_kernel[(triton.cdiv(m * n, block),)](part, out, m * n, SPLITS=splits, BLOCK=block, num_warps=4)
    return out
