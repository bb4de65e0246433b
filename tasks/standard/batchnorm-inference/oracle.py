import torch
import triton
import triton.language as tl


# x viewed as (N*C, H*W) rows: each tile covers BLOCK_R rows x BLOCK_HW columns, folds the four per-channel
# parameters into one scale and shift per row (no per-element index division), then streams x once with a
# single FMA per element and 16-byte vector accesses.
@triton.jit
def _batchnorm_kernel(x_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, out_ptr, n_rows, n_channels, hw, eps,
                      BLOCK_R: tl.constexpr, BLOCK_HW: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_HW + tl.arange(0, BLOCK_HW)
    row_mask = rows < n_rows
    channel = rows % n_channels
    mean = tl.load(mean_ptr + channel, mask=row_mask, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + channel, mask=row_mask, other=1.0).to(tl.float32)
    w = tl.load(w_ptr + channel, mask=row_mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + channel, mask=row_mask, other=0.0).to(tl.float32)
    scale = w / tl.sqrt(var + eps)
    shift = b - mean * scale
    mask = row_mask[:, None] & (cols < hw)[None, :]
    offsets = rows.to(tl.int64)[:, None] * hw + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    y = x * scale[:, None] + shift[:, None]
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def batchnorm_inference(x: torch.Tensor, running_mean: torch.Tensor, running_var: torch.Tensor,
                        weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    n, c, h, w = x.shape
    hw = h * w
    rows = n * c
    out = torch.empty_like(x)
    block_hw = min(2048, triton.next_power_of_2(hw))
    block_r = max(1, 4096 // block_hw)
    grid = (triton.cdiv(rows, block_r), triton.cdiv(hw, block_hw))
    _batchnorm_kernel[grid](x, running_mean, running_var, weight, bias, out, rows, c, hw, float(eps),
                            BLOCK_R=block_r, BLOCK_HW=block_hw, num_warps=8)
    return out
