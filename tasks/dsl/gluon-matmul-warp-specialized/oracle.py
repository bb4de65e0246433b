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

# Persistent and warp-specialized: one CTA per SM walks the 128x256 output tiles in grouped order; a one-warp
# producer partition keeps a 3-slot ring of TMA loads (A 128x64, B 64x256) ahead of two consumer warpgroups
# (wgmma m64n256k16, one wgmma in flight), handing slots back and forth on ready/empty mbarriers, so the loads
# of the next tile run under this tile's bias + exact-GELU epilogue and its TMA store.


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
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    tile_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    count = 0
    for tile in range(gl.program_id(0), num_pid_m * num_pid_n, gl.num_programs(0)):
        off_m, off_n = _tile_offsets(tile, num_pid_m, num_pid_n, BLOCK_M, BLOCK_N, GROUP_M)
        for ki in range(k_tiles):
            s = count % STAGES
            # A slot is free once the consumers released it; the first pass finds every slot free.
            mbarrier.wait(empty.index(s), ((count // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(s), tile_bytes)
            tma.async_copy_global_to_shared(a_desc, [off_m, ki * BLOCK_K], ready.index(s), a_bufs.index(s))
            tma.async_copy_global_to_shared(b_desc, [ki * BLOCK_K, off_n], ready.index(s), b_bufs.index(s))
            count += 1


@gluon.jit
def _consumer(c_desc, bias_ptr, a_bufs, b_bufs, ready, empty, c_smem, num_pid_m, num_pid_n, k_tiles,
              GROUP_M: gl.constexpr, num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    STAGES: gl.constexpr = a_bufs.type.shape[0]
    N = c_desc.shape[1]
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                         instr_shape=[16, BLOCK_N, 16])
    bias_layout: gl.constexpr = gl.SliceLayout(0, mma_layout)
    count = 0
    for tile in range(gl.program_id(0), num_pid_m * num_pid_n, gl.num_programs(0)):
        off_m, off_n = _tile_offsets(tile, num_pid_m, num_pid_n, BLOCK_M, BLOCK_N, GROUP_M)
        acc = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float32, layout=mma_layout)
        previous = 0
        for ki in range(k_tiles):
            s = count % STAGES
            mbarrier.wait(ready.index(s), (count // STAGES) & 1)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s), acc, is_async=True)
            # One wgmma stays in flight: the one before it is done, so its slot goes back to the producer.
            acc, _, _ = warpgroup_mma_wait(num_outstanding=1, deps=(acc, a_bufs.index(s), b_bufs.index(s)))
            mbarrier.arrive(empty.index(previous), pred=ki > 0)
            previous = s
            count += 1
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
        mbarrier.arrive(empty.index(previous), pred=k_tiles > 0)

        offs_n = off_n + gl.arange(0, BLOCK_N, layout=bias_layout)
        bias = gl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(gl.float32)
        x = acc + gl.expand_dims(bias, 0)
        out = 0.5 * x * (1.0 + gl.erf(x * 0.7071067811865476))
        tma.store_wait(pendings=0)  # the previous tile's store has read c_smem
        c_smem.store(out.to(c_desc.dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(pendings=0)


@gluon.jit
def _linear_gelu_kernel(a_desc, b_desc, c_desc, bias_ptr, GROUP_M: gl.constexpr, STAGES: gl.constexpr,
                        num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    dtype: gl.constexpr = a_desc.dtype
    M = c_desc.shape[0]
    N = c_desc.shape[1]
    K = a_desc.shape[1]
    num_pid_m = gl.cdiv(M, BLOCK_M)
    num_pid_n = gl.cdiv(N, BLOCK_N)
    k_tiles = gl.cdiv(K, BLOCK_K)

    a_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(dtype, [STAGES, BLOCK_K, BLOCK_N], b_desc.layout)
    c_smem = gl.allocate_shared_memory(dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)

    gl.warp_specialize([
        (_consumer, (c_desc, bias_ptr, a_bufs, b_bufs, ready, empty, c_smem, num_pid_m, num_pid_n, k_tiles,
                     GROUP_M, num_warps)),
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


def linear_gelu(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    block_m, block_n, block_k, stages, group_m, num_warps = 128, 256, 64, 3, 8, 8
    gl_dtype = gl.float16 if a.dtype == torch.float16 else gl.bfloat16
    a_desc = TensorDescriptor.from_tensor(a, [block_m, block_k],
                                          gl.NVMMASharedLayout.get_default_for([block_m, block_k], gl_dtype))
    b_desc = TensorDescriptor.from_tensor(b, [block_k, block_n],
                                          gl.NVMMASharedLayout.get_default_for([block_k, block_n], gl_dtype))
    c_desc = TensorDescriptor.from_tensor(c, [block_m, block_n],
                                          gl.NVMMASharedLayout.get_default_for([block_m, block_n], gl_dtype))
    tiles = triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
    grid = (min(tiles, _sm_count(a.device)), )
    # 8 consumer warps + a producer warpgroup under 168 registers a thread fill the 64K register file; the
    # producer gives its share back (24), so the consumers hold the 128x256 fp32 accumulator and the epilogue.
    _linear_gelu_kernel[grid](a_desc, b_desc, c_desc, bias, GROUP_M=group_m, STAGES=stages, num_warps=num_warps,
                              maxnreg=168)
    return c
