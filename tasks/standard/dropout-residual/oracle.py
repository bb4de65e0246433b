import torch
import triton
import triton.language as tl


# One pass over memory: the hash is a handful of uint32 integer ops per element (wrapping multiplies,
# logical shifts), far below the memory time; x and residual are read once and out written once.
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 4096}, num_warps=8),
        triton.Config({"BLOCK": 1024}, num_warps=4),
    ],
    key=["n"],
)
@triton.jit
def _dropout_residual_kernel(x_ptr, r_ptr, out_ptr, n, seed_mix, threshold, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    r = tl.load(r_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    h = offs.to(tl.uint32) + seed_mix.to(tl.uint32)
    h = h ^ (h >> 16)
    h = h * tl.full((), 0x7FEB352D, tl.uint32)
    h = h ^ (h >> 15)
    h = h * tl.full((), 0x846CA68B, tl.uint32)
    h = h ^ (h >> 16)
    keep = h >= threshold.to(tl.uint32)
    out = r + tl.where(keep, x * scale, 0.0)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def dropout_residual(x, residual, p, seed):
    out = torch.empty_like(x)
    n = x.numel()
    # Host-side scalar arithmetic on the Python arguments (no tensor work): the seed's contribution and T.
    seed_mix = (int(seed) * 0x9E3779B9) % (1 << 32)
    threshold = int(p * 4294967296.0)
    # Passed as int64 so values >= 2^31 keep their bits; the kernel truncates them to uint32.
    _dropout_residual_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](
        x, residual, out, n, seed_mix, threshold, 1.0 / (1.0 - p))
    return out
