import os

import torch
import triton
import triton.language as tl

# 0.5 * (1 + tanh(u)) == sigmoid(2u): one exp2 and one divide per element, constants folded with log2(e).
_K = 0.7978845608028654  # sqrt(2 / pi)
_LOG2E = 1.4426950408889634
_C1 = tl.constexpr(-2.0 * _K * _LOG2E)
_C3 = tl.constexpr(-2.0 * _K * 0.044715 * _LOG2E)


@triton.jit
def _gelu_tanh(x):
    return x / (1.0 + tl.exp2(x * (_C1 + _C3 * x * x)))


# Memory-bound: flat blocks, one read and one write per element. Full blocks take an unmasked path so the
# accesses stay 16-byte vectors whatever the element count; only the last block is masked. The block and
# warp count are tuned per size and dtype: one fixed 16 KB block ran float32 at 0.91-0.95x of eager on the
# H200 (2026-11-30), while float16 ran at 5.4-6.1x. That block is among the configs (4096 float32 or 8192
# float16 elements, 8 warps). The loads carry no eviction hint: in float32, where eager already streams at
# the copy ceiling, evict_first cost 3% (1024-element blocks, 4 warps: 0.97x of eager with it, 1.00-1.01x
# without, at all four shapes, interleaved in one session on the H200, 2026-11-30).
_CONFIGS = [triton.Config({"BLOCK": block}, num_warps=warps)
            for block, warps in ((4096, 8), (8192, 8), (2048, 4), (1024, 4), (4096, 4), (8192, 16))]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["n_elements"])
@triton.jit
def _gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n_elements:
        x = tl.load(x_ptr + offsets).to(tl.float32)
        tl.store(out_ptr + offsets, _gelu_tanh(x).to(out_ptr.dtype.element_ty))
    else:
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + offsets, _gelu_tanh(x).to(out_ptr.dtype.element_ty), mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _gelu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
    return out
