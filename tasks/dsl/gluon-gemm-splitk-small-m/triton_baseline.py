import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Best plain Triton for a decode GEMM: swap AB (weight tile [BLOCK_N, BLOCK_K] as the dot's left operand,
# the token rows padded only to MP = 16..64 as its right operand, so no 64-row zero tile), TMA descriptors
# for both, split-K sized to fill the SMs in whole waves, the compiler's multi-stage pipeline (depth, tile
# and warps autotuned), fp32 partials summed by a second kernel in split order.
_CONFIGS = [
    triton.Config({"BLOCK_N": 128, "BLOCK_K": 64}, num_warps=4, num_stages=6),
    triton.Config({"BLOCK_N": 128, "BLOCK_K": 64}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_N": 128, "BLOCK_K": 128}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_N": 64, "BLOCK_K": 128}, num_warps=4, num_stages=6),
    triton.Config({"BLOCK_N": 128, "BLOCK_K": 128}, num_warps=8, num_stages=3),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    _CONFIGS = _CONFIGS[:1]
K_ALIGN = 128  # each split covers a multiple of the largest BLOCK_K


def _set_blocks(nargs):
    nargs["w_desc"].block_shape = [nargs["BLOCK_N"], nargs["BLOCK_K"]]
    nargs["x_desc"].block_shape = [nargs["MP"], nargs["BLOCK_K"]]


for _cfg in _CONFIGS:
    _cfg.pre_hook = _set_blocks


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K", "k_chunk"])
@triton.jit
def _splitk_swapab_kernel(w_desc, x_desc, part_ptr, M, N, K, k_chunk, MP: tl.constexpr, DIRECT: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    off_n = pid_n * BLOCK_N
    k_start = split * k_chunk
    k_end = tl.minimum(k_start + k_chunk, K)
    acc = tl.zeros((BLOCK_N, MP), dtype=tl.float32)
    for k in range(k_start, k_end, BLOCK_K):  # TMA zero-fills past K and past row M of x
        w = w_desc.load([off_n, k])
        x = x_desc.load([0, k])
        acc = tl.dot(w, x.T, acc)
    ni = off_n + tl.arange(0, BLOCK_N)
    mi = tl.arange(0, MP)
    mask = (ni[:, None] < N) & (mi[None, :] < M)
    offs = ni[:, None] + mi[None, :] * N
    if DIRECT:
        tl.store(part_ptr + offs, acc.to(part_ptr.dtype.element_ty), mask=mask)
    else:
        tl.store(part_ptr + split.to(tl.int64) * M * N + offs, acc, mask=mask)


@triton.jit
def _sum_splits_kernel(part_ptr, out_ptr, MN, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in tl.static_range(SPLITS):
        acc += tl.load(part_ptr + s * MN + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc.to(out_ptr.dtype.element_ty), mask=mask)


def decode_linear(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    m, k = x.shape
    n = weight.shape[0]
    out = torch.empty((m, n), device=x.device, dtype=x.dtype)
    mp = max(16, triton.next_power_of_2(m))
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 132
    n_tiles = triton.cdiv(n, 128)
    # Two programs per SM in one wave; each split at least 2 * K_ALIGN deep.
    splits = max(1, min(round(2 * sms / n_tiles), triton.cdiv(k, 2 * K_ALIGN)))
    k_chunk = triton.cdiv(triton.cdiv(k, splits), K_ALIGN) * K_ALIGN
    splits = triton.cdiv(k, k_chunk)
    direct = splits == 1
    part = out if direct else torch.empty((splits, m, n), device=x.device, dtype=torch.float32)
    w_desc = TensorDescriptor.from_tensor(weight, [128, 64])  # blocks set per config
    x_desc = TensorDescriptor.from_tensor(x, [mp, 64])
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_N"]), splits)
    _splitk_swapab_kernel[grid](w_desc, x_desc, part, m, n, k, k_chunk, MP=mp, DIRECT=direct)
    if not direct:
        block = 1024
        _sum_splits_kernel[(triton.cdiv(m * n, block),)](part, out, m * n, SPLITS=splits, BLOCK=block, num_warps=4)
    return out
