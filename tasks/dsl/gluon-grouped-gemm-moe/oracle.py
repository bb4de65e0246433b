import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma, warpgroup_mma, warpgroup_mma_wait

BLOCK_M, BLOCK_N, BLOCK_K, STAGES = 128, 256, 64, 4


@gluon.jit
def _locate(t, e, base, start, end, off_ptr, num_n, BLOCK_M: gl.constexpr):
    """Advance the walk (group e, its first tile base, its rows start..end) to the group holding tile t.
    Tiles are visited in increasing order, so the walk over the groups is shared by all of them."""
    tiles = gl.cdiv(end - start, BLOCK_M) * num_n
    while t >= base + tiles:
        base += tiles
        e += 1
        start = end
        end = gl.load(off_ptr + e + 1)
        tiles = gl.cdiv(end - start, BLOCK_M) * num_n
    return e, base, start, end


# Persistent over all (expert, row tile, column tile) work, one TMA/wgmma ring for the whole program: the
# program's tiles are flattened into one stream of K steps (every tile has K / BLOCK_K of them), and the
# loads run STAGES - 1 steps ahead across tile boundaries, so the next tile's first tiles of x and W are in
# flight while the current tile's last wgmma drains and its bf16 result is stored (a per-tile compiler
# pipeline drains and refills at every tile). 128x256x64 tiles on two warpgroups, wgmma m64n256k16 with one
# group in flight, W read K-major through a permuted shared view; rows past the group and columns past N
# are computed on neighbours' data and masked at the store. Column tiles run fastest within a group, so the
# programs running together share a panel of x and sweep one expert's W.
@gluon.jit
def _moe_grouped_gemm_kernel(a_desc, b_desc, c_ptr, off_ptr, N, K, E, STAGES: gl.constexpr,
                             num_warps: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    dtype: gl.constexpr = a_desc.dtype
    pid = gl.program_id(0)
    nprog = gl.num_programs(0)
    num_n = gl.cdiv(N, BN)
    k_steps = gl.cdiv(K, BK)

    total_tiles = pid * 0
    for e in range(E):
        total_tiles += gl.cdiv(gl.load(off_ptr + e + 1) - gl.load(off_ptr + e), BM) * num_n
    my_tiles = gl.cdiv(gl.maximum(total_tiles - pid, 0), nprog)
    total_steps = my_tiles * k_steps

    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BM, BK], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, BN, BK], b_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(bars.index(i), count=1)
    stage_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes

    # The producer's walk (tile coordinates of load step p) and the consumer's (of compute step g).
    zero = pid * 0  # int32 tensors from the start: the walks are loop-carried
    p_e = zero
    p_base = zero
    p_start = gl.load(off_ptr)
    p_end = gl.load(off_ptr + 1)
    p_off_m = zero
    p_row_n = zero
    for q in gl.static_range(STAGES - 1):
        pred = q < total_steps
        kp = q % k_steps
        if (kp == 0) & pred:
            t = pid + (q // k_steps) * nprog
            p_e, p_base, p_start, p_end = _locate(t, p_e, p_base, p_start, p_end, off_ptr, num_n, BM)
            p_off_m = p_start + ((t - p_base) // num_n) * BM
            p_row_n = p_e * N + ((t - p_base) % num_n) * BN
        mbarrier.expect(bars.index(q), stage_bytes, pred=pred)
        tma.async_copy_global_to_shared(a_desc, [p_off_m, kp * BK], bars.index(q), a_bufs.index(q), pred)
        tma.async_copy_global_to_shared(b_desc, [p_row_n, kp * BK], bars.index(q), b_bufs.index(q), pred)

    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BN, 16])
    acc = gl.zeros((BM, BN), dtype=gl.float32, layout=acc_layout)
    c_e = zero
    c_base = zero
    c_start = gl.load(off_ptr)
    c_end = gl.load(off_ptr + 1)
    g = zero  # compute steps done by this program
    for i in range(my_tiles):
        for k in range(k_steps):
            s = g % STAGES
            mbarrier.wait(bars.index(s), (g // STAGES) & 1)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc, use_acc=k > 0,
                                is_async=True)
            # One wgmma in flight: step g - 1's is done, so its slot takes load step g + STAGES - 1,
            # which may belong to this program's next tile.
            acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))
            p = g + STAGES - 1
            pred = p < total_steps
            kp = p % k_steps
            if (kp == 0) & pred:
                t = pid + (p // k_steps) * nprog
                p_e, p_base, p_start, p_end = _locate(t, p_e, p_base, p_start, p_end, off_ptr, num_n, BM)
                p_off_m = p_start + ((t - p_base) // num_n) * BM
                p_row_n = p_e * N + ((t - p_base) % num_n) * BN
            sp = p % STAGES
            mbarrier.expect(bars.index(sp), stage_bytes, pred=pred)
            tma.async_copy_global_to_shared(a_desc, [p_off_m, kp * BK], bars.index(sp), a_bufs.index(sp), pred)
            tma.async_copy_global_to_shared(b_desc, [p_row_n, kp * BK], bars.index(sp), b_bufs.index(sp), pred)
            g += 1

        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
        t = pid + i * nprog
        c_e, c_base, c_start, c_end = _locate(t, c_e, c_base, c_start, c_end, off_ptr, num_n, BM)
        off_m = c_start + ((t - c_base) // num_n) * BM
        off_n = ((t - c_base) % num_n) * BN
        rows = off_m + gl.arange(0, BM, layout=gl.SliceLayout(1, acc_layout))
        cols = off_n + gl.arange(0, BN, layout=gl.SliceLayout(0, acc_layout))
        mask = gl.expand_dims(rows < c_end, 1) & gl.expand_dims(cols < N, 0)
        ptrs = c_ptr + gl.expand_dims(rows.to(gl.int64) * N, 1) + gl.expand_dims(cols, 0)
        gl.store(ptrs, acc.to(dtype), mask=mask)

    for i in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(i))


def grouped_gemm(x: torch.Tensor, weight: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    t, k = x.shape
    e, n, _ = weight.shape
    out = torch.empty((t, n), device=x.device, dtype=x.dtype)
    a_layout = gl.NVMMASharedLayout.get_default_for([BLOCK_M, BLOCK_K], gl.bfloat16)
    b_layout = gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_K], gl.bfloat16)
    a_desc = TensorDescriptor.from_tensor(x, [BLOCK_M, BLOCK_K], a_layout)  # rows past T read as zero
    b_desc = TensorDescriptor.from_tensor(weight.view(e * n, k), [BLOCK_N, BLOCK_K], b_layout)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 132
    _moe_grouped_gemm_kernel[(sms,)](a_desc, b_desc, out, offsets, n, k, e, STAGES=STAGES, num_warps=8)
    return out
