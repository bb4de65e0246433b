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


# Memory-bound: flat 16 KB blocks, one read and one write per element. Full blocks take an unmasked path so
# the accesses stay 16-byte vectors whatever the element count; only the last block is masked.
@triton.jit
def _gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n_elements:
        x = tl.load(x_ptr + offsets, eviction_policy="evict_first").to(tl.float32)
        tl.store(out_ptr + offsets, _gelu_tanh(x).to(out_ptr.dtype.element_ty))
    else:
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + offsets, _gelu_tanh(x).to(out_ptr.dtype.element_ty), mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    block = 16384 // x.element_size()
    _gelu_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block, num_warps=8)
    return out
