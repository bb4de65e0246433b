import os

import torch
import triton
import triton.language as tl


# Memory-bound: flat blocks, the select and both multiplies in registers. Full blocks take an unmasked path so
# the accesses stay 16-byte vectors whatever the element count; only the last block is masked. Block and warp
# count are tuned per size and dtype: the same fixed 16 KB block in standard/gelu ran float32 at 0.91-0.95x of
# eager on the H200 (2026-11-30). That block is among the configs (4096 float32 or 8192 float16 elements).
# No eviction hint on the loads: evict_first cost gelu's kernel 3% in float32 (2026-11-30), and this one ran
# 0.97x of torch.compile at 8192x8192 with it (2026-12-03).
_CONFIGS = [triton.Config({"BLOCK": block}, num_warps=warps)
            for block, warps in ((4096, 8), (8192, 8), (2048, 4), (1024, 4), (4096, 4), (8192, 16))]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["n_elements"])
@triton.jit
def _leaky_relu_scale_kernel(x_ptr, out_ptr, n_elements, slope, scale, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n_elements:
        x = tl.load(x_ptr + offsets).to(tl.float32)
        y = tl.where(x > 0, x, x * slope) * scale
        tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty))
    else:
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        y = tl.where(x > 0, x, x * slope) * scale
        tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def leaky_relu_scale(x: torch.Tensor, slope: float, scale: float) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _leaky_relu_scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n, float(slope), float(scale))
    return out
