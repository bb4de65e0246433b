import os

import torch
import triton
import triton.language as tl

# Bound by streaming the packed weight once (a quarter of bf16's bytes). Each program owns BLOCK_N columns and
# walks K one 128-row group at a time: it loads the group's (16, BLOCK_N) int32 words, its scale and zero rows,
# unpacks the eight nibbles of every word with shifts, dequantizes in fp32 and rounds to bf16 (round to
# nearest even in integer ops, as the reference's cast), and multiplies on the tensor cores with the tokens
# padded to 16 rows. The K order inside a group is irrelevant to the sum, so nibble j of every word is one
# 16-deep slice dotted with the matching strided columns of x: no reshape of the unpacked tile. Enough
# programs (BLOCK_N 32-64) to keep HBM busy; autotuned.
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
def _round_bf16(v):
    """v rounded to the nearest bfloat16 (ties to even), kept in float32. Integer ops, so the interpreter (whose
    float32 -> bfloat16 cast truncates) rounds as the GPU does."""
    bits = v.to(tl.uint32, bitcast=True)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.to(tl.float32, bitcast=True)


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _w4a16_gemv_kernel(x_ptr, qw_ptr, s_ptr, z_ptr, y_ptr, M, N, K, MP: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_mask = offs_n < N
    offs_m = tl.arange(0, MP)
    m_mask = offs_m < M
    offs_r = tl.arange(0, 16)  # the 16 int32 words (128 k) of one group
    acc = tl.zeros((MP, BLOCK_N), dtype=tl.float32)
    for g in range(0, K // 128):
        w = tl.load(qw_ptr + (g * 16 + offs_r).to(tl.int64)[:, None] * N + offs_n[None, :],
                    mask=n_mask[None, :], other=0, eviction_policy="evict_first")
        s = tl.load(s_ptr + g * N + offs_n, mask=n_mask, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + g * N + offs_n, mask=n_mask, other=0.0).to(tl.float32)
        for j in tl.static_range(8):
            q = ((w >> (4 * j)) & 0xF).to(tl.float32)
            wj = _round_bf16((q - z[None, :]) * s[None, :]).to(tl.bfloat16)  # exact: already bf16 values
            # columns k = 128 g + 8 r + j of x
            xj = tl.load(x_ptr + offs_m[:, None] * K + (g * 128 + 8 * offs_r + j)[None, :], mask=m_mask[:, None],
                         other=0.0)
            acc = tl.dot(xj, wj, acc)
    y_ptrs = y_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=m_mask[:, None] & n_mask[None, :])


def w4a16_gemm(x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor) -> torch.Tensor:
    M, K = x.shape
    N = qweight.shape[1]
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]),)
    _w4a16_gemv_kernel[grid](x, qweight, scales, zeros, y, M, N, K, MP=max(16, triton.next_power_of_2(M)))
    return y
