import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)


# One pass over memory: three bf16 loads and two bf16 stores per element, BLOCK elements per program,
# 16-byte vector accesses (the flat index is a multiple of BLOCK); the sigmoid is one exp2 and one divide.
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 4096}, num_warps=8),
        triton.Config({"BLOCK": 1024}, num_warps=4),
    ],
    key=["n"],
)
@triton.jit
def _swiglu_bwd_kernel(g_ptr, u_ptr, do_ptr, dg_ptr, du_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    do = tl.load(do_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    sig = 1.0 / (1.0 + tl.exp2(-g * _LOG2E))
    silu = g * sig
    du = do * silu
    dg = do * u * sig * (1.0 + g * (1.0 - sig))
    tl.store(dg_ptr + offs, dg.to(dg_ptr.dtype.element_ty), mask=mask)
    tl.store(du_ptr + offs, du.to(du_ptr.dtype.element_ty), mask=mask)


def swiglu_backward(g, u, dout):
    dg = torch.empty_like(g)
    du = torch.empty_like(g)
    n = g.numel()
    _swiglu_bwd_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](g, u, dout, dg, du, n)
    return dg, du
