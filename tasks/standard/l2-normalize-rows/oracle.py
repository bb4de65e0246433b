import torch
import triton
import triton.language as tl


# One program per row with the whole row in registers: x is read once and written once. The row length
# is a compile-time constant: a runtime n_cols that is not a multiple of 16 (3000, 777 at the held-out
# shapes) is not specialised, and then neither the row starts nor the mask can be proven aligned, so every
# access would be a single element (seen in the PTX for sm_90).
@triton.jit
def _l2_normalize_kernel(x_ptr, out_ptr, n_cols: tl.constexpr, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    norm = tl.maximum(tl.sqrt(tl.sum(x * x, axis=0)), eps)
    tl.store(out_ptr + row * n_cols + cols, (x / norm).to(out_ptr.dtype.element_ty), mask=mask)


def l2_normalize_rows(x: torch.Tensor, eps: float) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    block = triton.next_power_of_2(n)
    num_warps = 4 if block <= 1024 else 8 if block <= 4096 else 16
    _l2_normalize_kernel[(m,)](x, out, n, eps, BLOCK=block, num_warps=num_warps)
    return out
