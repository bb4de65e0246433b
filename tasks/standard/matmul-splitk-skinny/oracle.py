import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: with M <= 64 the product is bound by streaming B (K x N) from HBM once. Tiles of 64 columns
# alone give too few programs for 132 SMs, so K is split as well (split-K): each program streams a
# (K/splits) x 64 panel of B by TMA through a 4-stage pipeline into tensor-core dots against the small,
# L2-resident A, and writes fp32 partials; a light second kernel sums the splits and rounds to fp16.

BLOCK_N, BLOCK_K = 64, 128
NUM_WARPS, NUM_STAGES = 4, 4
NUM_SMS = 132


@triton.jit
def _splitk_tma_kernel(a_desc, b_desc, part_ptr, c_ptr, M, N, K, k_chunk,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       DIRECT: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    split = tl.program_id(2)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    k_start = split * k_chunk
    k_end = tl.minimum(k_start + k_chunk, K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_start, k_end, BLOCK_K):  # k_chunk is a multiple of BLOCK_K; TMA zero-fills past K
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if DIRECT:
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(c_ptr.dtype.element_ty), mask=mask)
    else:
        tl.store(part_ptr + (split * M + offs_m)[:, None] * N + offs_n[None, :], acc, mask=mask)


@triton.jit
def _splitk_ptr_kernel(a_ptr, b_ptr, part_ptr, c_ptr, M, N, K, k_chunk,
                       stride_am, stride_ak, stride_bk, stride_bn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       DIRECT: tl.constexpr):
    # Fallback for rows that are not 16-byte aligned (TMA cannot describe them).
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    split = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    rows = tl.where(offs_m < M, offs_m, 0)
    cols = tl.where(offs_n < N, offs_n, 0)
    k_start = split * k_chunk
    k_end = tl.minimum(k_start + k_chunk, K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_start, k_end, BLOCK_K):
        ks = k + offs_k
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak, mask=ks[None, :] < k_end, other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn, mask=ks[:, None] < k_end, other=0.0)
        acc = tl.dot(a, b, acc)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if DIRECT:
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(c_ptr.dtype.element_ty), mask=mask)
    else:
        tl.store(part_ptr + (split * M + offs_m)[:, None] * N + offs_n[None, :], acc, mask=mask)


@triton.jit
def _splitk_reduce_kernel(part_ptr, c_ptr, MN, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in tl.static_range(SPLITS):
        acc += tl.load(part_ptr + s * MN + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc.to(c_ptr.dtype.element_ty), mask=mask)


def _tma_ok(*tensors):
    return all(t.stride(-1) == 1 and t.data_ptr() % 16 == 0
               and all(s * t.element_size() % 16 == 0 for s in t.stride()[:-1]) for t in tensors)


def skinny_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    block_m = max(16, min(64, triton.next_power_of_2(M)))
    tiles = triton.cdiv(M, block_m) * triton.cdiv(N, BLOCK_N)
    # About 3 programs per SM; each split covers a multiple of BLOCK_K, and at least 4 of them.
    splits = max(1, min(triton.cdiv(3 * NUM_SMS, tiles), triton.cdiv(K, 4 * BLOCK_K)))
    k_chunk = triton.cdiv(triton.cdiv(K, splits), BLOCK_K) * BLOCK_K
    splits = triton.cdiv(K, k_chunk)
    direct = splits == 1
    part = c if direct else torch.empty((splits, M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(N, BLOCK_N), triton.cdiv(M, block_m), splits)
    if _tma_ok(a, b):
        a_desc = TensorDescriptor.from_tensor(a, [block_m, BLOCK_K])
        b_desc = TensorDescriptor.from_tensor(b, [BLOCK_K, BLOCK_N])
        _splitk_tma_kernel[grid](a_desc, b_desc, part, c, M, N, K, k_chunk, BLOCK_M=block_m, BLOCK_N=BLOCK_N,
                                 BLOCK_K=BLOCK_K, DIRECT=direct, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    else:
        _splitk_ptr_kernel[grid](a, b, part, c, M, N, K, k_chunk, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                 BLOCK_M=block_m, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, DIRECT=direct,
                                 num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    if not direct:
        block = 1024
        _splitk_reduce_kernel[(triton.cdiv(M * N, block),)](part, c, M * N, SPLITS=splits, BLOCK=block, num_warps=4)
    return c
