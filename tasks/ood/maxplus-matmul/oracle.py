import os

import torch
import triton
import triton.language as tl


# No tensor cores for (max, +): a register-tiled outer-product loop on the FP32 pipes. Each program owns a
# BM x BN tile (one add + one max per element per k), the a column and b row of each k come from L1/L2, and
# programs are grouped along M so neighbouring tiles share b in L2.
_CONFIGS = [
    triton.Config({"BM": 128, "BN": 128, "U": 4, "GROUP_M": 8}, num_warps=4, num_stages=1),
    triton.Config({"BM": 256, "BN": 128, "U": 4, "GROUP_M": 8}, num_warps=8, num_stages=1),
    triton.Config({"BM": 128, "BN": 64, "U": 4, "GROUP_M": 8}, num_warps=4, num_stages=1),
    # two-warp tiles (131 and 186 registers and no stack on sm_90; the four-warp ones use 255 and spill outside
    # the k loop): more programs at once, and a shorter last wave on shapes like 5000 x 1234, whose 128-wide
    # tiles fill 1.5 waves
    triton.Config({"BM": 64, "BN": 64, "U": 4, "GROUP_M": 8}, num_warps=2, num_stages=1),
    triton.Config({"BM": 64, "BN": 128, "U": 4, "GROUP_M": 8}, num_warps=2, num_stages=1),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _maxplus_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, U: tl.constexpr,
                    GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    group = GROUP_M * grid_n
    first_m = (pid // group) * GROUP_M
    size_m = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask_m = rm < M
    mask_n = rn < N
    a_ptrs = a_ptr + rm.to(tl.int64) * K
    b_ptrs = b_ptr + rn
    acc = tl.full((BM, BN), -float("inf"), dtype=tl.float32)
    k_main = (K // U) * U
    for k0 in range(0, k_main, U):  # unrolled by U so the loads of U steps are issued together
        for u in tl.static_range(U):
            a = tl.load(a_ptrs + (k0 + u), mask=mask_m, other=0.0)
            b = tl.load(b_ptrs + (k0 + u) * N, mask=mask_n, other=0.0)
            acc = tl.maximum(acc, a[:, None] + b[None, :])
    for k in range(k_main, K):
        a = tl.load(a_ptrs + k, mask=mask_m, other=0.0)
        b = tl.load(b_ptrs + k * N, mask=mask_n, other=0.0)
        acc = tl.maximum(acc, a[:, None] + b[None, :])
    c_ptrs = c_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :]
    tl.store(c_ptrs, acc, mask=mask_m[:, None] & mask_n[None, :])


def maxplus_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    out = torch.empty((m, n), dtype=torch.float32, device=a.device)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
    _maxplus_kernel[grid](a, b, out, m, n, k)
    return out
