import os

import torch
import triton
import triton.language as tl

# Bound by streaming the int8 weight once (half the bytes of bf16). Each program owns BLOCK_N rows of W and
# walks K in BLOCK_K steps: the int8 tile is widened to bf16 in registers (exact for |q| <= 127) and multiplied
# "swapped" (W_tile @ x^T, the tokens padded to 16 as the MMA's narrow side). The epilogue applies the channel
# scale to the fp32 accumulator and rounds once. Autotuned over tiles and stages.
_CONFIGS = [
    triton.Config({"BLOCK_N": 64, "BLOCK_K": 256}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_N": 32, "BLOCK_K": 512}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_N": 64, "BLOCK_K": 512}, num_warps=4, num_stages=3),
    triton.Config({"BLOCK_N": 16, "BLOCK_K": 1024}, num_warps=4, num_stages=3),
    triton.Config({"BLOCK_N": 128, "BLOCK_K": 256}, num_warps=8, num_stages=4),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _int8_gemv_kernel(x_ptr, w_ptr, s_ptr, y_ptr, M, N, K, MP: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, MP)
    offs_k = tl.arange(0, BLOCK_K)
    n_mask = offs_n < N
    m_mask = offs_m < M
    w_ptrs = w_ptr + offs_n.to(tl.int64)[:, None] * K + offs_k[None, :]
    x_ptrs = x_ptr + offs_m[None, :] * K + offs_k[:, None]
    acc = tl.zeros((BLOCK_N, MP), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_mask = (k0 + offs_k) < K
        w = tl.load(w_ptrs, mask=n_mask[:, None] & k_mask[None, :], other=0, eviction_policy="evict_first")
        xt = tl.load(x_ptrs, mask=k_mask[:, None] & m_mask[None, :], other=0.0)
        acc = tl.dot(w.to(tl.float32).to(tl.bfloat16), xt, acc)  # via fp32: the interpreter bitcasts int8 -> bf16
        w_ptrs += BLOCK_K
        x_ptrs += BLOCK_K
    s = tl.load(s_ptr + offs_n, mask=n_mask, other=0.0)
    y = acc * s[:, None]
    y_ptrs = y_ptr + offs_m[None, :] * N + offs_n[:, None]
    tl.store(y_ptrs, y.to(y_ptr.dtype.element_ty), mask=n_mask[:, None] & m_mask[None, :])


def int8_weight_gemv(x: torch.Tensor, wq: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    M, K = x.shape
    N = wq.shape[0]
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]),)
    _int8_gemv_kernel[grid](x, wq, scale, y, M, N, K, MP=max(16, triton.next_power_of_2(M)))
    return y
