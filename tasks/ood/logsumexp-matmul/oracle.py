import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# log sum_k exp(a[i, k] + b[k, j]) = ma[i] + mb[j] + log(sum_k exp(a[i, k] - ma[i]) * exp(b[k, j] - mb[j])) with
# ma the row maxima of a and mb the column maxima of b: the log-semiring product becomes an ordinary product of
# two matrices of exponentials in (0, 1], which runs on the TF32 tensor cores. Two memory-bound passes write
# exp(a - ma) (M x K) and exp(b - mb) transposed (N x K), both K-major as TF32 wgmma wants them, zero-padded along
# K to a multiple of 64; the GEMM streams both through TMA descriptors (out-of-range rows come back as zeros, no
# address registers) and its epilogue adds the maxima back to log(acc). The exponentials are stored already rounded
# to TF32 (to nearest): the tensor cores would truncate the low mantissa bits, a one-sided error twice as large.
_K_PAD = 64


def _set_block_shapes(nargs):  # each config's tile shapes for the two TMA descriptors
    nargs["ea_desc"].block_shape = [nargs["BM"], nargs["BK"]]
    nargs["ebt_desc"].block_shape = [nargs["BN"], nargs["BK"]]


# (sm_90 builds: 128 x 256 spills a few registers in its epilogue only, none in the main loop; 256 x 128 spilled more)
_CONFIGS = [
    triton.Config({"BM": 128, "BN": 256, "BK": 32, "GROUP_M": 8}, num_warps=8, num_stages=3, pre_hook=_set_block_shapes),
    triton.Config({"BM": 128, "BN": 256, "BK": 32, "GROUP_M": 8}, num_warps=8, num_stages=4, pre_hook=_set_block_shapes),
    triton.Config({"BM": 128, "BN": 128, "BK": 32, "GROUP_M": 8}, num_warps=8, num_stages=4, pre_hook=_set_block_shapes),
    triton.Config({"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}, num_warps=8, num_stages=3, pre_hook=_set_block_shapes),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.jit
def _exp_tf32(x):
    # exp(x) rounded to the nearest TF32 value (10 explicit mantissa bits; ties away from zero), for x <= 0
    bits = tl.exp(x).to(tl.int32, bitcast=True)
    return ((bits + 0x1000) & -8192).to(tl.float32, bitcast=True)


@triton.jit
def _exp_rows_kernel(a_ptr, ea_ptr, ma_ptr, K, KP, BLOCK: tl.constexpr):
    # One row of a per program: its maximum, then exp(a - max) into ea (zeros in the K padding).
    row = tl.program_id(0).to(tl.int64)
    src = a_ptr + row * K
    m = tl.full((BLOCK,), -float("inf"), dtype=tl.float32)
    for k0 in range(0, K, BLOCK):
        offs = k0 + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(src + offs, mask=offs < K, other=-float("inf")))
    mx = tl.max(m, axis=0)
    tl.store(ma_ptr + row, mx)
    dst = ea_ptr + row * KP
    for k0 in range(0, KP, BLOCK):
        offs = k0 + tl.arange(0, BLOCK)
        x = tl.load(src + offs, mask=offs < K, other=-float("inf"))
        tl.store(dst + offs, _exp_tf32(x - mx), mask=offs < KP)


@triton.jit
def _col_max_partial_kernel(b_ptr, part_ptr, K, N, K_CHUNK, BN: tl.constexpr, BR: tl.constexpr):
    # Maxima of the columns of b over one chunk of K_CHUNK rows (a multiple of BR): part[split, n].
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    cols = pid_n * BN + tl.arange(0, BN)
    col_mask = cols < N
    m = tl.full((BR, BN), -float("inf"), dtype=tl.float32)
    for r0 in range(split * K_CHUNK, tl.minimum((split + 1) * K_CHUNK, K), BR):
        rows = r0 + tl.arange(0, BR)
        x = tl.load(b_ptr + rows.to(tl.int64)[:, None] * N + cols[None, :],
                    mask=(rows[:, None] < K) & col_mask[None, :], other=-float("inf"))
        m = tl.maximum(m, x)
    tl.store(part_ptr + split * N + cols, tl.max(m, axis=0), mask=col_mask)


@triton.jit
def _exp_cols_t_kernel(b_ptr, part_ptr, ebt_ptr, mb_ptr, K, N, KP, SPLIT, BN: tl.constexpr, BR: tl.constexpr):
    # The column maxima from the partial ones, then exp(b - max) for a BR x BN tile, stored transposed in ebt.
    pid_n = tl.program_id(0)
    pid_k = tl.program_id(1)
    cols = pid_n * BN + tl.arange(0, BN)
    col_mask = cols < N
    mx = tl.full((BN,), -float("inf"), dtype=tl.float32)
    for s in range(0, SPLIT):
        mx = tl.maximum(mx, tl.load(part_ptr + s * N + cols, mask=col_mask, other=-float("inf")))
    mx = tl.where(col_mask, mx, 0.0)
    if pid_k == 0:
        tl.store(mb_ptr + cols, mx, mask=col_mask)
    rows = pid_k * BR + tl.arange(0, BR)
    x = tl.load(b_ptr + rows.to(tl.int64)[:, None] * N + cols[None, :],
                mask=(rows[:, None] < K) & col_mask[None, :], other=-float("inf"))
    e = _exp_tf32(x - mx[None, :])
    tl.store(ebt_ptr + cols.to(tl.int64)[None, :] * KP + rows[:, None], e,
             mask=(rows[:, None] < KP) & col_mask[None, :])


@triton.autotune(configs=_CONFIGS, key=["M", "N", "KP"])
@triton.jit
def _lse_gemm_kernel(ea_desc, ebt_desc, ma_ptr, mb_ptr, c_ptr, M, N, KP, BM: tl.constexpr, BN: tl.constexpr,
                     BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    group = GROUP_M * grid_n
    first_m = (pid // group) * GROUP_M
    size_m = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    off_m = pid_m * BM
    off_n = pid_n * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, KP, BK):
        a = ea_desc.load([off_m, k0])
        b = ebt_desc.load([off_n, k0])
        acc = tl.dot(a, b.T, acc, input_precision="tf32")
    rm = off_m + tl.arange(0, BM)
    rn = off_n + tl.arange(0, BN)
    mask_m = rm < M
    mask_n = rn < N
    ma = tl.load(ma_ptr + rm, mask=mask_m, other=0.0)
    mb = tl.load(mb_ptr + rn, mask=mask_n, other=0.0)
    out = tl.log(acc) + ma[:, None] + mb[None, :]
    tl.store(c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], out, mask=mask_m[:, None] & mask_n[None, :])


def logsumexp_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    dev = a.device
    kp = triton.cdiv(k, _K_PAD) * _K_PAD  # also keeps the descriptors' row stride a multiple of 16 bytes
    ea = torch.empty((m, kp), dtype=torch.float32, device=dev)
    ebt = torch.empty((n, kp), dtype=torch.float32, device=dev)
    ma = torch.empty((m,), dtype=torch.float32, device=dev)
    mb = torch.empty((n,), dtype=torch.float32, device=dev)
    out = torch.empty((m, n), dtype=torch.float32, device=dev)

    _exp_rows_kernel[(m,)](a, ea, ma, k, kp, BLOCK=1024, num_warps=4)

    bn, br = 64, 64
    col_blocks = triton.cdiv(n, bn)
    split = max(1, min(triton.cdiv(k, br), triton.cdiv(528, col_blocks)))  # about four programs per SM
    k_chunk = triton.cdiv(triton.cdiv(k, split), br) * br
    split = triton.cdiv(k, k_chunk)
    part = torch.empty((split, n), dtype=torch.float32, device=dev)
    _col_max_partial_kernel[(col_blocks, split)](b, part, k, n, k_chunk, BN=bn, BR=br, num_warps=4)
    _exp_cols_t_kernel[(col_blocks, triton.cdiv(kp, br))](b, part, ebt, mb, k, n, kp, split, BN=bn, BR=br,
                                                           num_warps=4)

    # block shapes are set per config by _set_block_shapes
    ea_desc = TensorDescriptor.from_tensor(ea, [128, 32])
    ebt_desc = TensorDescriptor.from_tensor(ebt, [128, 32])
    grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
    _lse_gemm_kernel[grid](ea_desc, ebt_desc, ma, mb, out, m, n, kp)
    return out
