import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# The best plain Triton (the standard suite's fp8-gemm-rowwise oracle): fp8 wgmma (twice the bf16 rate) on
# autotuned tiles (128x256x128 for large aligned shapes, narrower where a wide tile would waste a mostly empty last column of tiles) fed by TMA through a 3-stage
# pipeline, both operands K-major as fp8 wgmma needs, each K tile's partial sums promoted to the float32 accumulator
# (max_num_imprecise_acc), a grouped tile order for L2 reuse, and the row and
# column scales (two vector loads) applied to the fp32 accumulators before one TMA store of bf16. Rows that are not 16-byte
# aligned (K not a multiple of 16, or odd N) get one cheap padding copy so TMA still works.

_CONFIGS = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 8}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8}, num_warps=8, num_stages=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 8}, num_warps=4, num_stages=4),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    _CONFIGS = _CONFIGS[:1]


def _set_blocks(nargs):
    bm, bn, bk = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bn, bk]
    if nargs["c_desc"] is not None:
        nargs["c_desc"].block_shape = [bm, bn]


for _cfg in _CONFIGS:
    _cfg.pre_hook = _set_blocks


@triton.jit
def _tile_coords(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _fp8_matmul_kernel(a_desc, b_desc, c_desc, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr, TMA_STORE: tl.constexpr):
    pid_m, pid_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])  # parts of a tile outside the matrix read as zero
        b = b_desc.load([off_n, k * BLOCK_K])
        # The fp8 wgmma accumulator keeps about 13 mantissa bits: the BLOCK_K products of each tile are summed
        # in a partial accumulator and added to the float32 one (the task's float32 accumulation).
        acc = tl.dot(a, b.T, acc, max_num_imprecise_acc=BLOCK_K)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    sa = tl.load(a_scale_ptr + offs_m, mask=offs_m < M, other=0.0)
    sb = tl.load(b_scale_ptr + offs_n, mask=offs_n < N, other=0.0)
    c = (acc * sa[:, None] * sb[None, :]).to(c_ptr.dtype.element_ty)
    if TMA_STORE:
        c_desc.store([off_m, off_n], c)  # clipped to (M, N)
    else:  # rows of C are not 16-byte aligned: masked pointer store
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


def _descriptor(t, block=(8, 8)):
    """TMA descriptor of a contiguous tensor. TMA needs 16-byte aligned rows: if t's rows are not, they are
    first copied into a buffer with padded rows (one cheap pass); the descriptor keeps the logical shape, so
    the padding is never read (TMA returns zeros outside the shape)."""
    if _tma_ok(t):
        return TensorDescriptor.from_tensor(t, list(block))
    cols = t.shape[-1]
    rows = t.numel() // cols
    align = 16 // t.element_size()
    pitch = triton.cdiv(cols, align) * align
    buf = torch.empty((rows, pitch), device=t.device, dtype=t.dtype)
    _pad_rows_kernel[(triton.cdiv(rows, 16), triton.cdiv(cols, 256))](t, buf, rows, cols, pitch, BLOCK_R=16,
                                                                     BLOCK_C=256, num_warps=4)
    strides = [1, pitch]
    for size in reversed(t.shape[1:-1]):
        strides.append(strides[-1] * size)
    return TensorDescriptor(buf, list(t.shape), strides[::-1], list(block))


def fp8_gemm_rowwise(a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[0]
    c = torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    tma_store = _tma_ok(c)
    c_desc = TensorDescriptor.from_tensor(c, [8, 8]) if tma_store else None  # blocks set per config
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    _fp8_matmul_kernel[grid](_descriptor(a), _descriptor(b), c_desc, c, a_scale, b_scale, M, N, K,
                             TMA_STORE=tma_store)
    return c
