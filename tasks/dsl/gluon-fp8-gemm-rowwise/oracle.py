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

# Persistent and warp-specialized fp8 GEMM: one CTA per SM walks the 128x128 output tiles in grouped order; a
# one-warp producer partition keeps a 4-slot ring of TMA loads (A 128x128 and B 128x128 fp8, both K-major) ahead
# of two consumer warpgroups running fp8 wgmma m64n128k32 (B through a permuted view), slots handed over on
# ready/empty mbarriers, so the next tile's loads run under this tile's row/column scaling and TMA store. The fp8
# wgmma accumulator keeps about 13 mantissa bits, so each K tile's 128 products go to a partial accumulator that
# is added to the float32 one (max_num_imprecise_acc); the partial doubles the accumulator registers, which is
# why the tile is 128 wide, not 256.


@gluon.jit
def _tile_offsets(tile, num_pid_m, num_pid_n, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                  GROUP_M: gl.constexpr):
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (tile // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (tile % num_pid_in_group) % group_size_m
    pid_n = (tile % num_pid_in_group) // group_size_m
    return pid_m * BLOCK_M, pid_n * BLOCK_N


@gluon.jit
def _producer(a_desc, b_desc, a_bufs, b_bufs, ready, empty, num_pid_m, num_pid_n, k_tiles,
              GROUP_M: gl.constexpr):
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[0]
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    tile_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    count = 0
    for tile in range(gl.program_id(0), num_pid_m * num_pid_n, gl.num_programs(0)):
        off_m, off_n = _tile_offsets(tile, num_pid_m, num_pid_n, BLOCK_M, BLOCK_N, GROUP_M)
        for ki in range(k_tiles):
            s = count % STAGES
            mbarrier.wait(empty.index(s), ((count // STAGES) & 1) ^ 1)  # the first pass finds every slot free
            mbarrier.expect(ready.index(s), tile_bytes)
            tma.async_copy_global_to_shared(a_desc, [off_m, ki * BLOCK_K], ready.index(s), a_bufs.index(s))
            tma.async_copy_global_to_shared(b_desc, [off_n, ki * BLOCK_K], ready.index(s), b_bufs.index(s))
            count += 1


@gluon.jit
def _consumer(c_desc, a_scale_ptr, b_scale_ptr, a_bufs, b_bufs, ready, empty, c_smem, num_pid_m, num_pid_n,
              k_tiles, GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    BLOCK_K: gl.constexpr = a_bufs.type.shape[2]
    M = c_desc.shape[0]
    N = c_desc.shape[1]
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BLOCK_N, 32])
    count = 0
    for tile in range(gl.program_id(0), num_pid_m * num_pid_n, gl.num_programs(0)):
        off_m, off_n = _tile_offsets(tile, num_pid_m, num_pid_n, BLOCK_M, BLOCK_N, GROUP_M)
        acc = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float32, layout=mma_layout)
        previous = 0
        for ki in range(k_tiles):
            s = count % STAGES
            mbarrier.wait(ready.index(s), (count // STAGES) & 1)
            b_kmajor = b_bufs.index(s).permute((1, 0))
            acc = warpgroup_mma(a_bufs.index(s), b_kmajor, acc, is_async=True, max_num_imprecise_acc=BLOCK_K)
            # One wgmma stays in flight: the one before it is done, so its slot goes back to the producer.
            acc, _, _ = warpgroup_mma_wait(num_outstanding=1, deps=(acc, a_bufs.index(s), b_kmajor))
            mbarrier.arrive(empty.index(previous), pred=ki > 0)
            previous = s
            count += 1
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
        mbarrier.arrive(empty.index(previous), pred=k_tiles > 0)

        offs_m = off_m + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, mma_layout))
        offs_n = off_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, mma_layout))
        sa = gl.load(a_scale_ptr + offs_m, mask=offs_m < M, other=0.0)
        sb = gl.load(b_scale_ptr + offs_n, mask=offs_n < N, other=0.0)
        out = acc * gl.expand_dims(sa, 1) * gl.expand_dims(sb, 0)
        tma.store_wait(pendings=0)  # the previous tile's store has read c_smem
        c_smem.store(out.to(c_desc.dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(pendings=0)


@gluon.jit
def _fp8_gemm_kernel(a_desc, b_desc, c_desc, a_scale_ptr, b_scale_ptr, GROUP_M: gl.constexpr,
                     STAGES: gl.constexpr, num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    M = c_desc.shape[0]
    N = c_desc.shape[1]
    K = a_desc.shape[1]
    num_pid_m = gl.cdiv(M, BLOCK_M)
    num_pid_n = gl.cdiv(N, BLOCK_N)
    k_tiles = gl.cdiv(K, BLOCK_K)

    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BLOCK_N, BLOCK_K], b_desc.layout)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)

    gl.warp_specialize([
        (_consumer, (c_desc, a_scale_ptr, b_scale_ptr, a_bufs, b_bufs, ready, empty, c_smem, num_pid_m, num_pid_n,
                     k_tiles, GROUP_M, num_warps)),
        (_producer, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, num_pid_m, num_pid_n, k_tiles, GROUP_M)),
    ], [1], [24])

    for i in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 132  # an H100's count, for compiling without a GPU
    index = device.index if device.index is not None else torch.cuda.current_device()
    return torch.cuda.get_device_properties(index).multi_processor_count  # torch keeps the properties


def fp8_gemm_rowwise(a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[0]
    c = torch.empty((m, n), dtype=torch.bfloat16, device=a.device)
    block_m, block_n, block_k, stages, group_m, num_warps = 128, 128, 128, 4, 8, 8
    a_desc = TensorDescriptor.from_tensor(a, [block_m, block_k],
                                          gl.NVMMASharedLayout.get_default_for([block_m, block_k], gl.float8e4nv))
    b_desc = TensorDescriptor.from_tensor(b, [block_n, block_k],
                                          gl.NVMMASharedLayout.get_default_for([block_n, block_k], gl.float8e4nv))
    c_desc = TensorDescriptor.from_tensor(c, [block_m, block_n],
                                          gl.NVMMASharedLayout.get_default_for([block_m, block_n], gl.bfloat16))
    tiles = triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
    grid = (min(tiles, _sm_count(a.device)), )
    # 8 consumer warps + a producer warpgroup under 168 registers a thread fill the 64K register file; the
    # producer gives its share back (24), so the consumers hold the 128x128 fp32 accumulator, the wgmma partial and
    # the epilogue.
    _fp8_gemm_kernel[grid](a_desc, b_desc, c_desc, a_scale, b_scale, GROUP_M=group_m, STAGES=stages,
                           num_warps=num_warps, maxnreg=168)
    return c
