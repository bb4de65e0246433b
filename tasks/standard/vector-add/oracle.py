import os

import torch
import triton
import triton.language as tl

# Memory-bound: flat blocks, one load per operand and one store per element. Full blocks take an unmasked
# path: with a mask against an element count that is not a multiple of 16 (the held-out shapes), Triton
# cannot prove 16-byte alignment and every access would be a 4-byte one. Only the last block is masked.
# Block and warp count are tuned per size; the first config is the one fixed block this oracle had before.
# No eviction hint on the loads: on gelu's kernel of the same shape it cost 3% on the H200 (2026-11-30),
# where this kernel ran 0.95x of eager at 16M elements with it (not yet re-measured without).
_CONFIGS = [triton.Config({"BLOCK": block}, num_warps=warps)
            for block, warps in ((4096, 8), (8192, 8), (2048, 4), (1024, 4), (4096, 4), (8192, 16))]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["n_elements"])
@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n_elements:
        x = tl.load(x_ptr + offsets)
        y = tl.load(y_ptr + offsets)
        tl.store(out_ptr + offsets, x + y)
    else:
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)


def vector_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, out, n)
    return out
