import torch
import triton
import triton.language as tl

# 0.5 * (1 + tanh(u)) == sigmoid(2u): one exp2 and one divide per element, constants folded with log2(e).
_K = 0.7978845608028654  # sqrt(2 / pi)
_LOG2E = 1.4426950408889634
_C1 = -2.0 * _K * _LOG2E
_C3 = -2.0 * _K * 0.044715 * _LOG2E


# Memory-bound: flat 16 KB blocks, 16-byte vector loads/stores, one read and one write per element.
@triton.jit
def _gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, eviction_policy="evict_first").to(tl.float32)
    t = x * (_C1 + _C3 * x * x)
    y = x / (1.0 + tl.exp2(t))
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    block = 16384 // x.element_size()
    _gelu_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block, num_warps=8)
    return out
