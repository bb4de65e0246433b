import torch
import triton
import triton.language as tl


# Memory-bound: flat 16 KB blocks, the select and both multiplies in registers. Full blocks take an unmasked
# path so the accesses stay 16-byte vectors whatever the element count; only the last block is masked.
@triton.jit
def _leaky_relu_scale_kernel(x_ptr, out_ptr, n_elements, slope, scale, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n_elements:
        x = tl.load(x_ptr + offsets, eviction_policy="evict_first").to(tl.float32)
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
    block = 16384 // x.element_size()
    _leaky_relu_scale_kernel[(triton.cdiv(n, block),)](x, out, n, float(slope), float(scale), BLOCK=block,
                                                         num_warps=8)
    return out
