import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: wgmma tiles fed by TMA through a multi-stage pipeline, fp32 accumulators in registers, a
# grouped (GROUP_M row-panels) tile order so neighbouring programs share A and B in L2, and a TMA store of C.
# The autotuner picks the tile per (M, N, K): 128x256 for large aligned shapes, narrower tiles where a wide
# one would leave a mostly empty last column/row of tiles or a partial last wave (odd N such as 4097).
# Rows that are not 16-byte aligned (odd K or N) get one padding copy so TMA still works.

_CONFIGS = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=8, num_stages=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_warps=4, num_stages=4),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    _CONFIGS = _CONFIGS[:1]


def _set_blocks(nargs):
    bm, bn, bk = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bk, bn]
    if nargs["c_desc"] is not None:
        nargs["c_desc"].block_shape = [bm, bn]


for _cfg in _CONFIGS:
    _cfg.pre_hook = _set_blocks


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _mm_bias_relu_kernel(a_desc, b_desc, c_desc, c_ptr, bias_ptr, M, N, K,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                   TMA_STORE: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])  # parts of a tile outside the matrix read as zero
        b = b_desc.load([k * BLOCK_K, off_n])
        acc = tl.dot(a, b, acc)
    cols = off_n + tl.arange(0, BLOCK_N)
    bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
    c = tl.maximum(acc + bias[None, :], 0.0).to(c_ptr.dtype.element_ty)
    if TMA_STORE:
        c_desc.store([off_m, off_n], c)  # clipped to (M, N)
    else:  # rows of C are not 16-byte aligned: masked pointer store
        offs_m = off_m + tl.arange(0, BLOCK_M)
        offs_n = off_n + tl.arange(0, BLOCK_N)
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
    """TMA descriptor of a contiguous 2-D tensor (block shape set per config by the autotuner's pre-hook).
    TMA needs 16-byte aligned rows: if t's rows are not, they are first copied into a buffer with padded
    rows (one pass); the descriptor keeps the logical shape, so the padding is never read (TMA returns zeros
    outside the shape)."""
    dummy = [8, 8]
    if _tma_ok(t):
        return TensorDescriptor.from_tensor(t, dummy)
    rows, cols = t.shape
    align = 16 // t.element_size()
    pitch = triton.cdiv(cols, align) * align
    buf = torch.empty((rows, pitch), device=t.device, dtype=t.dtype)
    _pad_rows_kernel[(triton.cdiv(rows, 16), triton.cdiv(cols, 256))](t, buf, rows, cols, pitch, BLOCK_R=16,
                                                                     BLOCK_C=256, num_warps=4)
    return TensorDescriptor(buf, [rows, cols], [pitch, 1], dummy)


def matmul_bias_relu(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    tma_store = _tma_ok(c)
    c_desc = TensorDescriptor.from_tensor(c, [8, 8]) if tma_store else None
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    _mm_bias_relu_kernel[grid](_descriptor(a), _descriptor(b), c_desc, c, bias, M, N, K, TMA_STORE=tma_store)
    return c
