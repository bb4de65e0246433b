import os

import torch
import triton
import triton.language as tl

# Bound by streaming the packed weight once (a quarter of bf16's bytes plus 1/32 for the scales). Each program
# owns BLOCK_N rows of W and walks K 128 values (64 bytes) at a time: it loads the (BLOCK_N, 64) bytes and their
# e8m0 scales, decodes the low and high nibbles with integer ops into two bf16 tiles (exact: fp4 times a power
# of two), and multiplies each on the tensor cores "swapped" (W_tile @ x^T, the tokens padded to 16) against
# the even and the odd columns of x: the K order inside a step does not change the sum, so no interleave.
# Autotuned over tile widths and pipeline depth.
_CONFIGS = [
    triton.Config({"BLOCK_N": 64}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_N": 32}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_N": 128}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_N": 64}, num_warps=2, num_stages=6),
    triton.Config({"BLOCK_N": 128}, num_warps=8, num_stages=3),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    _CONFIGS = _CONFIGS[:1]


@triton.jit
def _e2m1_value(c, scale):
    """fp32 value of e2m1 codes c (int32, 0..15) times scale."""
    e = (c >> 1) & 3
    m = (c & 1).to(tl.float32)
    pow2 = ((e + 126) << 23).to(tl.float32, bitcast=True)  # 2^(e - 1)
    mag = tl.where(e == 0, 0.5 * m, pow2 * (1.0 + 0.5 * m))
    return tl.where((c & 8) != 0, -mag, mag) * scale


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _mxfp4_gemv_kernel(x_ptr, wq_ptr, s_ptr, y_ptr, M, N, K, MP: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_mask = offs_n < N
    offs_m = tl.arange(0, MP)
    m_mask = offs_m < M
    offs_i = tl.arange(0, 64)  # bytes of one step: k = k0 + 2 i (low nibble) and k0 + 2 i + 1 (high)
    rows = offs_n.to(tl.int64)[:, None]
    acc = tl.zeros((BLOCK_N, MP), dtype=tl.float32)
    for k0 in range(0, K, 128):
        w = tl.load(wq_ptr + rows * (K // 2) + (k0 // 2 + offs_i)[None, :], mask=n_mask[:, None], other=0,
                    eviction_policy="evict_first").to(tl.int32)
        sc = tl.load(s_ptr + rows * (K // 32) + (k0 // 32 + offs_i // 16)[None, :], mask=n_mask[:, None], other=127)
        scale = (sc.to(tl.int32) << 23).to(tl.float32, bitcast=True)  # 2^(sc - 127)
        w_even = _e2m1_value(w & 0xF, scale).to(tl.bfloat16)
        w_odd = _e2m1_value(w >> 4, scale).to(tl.bfloat16)
        x_even = tl.load(x_ptr + offs_m[None, :] * K + (k0 + 2 * offs_i)[:, None], mask=m_mask[None, :], other=0.0)
        x_odd = tl.load(x_ptr + offs_m[None, :] * K + (k0 + 2 * offs_i + 1)[:, None], mask=m_mask[None, :],
                        other=0.0)
        acc = tl.dot(w_even, x_even, acc)
        acc = tl.dot(w_odd, x_odd, acc)
    y_ptrs = y_ptr + offs_m[None, :] * N + offs_n[:, None]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=n_mask[:, None] & m_mask[None, :])


def mxfp4_gemm(x: torch.Tensor, wq: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    M, K = x.shape
    N = wq.shape[0]
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]),)
    _mxfp4_gemv_kernel[grid](x, wq, scales, y, M, N, K, MP=max(16, triton.next_power_of_2(M)))
    return y
