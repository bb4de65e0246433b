import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma

# Persistent TMA pipeline: each CTA walks its (batch, 64x128) tiles with a 3-slot ring of TMA loads into
# swizzled NVMMA shared buffers (2 loads in flight on mbarriers), transposes each tile in registers (a blocked
# layout read along N, permuted, converted to one contiguous along M), and drains it through two output buffers
# with asynchronous TMA stores, so loads, the transpose and stores of different tiles overlap; 3-D
# descriptors clip every tile at its batch's edges.


@gluon.jit
def _tile_coords(tile, tiles_m, tiles_n, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr):
    per_batch = tiles_m * tiles_n
    b = tile // per_batch
    rest = tile % per_batch
    return b, (rest // tiles_n) * BLOCK_M, (rest % tiles_n) * BLOCK_N


@gluon.jit
def _transpose_kernel(x_desc, out_desc, STAGES: gl.constexpr, num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = x_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = x_desc.block_type.shape[2]
    B = x_desc.shape[0]
    M = x_desc.shape[1]
    N = x_desc.shape[2]
    tiles_m = gl.cdiv(M, BLOCK_M)
    tiles_n = gl.cdiv(N, BLOCK_N)
    num_tiles = B * tiles_m * tiles_n
    pid = gl.program_id(0)
    step = gl.num_programs(0)
    my_tiles = gl.cdiv(num_tiles - pid, step)

    # Read along N (16-byte vectors of the input's contiguous axis); write along M (the output's).
    load_layout: gl.constexpr = gl.BlockedLayout([1, 1, 8], [1, 2, 16], [1, num_warps, 1], [2, 1, 0])
    store_layout: gl.constexpr = gl.BlockedLayout([1, 1, 8], [1, 4, 8], [1, num_warps, 1], [2, 1, 0])

    in_bufs = gl.allocate_shared_memory(x_desc.dtype, [STAGES, 1, BLOCK_M, BLOCK_N], x_desc.layout)
    out_bufs = gl.allocate_shared_memory(out_desc.dtype, [2, 1, BLOCK_N, BLOCK_M], out_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)

    for i in gl.static_range(STAGES - 1):
        b, off_m, off_n = _tile_coords(pid + i * step, tiles_m, tiles_n, BLOCK_M, BLOCK_N)
        pred = i < my_tiles
        mbarrier.expect(ready.index(i), x_desc.block_type.nbytes, pred=pred)
        tma.async_copy_global_to_shared(x_desc, [b, off_m, off_n], ready.index(i), in_bufs.index(i), pred)

    for i in range(my_tiles):
        s = i % STAGES
        mbarrier.wait(ready.index(s), (i // STAGES) & 1)
        tile = in_bufs.index(s).load(load_layout)  # [1, BLOCK_M, BLOCK_N]
        # Every warp has read slot i - 1 (last iteration) before it is refilled with tile i + STAGES - 1.
        gl.thread_barrier()
        fence_async_shared()
        nxt = i + STAGES - 1
        b, off_m, off_n = _tile_coords(pid + nxt * step, tiles_m, tiles_n, BLOCK_M, BLOCK_N)
        pred = nxt < my_tiles
        sn = nxt % STAGES
        mbarrier.expect(ready.index(sn), x_desc.block_type.nbytes, pred=pred)
        tma.async_copy_global_to_shared(x_desc, [b, off_m, off_n], ready.index(sn), in_bufs.index(sn), pred)

        flipped = gl.convert_layout(gl.permute(tile, (0, 2, 1)), store_layout)  # [1, BLOCK_N, BLOCK_M]
        o = i % 2
        tma.store_wait(pendings=1)  # the store that used this buffer two tiles ago has read it
        gl.thread_barrier()
        out_bufs.index(o).store(flipped)
        fence_async_shared()
        gl.thread_barrier()
        b, off_m, off_n = _tile_coords(pid + i * step, tiles_m, tiles_n, BLOCK_M, BLOCK_N)
        tma.async_copy_shared_to_global(out_desc, [b, off_n, off_m], out_bufs.index(o))
    tma.store_wait(pendings=0)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(i))


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 132  # an H100's count, for compiling without a GPU
    index = device.index if device.index is not None else torch.cuda.current_device()
    return torch.cuda.get_device_properties(index).multi_processor_count  # torch keeps the properties


def transpose_batched(x: torch.Tensor) -> torch.Tensor:
    batches, m, n = x.shape
    out = torch.empty((batches, n, m), dtype=x.dtype, device=x.device)
    block_m, block_n, stages, num_warps = 64, 128, 3, 4
    x_desc = TensorDescriptor.from_tensor(x, [1, block_m, block_n],
                                          gl.NVMMASharedLayout.get_default_for([1, block_m, block_n], gl.bfloat16))
    out_desc = TensorDescriptor.from_tensor(out, [1, block_n, block_m],
                                            gl.NVMMASharedLayout.get_default_for([1, block_n, block_m], gl.bfloat16))
    tiles = batches * triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
    grid = (min(tiles, 2 * _sm_count(x.device)), )  # about 100 KiB of shared memory each: two CTAs an SM
    _transpose_kernel[grid](x_desc, out_desc, STAGES=stages, num_warps=num_warps)
    return out
