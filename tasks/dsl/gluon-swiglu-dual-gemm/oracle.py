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

LOG2E = gl.constexpr(1.4426950408889634)


@gluon.jit
def _tile_coords(t, num_pid_m, num_pid_n, GROUP_M: gl.constexpr):
    """Grouped order: GROUP_M row tiles share each column tile (the weight panels) while it is in L2."""
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (t // num_pid_in_group) * GROUP_M
    group_size_m = gl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (t % num_pid_in_group) % group_size_m
    pid_n = (t % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@gluon.jit
def _issue_step(x_desc, wg_desc, wu_desc, x_bufs, wg_bufs, wu_bufs, bars, p, total_steps, k_steps, pid, nprog,
                num_pid_m, num_pid_n, GROUP_M: gl.constexpr, STAGES: gl.constexpr):
    """Load step p of this program's stream of K steps: the x tile and both weight tiles into slot p % STAGES."""
    BM: gl.constexpr = x_desc.block_type.shape[0]
    BK: gl.constexpr = x_desc.block_type.shape[1]
    BN: gl.constexpr = wg_desc.block_type.shape[0]
    stage_bytes: gl.constexpr = x_desc.block_type.nbytes + wg_desc.block_type.nbytes + wu_desc.block_type.nbytes
    pred = p < total_steps
    pid_m, pid_n = _tile_coords(pid + (p // k_steps) * nprog, num_pid_m, num_pid_n, GROUP_M)
    k = (p % k_steps) * BK
    s = p % STAGES
    bar = bars.index(s)
    mbarrier.expect(bar, stage_bytes, pred=pred)
    tma.async_copy_global_to_shared(x_desc, [pid_m * BM, k], bar, x_bufs.index(s), pred)
    tma.async_copy_global_to_shared(wg_desc, [pid_n * BN, k], bar, wg_bufs.index(s), pred)
    tma.async_copy_global_to_shared(wu_desc, [pid_n * BN, k], bar, wu_bufs.index(s), pred)


# Two products that share their A operand: each K step TMA brings one x tile and one tile of each weight
# into a 4-deep ring of swizzled shared buffers (48 KB a stage), and the x tile feeds two asynchronous
# wgmma (m64n128k16 per warpgroup, two warpgroups stacked along M, weights read K-major through permuted
# shared views) into two float32 accumulators. Both wgmma of a step stay in flight while the next step's
# are issued: the wait for all but the newest two frees the slot read one step earlier, which TMA refills
# STAGES - 1 steps ahead. Persistent: a program's tiles form one stream of K steps and the loads run ahead
# across tile boundaries, so the next tile's first operands arrive while this tile's wgmma drain and its
# epilogue runs (silu(g) * u in float32, rounded once, staged in shared memory and written by a TMA store
# that completes during the next tile's main loop). A one-tile-per-program kernel drains and refills the
# ring at every tile, and at 196 KB of ring only one program fits on an SM to hide that.
@gluon.jit
def _swiglu_kernel(x_desc, wg_desc, wu_desc, h_desc, GROUP_M: gl.constexpr, STAGES: gl.constexpr,
                   num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = h_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = h_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = x_desc.block_type.shape[1]
    dtype: gl.constexpr = x_desc.dtype
    M = h_desc.shape[0]
    N = h_desc.shape[1]
    K = x_desc.shape[1]
    pid = gl.program_id(0)
    nprog = gl.num_programs(0)
    num_pid_m = gl.cdiv(M, BLOCK_M)
    num_pid_n = gl.cdiv(N, BLOCK_N)
    k_steps = gl.cdiv(K, BLOCK_K)
    my_tiles = gl.cdiv(gl.maximum(num_pid_m * num_pid_n - pid, 0), nprog)
    total_steps = my_tiles * k_steps

    x_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, BLOCK_K], x_desc.layout)
    wg_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, BLOCK_K], wg_desc.layout)
    wu_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_N, BLOCK_K], wu_desc.layout)
    h_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, BLOCK_N], h_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(bars.index(i), count=1)

    for q in gl.static_range(STAGES - 1):
        _issue_step(x_desc, wg_desc, wu_desc, x_bufs, wg_bufs, wu_bufs, bars, q, total_steps, k_steps, pid, nprog,
                    num_pid_m, num_pid_n, GROUP_M, STAGES)

    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BLOCK_N, 16])
    acc_g = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float32, layout=mma_layout)
    acc_u = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float32, layout=mma_layout)
    g = pid * 0  # K steps consumed by this program
    for i in range(my_tiles):
        for k in range(k_steps):
            s = g % STAGES
            mbarrier.wait(bars.index(s), (g // STAGES) & 1)
            a = x_bufs.index(s)
            acc_g = warpgroup_mma(a, wg_bufs.index(s).permute((1, 0)), acc_g, use_acc=k > 0, is_async=True)
            acc_u = warpgroup_mma(a, wu_bufs.index(s).permute((1, 0)), acc_u, use_acc=k > 0, is_async=True)
            # All but this step's two wgmma are done: the slot of step g - 1 takes load step g + STAGES - 1,
            # which may belong to this program's next tile.
            acc_g, acc_u = warpgroup_mma_wait(num_outstanding=2, deps=(acc_g, acc_u))
            _issue_step(x_desc, wg_desc, wu_desc, x_bufs, wg_bufs, wu_bufs, bars, g + STAGES - 1, total_steps,
                        k_steps, pid, nprog, num_pid_m, num_pid_n, GROUP_M, STAGES)
            g += 1
        acc_g, acc_u = warpgroup_mma_wait(num_outstanding=0, deps=(acc_g, acc_u))

        h = acc_g / (1.0 + gl.exp2(-LOG2E * acc_g)) * acc_u
        pid_m, pid_n = _tile_coords(pid + i * nprog, num_pid_m, num_pid_n, GROUP_M)
        tma.store_wait(pendings=0)  # the previous tile's store has left h_smem
        h_smem.store(h.to(dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(h_desc, [pid_m * BLOCK_M, pid_n * BLOCK_N], h_smem)

    tma.store_wait(pendings=0)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(i))


def swiglu_dual_gemm(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor) -> torch.Tensor:
    m, k = x.shape
    n = w_gate.shape[0]
    h = torch.empty((m, n), dtype=x.dtype, device=x.device)
    block_m, block_n, block_k, stages, group_m, num_warps = 128, 128, 64, 4, 8, 8
    x_layout = gl.NVMMASharedLayout.get_default_for([block_m, block_k], gl.bfloat16)
    w_layout = gl.NVMMASharedLayout.get_default_for([block_n, block_k], gl.bfloat16)
    h_layout = gl.NVMMASharedLayout.get_default_for([block_m, block_n], gl.bfloat16)
    x_desc = TensorDescriptor.from_tensor(x, [block_m, block_k], x_layout)
    wg_desc = TensorDescriptor.from_tensor(w_gate, [block_n, block_k], w_layout)
    wu_desc = TensorDescriptor.from_tensor(w_up, [block_n, block_k], w_layout)
    h_desc = TensorDescriptor.from_tensor(h, [block_m, block_n], h_layout)
    tiles = triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 132
    grid = (min(tiles, sms), )
    _swiglu_kernel[grid](x_desc, wg_desc, wu_desc, h_desc, GROUP_M=group_m, STAGES=stages, num_warps=num_warps)
    return h
