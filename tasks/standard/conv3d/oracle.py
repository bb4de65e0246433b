import os

import torch
import triton
import triton.language as tl


# Implicit GEMM on tensor cores: output tile (BLOCK_M voxels) x (BLOCK_N out channels), reduction over the 27
# taps x C in one flat pipelined loop. Channels-last makes every A row (one voxel's channels at one tap) and
# every B column (one filter's channels at one tap) contiguous; zero padding is the load mask. Neighbouring
# programs share input voxels (L2), so HBM sees about one read of x.
_CONFIGS = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_C": 64}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_C": 64}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 64, "BLOCK_C": 64}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_C": 32}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_C": 64}, num_warps=4, num_stages=4),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["C", "K"])
@triton.jit
def _conv3d_kernel(x_ptr, w_ptr, out_ptr, P, D, H, W, C, K,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(K, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_c = tl.arange(0, BLOCK_C)
    m_mask = offs_m < P
    n_mask = offs_n < K
    ow = offs_m % W
    t = offs_m // W
    oh = t % H
    t = t // H
    od = t % D
    base = offs_m.to(tl.int64) * C  # the voxel itself; taps move by whole rows, planes and columns
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    num_cb = tl.cdiv(C, BLOCK_C)
    for kk in range(0, 27 * num_cb):
        tap = kk // num_cb
        c0 = (kk - tap * num_cb) * BLOCK_C
        dt = tap // 9 - 1
        dr = (tap // 3) % 3 - 1
        ds = tap % 3 - 1
        idd = od + dt
        ih = oh + dr
        iw = ow + ds
        valid = m_mask & (idd >= 0) & (idd < D) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        cs = c0 + offs_c
        c_mask = cs < C
        shift = ((dt * H + dr) * W + ds) * C
        a = tl.load(x_ptr + (base + shift)[:, None] + cs[None, :], mask=valid[:, None] & c_mask[None, :], other=0.0)
        b = tl.load(w_ptr + offs_n[None, :] * (27 * C) + tap * C + cs[:, None],
                    mask=c_mask[:, None] & n_mask[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
    out_ptrs = out_ptr + offs_m.to(tl.int64)[:, None] * K + offs_n[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=m_mask[:, None] & n_mask[None, :])


def conv3d(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    n, d, h, w, c = x.shape
    k = weight.shape[0]
    out = torch.empty((n, d, h, w, k), dtype=x.dtype, device=x.device)
    p = n * d * h * w
    grid = lambda meta: (triton.cdiv(p, meta["BLOCK_M"]) * triton.cdiv(k, meta["BLOCK_N"]),)
    _conv3d_kernel[grid](x, weight, out, p, d, h, w, c, k)
    return out
