import os

import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)
NEG_BIG = tl.constexpr(-1.0e30)  # finite stand-in for -inf past the row end: no inf - inf in the update

# Best plain Triton for rows too long for registers (a 64K-element row as fp32 spills at any warp count):
# one program per row, an online max/sum pass over 16-byte-vector blocks (kept in L2 with evict_last) and a
# normalising pass that reads the row again (evict_first: most of it still in L2, since only a few rows per
# SM are in flight). Block size and warps autotuned.
_CONFIGS = [
    triton.Config({"BLOCK": 4096}, num_warps=8),
    triton.Config({"BLOCK": 8192}, num_warps=8),
    triton.Config({"BLOCK": 8192}, num_warps=16),
    triton.Config({"BLOCK": 16384}, num_warps=16),
    triton.Config({"BLOCK": 2048}, num_warps=4),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["n_vec"])
@triton.jit
def _softmax_two_pass_kernel(x_ptr, out_ptr, n_vec, VEC: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    n = n_vec * VEC
    base = row.to(tl.int64) * n
    offs = tl.arange(0, BLOCK)
    m_vec = tl.full([BLOCK], NEG_BIG, tl.float32)
    s_vec = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + base + cols, mask=cols < n, other=0.0, eviction_policy="evict_last").to(tl.float32)
        x = tl.where(cols < n, x, NEG_BIG)
        m_new = tl.maximum(m_vec, x)
        s_vec = s_vec * tl.exp2((m_vec - m_new) * LOG2E) + tl.exp2((x - m_new) * LOG2E)
        m_vec = m_new
    m = tl.max(m_vec, axis=0)
    inv = 1.0 / tl.sum(s_vec * tl.exp2((m_vec - m) * LOG2E), axis=0)
    for start in range(0, n, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + base + cols, mask=cols < n, other=0.0, eviction_policy="evict_first").to(tl.float32)
        y = tl.exp2((x - m) * LOG2E) * inv
        tl.store(out_ptr + base + cols, y.to(out_ptr.dtype.element_ty), mask=cols < n)


def softmax_long_rows(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    _softmax_two_pass_kernel[(m,)](x, out, n // 8, VEC=8)
    return out
