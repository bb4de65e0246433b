import os

import torch
import triton
import triton.language as tl

# Plain Triton's best (the standard suite's w4a16-gemm-prefill kernel, retuned for M of 100 to 256): a
# tensor-core GEMM whose B operand is dequantized in registers. Each program owns a (BLOCK_M, BLOCK_N) output
# tile and walks K one 128-row group at a time (the group of the scales): it loads the x tile, the group's
# (16, BLOCK_N) int32 words and its scale and zero rows, unpacks the eight nibbles of each word with shifts into
# the (128, BLOCK_N) tile in K order, dequantizes in fp32 (codes made floats by the same exponent trick as the
# Gluon oracle), rounds to bf16 once, and feeds tl.dot, which the compiler pipelines over num_stages. The
# weight is read at a quarter of bf16's bytes and never written back dequantized; grouped tile order for L2
# reuse; autotuned.
_CONFIGS = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "GROUP_M": 8}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "GROUP_M": 8}, num_warps=8, num_stages=2),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "GROUP_M": 8}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "GROUP_M": 8}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "GROUP_M": 8}, num_warps=8, num_stages=2),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "GROUP_M": 8}, num_warps=4, num_stages=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 256, "GROUP_M": 8}, num_warps=8, num_stages=3),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _w4a16_gemm_kernel(x_ptr, qw_ptr, s_ptr, z_ptr, y_ptr, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * num_pid_n
    first_m = (pid // width) * GROUP_M
    group_size = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % group_size
    pid_n = (pid % width) // group_size
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    m_mask = offs_m < M
    n_mask = offs_n < N
    offs_k = tl.arange(0, 128)
    offs_r = tl.arange(0, 16)
    shifts = 4 * tl.arange(0, 8)
    x_ptrs = x_ptr + offs_m.to(tl.int64)[:, None] * K + offs_k[None, :]
    w_ptrs = qw_ptr + offs_r[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for g in range(0, K // 128):
        a = tl.load(x_ptrs, mask=m_mask[:, None], other=0.0)
        w = tl.load(w_ptrs, mask=n_mask[None, :], other=0)
        s = tl.load(s_ptr + g * N + offs_n, mask=n_mask, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + g * N + offs_n, mask=n_mask, other=0.0).to(tl.float32)
        q = (w[:, None, :] >> shifts[None, :, None]) & 0xF  # (16, 8, BLOCK_N): row 8 r + j is k's nibble j
        # q | 0x4B000000 read as float32 is 2^23 + q exactly: no int-to-float conversion (a quarter-rate op).
        q = (tl.reshape(q, (128, BLOCK_N)) | 0x4B000000).to(tl.float32, bitcast=True)
        b = ((q - (z[None, :] + 8388608.0)) * s[None, :]).to(tl.bfloat16)  # exact in fp32, rounded once
        acc = tl.dot(a, b, acc)
        x_ptrs += 128
        w_ptrs += 16 * N
    y_ptrs = y_ptr + offs_m.to(tl.int64)[:, None] * N + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=m_mask[:, None] & n_mask[None, :])


def w4a16_gemm(x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor,
                       zeros: torch.Tensor) -> torch.Tensor:
    M, K = x.shape
    N = qweight.shape[1]
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    _w4a16_gemm_kernel[grid](x, qweight, scales, zeros, y, M, N, K)
    return y
