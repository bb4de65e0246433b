import torch
import triton
import triton.language as tl


# Two passes. 1: NP programs each sum the squares of a contiguous slice (float32 partials, 16-byte loads).
# 2: every program adds the NP partials in the same fixed order (so all agree on the norm), then scales its
# slice (last slice first, an L2 hit); program 0 writes the norm.
@triton.jit
def _sumsq_kernel(g_ptr, part_ptr, n, SLICE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    start = pid.to(tl.int64) * SLICE
    acc = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, SLICE, BLOCK):
        offs = start + off + tl.arange(0, BLOCK)
        x = tl.load(g_ptr + offs, mask=offs < n, other=0.0)
        acc += x * x
    tl.store(part_ptr + pid, tl.sum(acc, 0))


@triton.jit
def _scale_kernel(g_ptr, part_ptr, out_ptr, norm_ptr, n, NP, max_norm, SLICE: tl.constexpr, BLOCK: tl.constexpr,
                  NPP: tl.constexpr):
    pid = tl.program_id(0)
    po = tl.arange(0, NPP)
    norm = tl.sqrt(tl.sum(tl.load(part_ptr + po, mask=po < NP, other=0.0), 0))
    coef = tl.minimum(max_norm / (norm + 1e-6), 1.0)
    if pid == 0:
        tl.store(norm_ptr, norm)
    # slices in reverse: the first programs rescale what pass 1 read last, still in L2
    start = (NP - 1 - pid).to(tl.int64) * SLICE
    for off in range(0, SLICE, BLOCK):
        offs = start + off + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(g_ptr + offs, mask=mask, other=0.0) * coef, mask=mask)


def clip_grad_norm(grads, max_norm):
    n = grads.numel()
    block = 4096
    np_ = min(2048, triton.cdiv(n, block))
    slice_ = triton.cdiv(triton.cdiv(n, np_), block) * block
    np_ = triton.cdiv(n, slice_)
    part = torch.empty(np_, dtype=torch.float32, device=grads.device)
    out = torch.empty_like(grads)
    norm = torch.empty(1, dtype=torch.float32, device=grads.device)
    _sumsq_kernel[(np_,)](grads, part, n, SLICE=slice_, BLOCK=block, num_warps=8)
    _scale_kernel[(np_,)](grads, part, out, norm, n, np_, max_norm, SLICE=slice_, BLOCK=block,
                          NPP=triton.next_power_of_2(np_), num_warps=8)
    return out, norm
