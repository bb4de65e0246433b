import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def _block_shapes(named):
    # The descriptors' blocks follow the config the autotuner tries.
    bm, bn, bk = named["BLOCK_M"], named["BLOCK_N"], named["BLOCK_K"]
    named["a_desc"].block_shape = [bm, bk]
    named["b_desc"].block_shape = [bk, bn]
    named["c_desc"].block_shape = [bm, bn]


def _config(bm, bn, bk, stages, warps):
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=stages,
                         num_warps=warps, pre_hook=_block_shapes)


_CONFIGS = [
    _config(128, 256, 64, 3, 8),
    _config(128, 256, 64, 4, 8),
    _config(256, 128, 64, 3, 8),
    _config(128, 128, 64, 4, 4),
    _config(128, 128, 64, 5, 8),
    _config(128, 128, 128, 3, 8),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    _CONFIGS = _CONFIGS[:1]


# The best plain Triton for Hopper: host tensor descriptors (TMA loads and store), tl.dot lowered to pipelined
# wgmma over num_stages buffers, grouped tile order for L2 reuse, the bias and exact GELU fused into the
# epilogue on the fp32 accumulator, tile shape and depth autotuned per shape.
@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _linear_gelu_kernel(a_desc, b_desc, c_desc, bias_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, off_n])
        acc = tl.dot(a, b, acc)
    offs_n = off_n + tl.arange(0, BLOCK_N)
    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)
    x = acc + bias[None, :]
    out = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    c_desc.store([off_m, off_n], out.to(c_desc.dtype))


def linear_gelu(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    # Placeholder blocks: the autotuner's pre_hook sets each config's own.
    a_desc = TensorDescriptor.from_tensor(a, [1, 1])
    b_desc = TensorDescriptor.from_tensor(b, [1, 1])
    c_desc = TensorDescriptor.from_tensor(c, [1, 1])

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]), )

    _linear_gelu_kernel[grid](a_desc, b_desc, c_desc, bias, m, n, k)
    return c
