import torch
import triton
import triton.language as tl

_NEG_2C_LOG2E = tl.constexpr(-2.0 * 0.7978845608028654 * 1.4426950408889634)  # -2 sqrt(2/pi) log2(e)


# One pass over memory. 0.5 * g * (1 + tanh(z)) = g * sigmoid(2 z) = g / (1 + exp(-2 z)): one exp2 and
# one divide per element, no tanh.
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 4096}, num_warps=8),
        triton.Config({"BLOCK": 1024}, num_warps=4),
    ],
    key=["n"],
)
@triton.jit
def _geglu_kernel(g_ptr, u_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    gelu = g / (1.0 + tl.exp2(_NEG_2C_LOG2E * (g + 0.044715 * g * g * g)))
    tl.store(out_ptr + offs, (gelu * u).to(out_ptr.dtype.element_ty), mask=mask)


def geglu(g, u):
    out = torch.empty_like(g)
    n = g.numel()
    _geglu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](g, u, out, n)
    return out
