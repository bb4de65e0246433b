import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: A^T is never materialized: TMA loads (BLOCK_K, BLOCK_M) tiles of a as stored and the tile's
# transpose feeds wgmma directly (16-bit wgmma takes an M-major A from shared memory), B's (BLOCK_K, BLOCK_N)
# tiles likewise, through a multi-stage pipeline with fp32 accumulators; grouped tile order for L2 reuse, one
# TMA store of C. Autotuned over a few Hopper tile shapes. Rows that are not 16-byte aligned get one cheap
# padding copy.
_CONFIGS = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=4),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=3),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


def _set_blocks(nargs):
    bm, bn, bk = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [bk, bm]
    nargs["b_desc"].block_shape = [bk, bn]
    if nargs["c_desc"] is not None:
        nargs["c_desc"].block_shape = [bm, bn]


for _c in _CONFIGS:
    _c.pre_hook = _set_blocks


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _matmul_kernel(a_desc, b_desc, c_desc, c_ptr, M, N, K,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                   TMA_STORE: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * num_pid_n
    first_m = (pid // width) * GROUP_M
    group_size = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % group_size
    pid_n = (pid % width) // group_size
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([k * BLOCK_K, off_m])  # parts of a tile outside the matrix read as zero
        b = b_desc.load([k * BLOCK_K, off_n])
        acc = tl.dot(a.T, b, acc)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    c = acc.to(c_ptr.dtype.element_ty)
    if TMA_STORE:
        c_desc.store([off_m, off_n], c)  # clipped to (M, N)
    else:  # rows of C are not 16-byte aligned: masked pointer store
        offs_m = off_m + tl.arange(0, BLOCK_M)
        mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        tl.store(c_ptr + offs_m.to(tl.int64)[:, None] * N + offs_n[None, :], c, mask=mask)


@triton.jit
def _pad_rows_kernel(src_ptr, dst_ptr, n_rows, n_cols, dst_pitch, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    rows = rows.to(tl.int64)[:, None]
    x = tl.load(src_ptr + rows * n_cols + cols[None, :], mask=mask)
    tl.store(dst_ptr + rows * dst_pitch + cols[None, :], x, mask=mask)


def _tma_ok(t):
    return t.is_contiguous() and t.data_ptr() % 16 == 0 and (t.shape[-1] * t.element_size()) % 16 == 0


def _descriptor(t):
    """TMA descriptor of a 2-D contiguous tensor (its block shape is set per config by _set_blocks); rows that
    are not 16-byte aligned are first copied into a buffer with padded rows, and the descriptor keeps the
    logical shape, so the padding is never read."""
    if _tma_ok(t):
        return TensorDescriptor.from_tensor(t, [16, 16])
    rows, cols = t.shape
    align = 16 // t.element_size()
    pitch = triton.cdiv(cols, align) * align
    buf = torch.empty((rows, pitch), device=t.device, dtype=t.dtype)
    _pad_rows_kernel[(triton.cdiv(rows, 16), triton.cdiv(cols, 256))](t, buf, rows, cols, pitch, BLOCK_R=16,
                                                                     BLOCK_C=256, num_warps=4)
    return TensorDescriptor(buf, [rows, cols], [pitch, 1], [16, 16])


def matmul_at_b(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    K, M = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    tma_store = _tma_ok(c)
    c_desc = TensorDescriptor.from_tensor(c, [16, 16]) if tma_store else None
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    _matmul_kernel[grid](_descriptor(a), _descriptor(b), c_desc, c, M, N, K, TMA_STORE=tma_store)
    return c
