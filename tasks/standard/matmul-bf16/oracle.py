import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: 128x256x64 bf16 wgmma tiles fed by TMA through a 3-stage pipeline, fp32 accumulators in
# registers, and a grouped (GROUP_M row-panels) tile order so neighbouring programs share A and B in L2.

BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 128, 256, 64, 8
NUM_WARPS, NUM_STAGES = 8, 3
# Triton's CPU interpreter multiplies bfloat16 tiles as raw uint16 bits; there (only) the tiles are
# widened to float32 before tl.dot. On the GPU this flag is False and the dot stays bf16 x bf16 -> fp32.
UPCAST = os.environ.get("TRITON_INTERPRET") == "1"


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


@triton.jit
def _matmul_tma_kernel(a_desc, b_desc, c_desc, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr, UPCAST: tl.constexpr):
    pid_m, pid_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])  # out-of-bounds parts of a tile read as zero
        b = b_desc.load([k * BLOCK_K, off_n])
        if UPCAST:
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))  # clipped to (M, N)


@triton.jit
def _matmul_ptr_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr, UPCAST: tl.constexpr):
    # Fallback for rows that are not 16-byte aligned (TMA cannot describe them).
    pid_m, pid_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    rows = tl.where(offs_m < M, offs_m, 0)  # clamp: loads need only the K mask, the store masks M, N
    cols = tl.where(offs_n < N, offs_n, 0)
    a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        if UPCAST:
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _tma_ok(*tensors):
    return all(t.stride(-1) == 1 and t.data_ptr() % 16 == 0
               and all(s * t.element_size() % 16 == 0 for s in t.stride()[:-1]) for t in tensors)


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    if _tma_ok(a, b, c):
        a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
        b_desc = TensorDescriptor.from_tensor(b, [BLOCK_K, BLOCK_N])
        c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
        _matmul_tma_kernel[grid](a_desc, b_desc, c_desc, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                 BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, UPCAST=UPCAST, num_warps=NUM_WARPS,
                                 num_stages=NUM_STAGES)
    else:
        _matmul_ptr_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                 c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                 GROUP_M=GROUP_M, UPCAST=UPCAST, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    return c
