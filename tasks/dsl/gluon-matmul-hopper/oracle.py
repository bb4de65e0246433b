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


# Tensor cores fed by TMA: 128x256x64 tiles, 8 warps (two warpgroups) on wgmma m64n256k16, a
# 4-deep ring of swizzled NVMMA shared buffers (3 TMA loads in flight) overlapping the asynchronous
# wgmma of the current K tile, grouped tile order for L2 reuse, and a TMA store epilogue.
@gluon.jit
def _matmul_kernel(a_desc, b_desc, c_desc, GROUP_M: gl.constexpr, STAGES: gl.constexpr,
                   num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    dtype: gl.constexpr = a_desc.dtype
    M = c_desc.shape[0]
    N = c_desc.shape[1]
    K = a_desc.shape[1]

    # Grouped ordering: GROUP_M row-tiles share each B column-tile while it is hot in L2.
    pid = gl.program_id(0)
    num_pid_m = gl.cdiv(M, BLOCK_M)
    num_pid_n = gl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N

    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_K, BLOCK_N], b_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(bars.index(i), count=1)

    # wgmma m64nNk16 per warpgroup; two warpgroups stacked along M.
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BLOCK_N, 16])
    acc = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float32, layout=mma_layout)
    tile_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    num_k = gl.cdiv(K, BLOCK_K)

    # Prologue: the first STAGES - 1 K tiles in flight.
    for i in gl.static_range(STAGES - 1):
        pred = i < num_k
        mbarrier.expect(bars.index(i), tile_bytes, pred=pred)
        tma.async_copy_global_to_shared(a_desc, [off_m, i * BLOCK_K], bars.index(i), a_bufs.index(i), pred)
        tma.async_copy_global_to_shared(b_desc, [i * BLOCK_K, off_n], bars.index(i), b_bufs.index(i), pred)

    for ki in range(num_k):
        s = ki % STAGES
        mbarrier.wait(bars.index(s), (ki // STAGES) & 1)
        acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc, is_async=True)
        # Keep one wgmma in flight: wgmma ki - 1 is done, so its slot can be refilled with tile
        # ki + STAGES - 1 while wgmma ki runs.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))
        kl = ki + STAGES - 1
        sl = kl % STAGES
        pred = kl < num_k
        mbarrier.expect(bars.index(sl), tile_bytes, pred=pred)
        tma.async_copy_global_to_shared(a_desc, [off_m, kl * BLOCK_K], bars.index(sl), a_bufs.index(sl), pred)
        tma.async_copy_global_to_shared(b_desc, [kl * BLOCK_K, off_n], bars.index(sl), b_bufs.index(sl), pred)

    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(bars.index(i))

    c_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    c_smem.store(acc.to(dtype))
    fence_async_shared()
    tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(pendings=0)


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    block_m, block_n, block_k, stages, group_m, num_warps = 128, 256, 64, 4, 8, 8
    a_layout = gl.NVMMASharedLayout.get_default_for([block_m, block_k], gl.float16)
    b_layout = gl.NVMMASharedLayout.get_default_for([block_k, block_n], gl.float16)
    c_layout = gl.NVMMASharedLayout.get_default_for([block_m, block_n], gl.float16)
    a_desc = TensorDescriptor.from_tensor(a, [block_m, block_k], a_layout)
    b_desc = TensorDescriptor.from_tensor(b, [block_k, block_n], b_layout)
    c_desc = TensorDescriptor.from_tensor(c, [block_m, block_n], c_layout)
    grid = (triton.cdiv(m, block_m) * triton.cdiv(n, block_n), )
    _matmul_kernel[grid](a_desc, b_desc, c_desc, GROUP_M=group_m, STAGES=stages, num_warps=num_warps)
    return c
