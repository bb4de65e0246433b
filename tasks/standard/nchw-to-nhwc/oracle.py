import torch
import triton
import triton.language as tl


# A batched 2-D transpose, (C, H*W) -> (H*W, C) per image: each program moves a (BLOCK_C, BLOCK_S) tile,
# loaded with 16-byte vectors along the pixel axis and stored with 16-byte vectors along the channel axis
# (Triton converts the register layout through shared memory in between). One read, one write per element.
# C and S = H*W are compile-time constants so that row starts are provably aligned (16-byte vectors); as
# runtime integers that are not multiples of 16 Triton cannot prove it (see standard/transpose-2d).
@triton.jit
def _nchw_to_nhwc_kernel(x_ptr, out_ptr, C: tl.constexpr, S: tl.constexpr, tiles_s, BLOCK_C: tl.constexpr, BLOCK_S: tl.constexpr):
    pid = tl.program_id(0)
    n = tl.program_id(1)
    pid_c = pid // tiles_s
    pid_s = pid - pid_c * tiles_s
    offs_c = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    offs_s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)
    mask = (offs_c < C)[:, None] & (offs_s < S)[None, :]
    img = n.to(tl.int64) * C * S
    v = tl.load(x_ptr + img + offs_c[:, None].to(tl.int64) * S + offs_s[None, :], mask=mask)
    tl.store(out_ptr + img + offs_s[None, :].to(tl.int64) * C + offs_c[:, None], v, mask=mask)


def nchw_to_nhwc(x: torch.Tensor) -> torch.Tensor:
    n, c, h, w = x.shape
    s = h * w
    out = torch.empty((n, h, w, c), dtype=x.dtype, device=x.device)
    block_c = min(64, triton.next_power_of_2(c))
    block_s = 64
    tiles_s = triton.cdiv(s, block_s)
    grid = (triton.cdiv(c, block_c) * tiles_s, n)
    _nchw_to_nhwc_kernel[grid](x, out, c, s, tiles_s, BLOCK_C=block_c, BLOCK_S=block_s, num_warps=4)
    return out
