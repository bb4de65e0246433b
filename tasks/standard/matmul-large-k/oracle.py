import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: split-K. The (M, N) output has only tens of 128x128 tiles, so K is cut into slices, sized so
# that tiles x slices fill the SMs about twice in one wave; each program streams its slice of A's row panel
# and B's column panel by TMA through a 4-stage pipeline into wgmma with fp32 accumulators and writes an
# fp32 partial tile; a light second kernel sums the slices in a fixed order and rounds once to bf16 (the
# partials are a few percent of the bytes of A and B). Rows that are not 16-byte aligned get one padding copy.

BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 64
NUM_WARPS, NUM_STAGES = 8, 4


@triton.jit
def _splitk_kernel(a_desc, b_desc, part_ptr, M, N, K, k_chunk,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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
    tl.store(part_ptr + (split * M + offs_m).to(tl.int64)[:, None] * N + offs_n[None, :], acc, mask=mask)


@triton.jit
def _reduce_kernel(part_ptr, c_ptr, MN, splits, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, splits):
        acc += tl.load(part_ptr + s * MN + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc.to(c_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _pad_rows_kernel(src_ptr, dst_ptr, n_rows, n_cols, dst_pitch, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    rows = rows.to(tl.int64)[:, None]
    x = tl.load(src_ptr + rows * n_cols + cols[None, :], mask=mask)
    tl.store(dst_ptr + rows * dst_pitch + cols[None, :], x, mask=mask)


def _descriptor(t, block):
    """TMA descriptor of a 2-D contiguous tensor; rows that are not 16-byte aligned are first copied into a
    buffer with padded rows (the descriptor keeps the logical shape, so the padding is never read)."""
    if t.data_ptr() % 16 == 0 and (t.shape[1] * t.element_size()) % 16 == 0:
        return TensorDescriptor.from_tensor(t, block)
    rows, cols = t.shape
    align = 16 // t.element_size()
    pitch = triton.cdiv(cols, align) * align
    buf = torch.empty((rows, pitch), device=t.device, dtype=t.dtype)
    _pad_rows_kernel[(triton.cdiv(rows, 16), triton.cdiv(cols, 256))](t, buf, rows, cols, pitch, BLOCK_R=16,
                                                                     BLOCK_C=256, num_warps=4)
    return TensorDescriptor(buf, [rows, cols], [pitch, 1], block)


def matmul_large_k(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count if a.is_cuda else 4
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    splits = max(1, min(triton.cdiv(2 * num_sms, tiles), triton.cdiv(K, 4 * BLOCK_K)))
    k_chunk = triton.cdiv(triton.cdiv(K, splits), BLOCK_K) * BLOCK_K
    splits = triton.cdiv(K, k_chunk)
    part = torch.empty((splits, M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(N, BLOCK_N), triton.cdiv(M, BLOCK_M), splits)
    _splitk_kernel[grid](_descriptor(a, [BLOCK_M, BLOCK_K]), _descriptor(b, [BLOCK_K, BLOCK_N]), part, M, N, K,
                         k_chunk, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=NUM_WARPS,
                         num_stages=NUM_STAGES)
    block = 1024
    _reduce_kernel[(triton.cdiv(M * N, block),)](part, c, M * N, splits, BLOCK=block, num_warps=4)
    return c
