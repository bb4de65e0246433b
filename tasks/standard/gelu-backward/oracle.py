import torch
import triton
import triton.language as tl

_INV_SQRT2 = tl.constexpr(0.7071067811865476)
_INV_SQRT_2PI = tl.constexpr(0.3989422804014327)
_HALF_LOG2E = tl.constexpr(0.7213475204444817)  # 0.5 * log2(e)


# One pass over memory: two bf16 loads and one bf16 store per element, BLOCK elements per program.
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 4096}, num_warps=8),
        triton.Config({"BLOCK": 1024}, num_warps=4),
    ],
    key=["n"],
)
@triton.jit
def _gelu_bwd_kernel(x_ptr, dy_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    dy = tl.load(dy_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    cdf = 0.5 * (1.0 + tl.math.erf(x * _INV_SQRT2))
    pdf = tl.exp2(-_HALF_LOG2E * x * x) * _INV_SQRT_2PI
    tl.store(dx_ptr + offs, (dy * (cdf + x * pdf)).to(dx_ptr.dtype.element_ty), mask=mask)


def gelu_backward(x, dy):
    dx = torch.empty_like(x)
    n = x.numel()
    _gelu_bwd_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, dy, dx, n)
    return dx
