import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Best plain Triton for a grouped GEMM over ragged expert groups (as tasks/standard/grouped-gemm-offsets'
# oracle): one persistent launch, no host sync; each program walks the groups' tiles in a global order
# (column tiles fastest, so programs running together share a panel of x and sweep one expert's weight) and
# takes every NUM_PROGS-th tile, reading the group bounds on the device. Each tile is a TMA/wgmma GEMM
# (the compiler's multi-stage pipeline over K, tile and depth autotuned); rows past the group's end and
# columns past N are computed on the neighbours' data and masked at the store.
_CONFIGS = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 64}, num_warps=8, num_stages=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64}, num_warps=8, num_stages=4),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    _CONFIGS = _CONFIGS[:1]


def _set_blocks(nargs):
    nargs["a_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_K"]]
    nargs["b_desc"].block_shape = [nargs["BLOCK_N"], nargs["BLOCK_K"]]


for _cfg in _CONFIGS:
    _cfg.pre_hook = _set_blocks


@triton.autotune(configs=_CONFIGS, key=["T", "N", "K", "E"])
@triton.jit
def _grouped_gemm_kernel(a_desc, b_desc, c_ptr, off_ptr, T, N, K, E, NUM_PROGS,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    tile = tl.program_id(0)
    num_n = tl.cdiv(N, BLOCK_N)
    tile_base = tile * 0  # an int32 tensor from the start: it is loop-carried
    for e in range(0, E):
        start = tl.load(off_ptr + e)
        end = tl.load(off_ptr + e + 1)
        group_tiles = tl.cdiv(end - start, BLOCK_M) * num_n
        while tile < tile_base + group_tiles:
            local = tile - tile_base
            off_m = start + (local // num_n) * BLOCK_M
            off_n = (local % num_n) * BLOCK_N
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k in range(0, tl.cdiv(K, BLOCK_K)):
                a = a_desc.load([off_m, k * BLOCK_K])  # rows past T read as zero
                b = b_desc.load([e * N + off_n, k * BLOCK_K])
                acc = tl.dot(a, b.T, acc)
            offs_m = off_m + tl.arange(0, BLOCK_M)
            offs_n = off_n + tl.arange(0, BLOCK_N)
            mask = (offs_m[:, None] < end) & (offs_n[None, :] < N)
            tl.store(c_ptr + offs_m.to(tl.int64)[:, None] * N + offs_n[None, :], acc.to(c_ptr.dtype.element_ty),
                     mask=mask)
            tile += NUM_PROGS
        tile_base += group_tiles


def grouped_gemm(x: torch.Tensor, weight: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    T, K = x.shape
    E, N, _ = weight.shape
    out = torch.empty((T, N), device=x.device, dtype=x.dtype)
    num_progs = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
    a_desc = TensorDescriptor.from_tensor(x, [16, 16])  # blocks set per config
    b_desc = TensorDescriptor.from_tensor(weight.view(E * N, K), [16, 16])
    _grouped_gemm_kernel[(num_progs,)](a_desc, b_desc, out, offsets, T, N, K, E, num_progs)
    return out
