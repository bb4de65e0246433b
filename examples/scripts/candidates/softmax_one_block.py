import torch
import triton
import triton.language as tl


# A plausible first attempt with a real bug: the block is capped at 128 columns and there is no loop
# over the rest of the row, so longer rows are normalised over their first 128 columns only (and the
# rest of the output is never written).
@triton.jit
def _softmax_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    result = numerator / tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * stride + cols, result.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    block = min(triton.next_power_of_2(n), 128)
    _softmax_kernel[(m,)](x, out, n, x.stride(0), BLOCK=block)
    return out
