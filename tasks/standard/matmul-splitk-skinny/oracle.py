import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: with M <= 64 the product is bound by streaming B (K x N) from HBM once. Column tiles alone
# give too few programs to fill 132 SMs, so K is split too (split-K), sized so that all programs run in one
# wave, two per SM: each streams a (K/splits) x BLOCK_N panel of B by TMA through a multi-stage pipeline
# (tile width, BLOCK_K and depth autotuned) into wgmma against the small, L2-resident A (one 64-row tile,
# rows past M read as zero), and writes fp32 partials; a light second kernel sums the splits and rounds to
# fp16. Rows that are not 16-byte aligned (odd K or N) get one padding copy so TMA still works.

BLOCK_M = 64  # the smallest wgmma M; rows past M read as zero
SLOTS = 2 * 132  # programs resident at once: 2 per SM on 132 SMs
K_ALIGN = 256  # each split covers a multiple of the largest BLOCK_K


def _config(bn, bk, warps, stages):
    return triton.Config({"BLOCK_N": bn, "BLOCK_K": bk}, num_warps=warps, num_stages=stages)


# The split count is fixed on the host (one wave of 64-column tiles); the autotuner picks the tile and the
# pipeline depth that stream B fastest.
_CONFIGS = [_config(64, 128, 4, 3), _config(64, 128, 4, 4), _config(64, 256, 4, 3), _config(128, 128, 4, 3),
            _config(128, 128, 8, 4)]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    _CONFIGS = _CONFIGS[:1]


def _set_blocks(nargs):
    nargs["a_desc"].block_shape = [BLOCK_M, nargs["BLOCK_K"]]
    nargs["b_desc"].block_shape = [nargs["BLOCK_K"], nargs["BLOCK_N"]]


for _cfg in _CONFIGS:
    _cfg.pre_hook = _set_blocks


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K", "k_chunk"])
@triton.jit
def _splitk_kernel(a_desc, b_desc, part_ptr, c_ptr, M, N, K, k_chunk,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, DIRECT: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    split = tl.program_id(2)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    k_start = split * k_chunk
    k_end = tl.minimum(k_start + k_chunk, K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_start, k_end, BLOCK_K):  # k_chunk is a multiple of K_ALIGN; TMA zero-fills past K
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
def _splitk_reduce_kernel(part_ptr, c_ptr, MN, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in tl.static_range(SPLITS):
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


def skinny_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, 64)
    # One wave of 64-column programs; each split covers a multiple of K_ALIGN, at least 2 * K_ALIGN.
    splits = max(1, min(round(SLOTS / tiles), triton.cdiv(K, 2 * K_ALIGN)))
    k_chunk = triton.cdiv(triton.cdiv(K, splits), K_ALIGN) * K_ALIGN
    splits = triton.cdiv(K, k_chunk)
    direct = splits == 1
    part = c if direct else torch.empty((splits, M, N), device=a.device, dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]), triton.cdiv(M, BLOCK_M), splits)
    _splitk_kernel[grid](_descriptor(a), _descriptor(b), part, c, M, N, K, k_chunk, BLOCK_M=BLOCK_M, DIRECT=direct)
    if not direct:
        block = 1024
        _splitk_reduce_kernel[(triton.cdiv(M * N, block),)](part, c, M * N, SPLITS=splits, BLOCK=block, num_warps=4)
    return c
