import torch
import triton
import triton.language as tl

_C = tl.constexpr(0.7978845608028654)  # sqrt(2 / pi)
_NEG_2C_LOG2E = tl.constexpr(-2.0 * 0.7978845608028654 * 1.4426950408889634)


# One pass over memory: three bf16 loads, two bf16 stores per element. With s = sigmoid(2 z):
# 0.5 * (1 + t) = s and 1 - t^2 = 4 s (1 - s), so one exp2 and one divide give everything.
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 4096}, num_warps=8),
        triton.Config({"BLOCK": 1024}, num_warps=4),
    ],
    key=["n"],
)
@triton.jit
def _geglu_bwd_kernel(g_ptr, u_ptr, do_ptr, dg_ptr, du_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    do = tl.load(do_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    g2 = g * g
    s = 1.0 / (1.0 + tl.exp2(_NEG_2C_LOG2E * (g + 0.044715 * g2 * g)))
    du = do * g * s
    dgelu = s + 2.0 * g * s * (1.0 - s) * _C * (1.0 + 0.134145 * g2)
    dg = do * u * dgelu
    tl.store(dg_ptr + offs, dg.to(dg_ptr.dtype.element_ty), mask=mask)
    tl.store(du_ptr + offs, du.to(du_ptr.dtype.element_ty), mask=mask)


def geglu_backward(g, u, dout):
    dg = torch.empty_like(g)
    du = torch.empty_like(g)
    n = g.numel()
    _geglu_bwd_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](g, u, dout, dg, du, n)
    return dg, du
