import torch
import triton
import triton.language as tl


# Each row is split over S programs so the grid fills the GPU at small batches.
#  1. row maxima: each program the max of its slice of logits;
#  2. each program: the row max from the S partial maxima, the min-p cut max + T * log(min_p), and the
#     best (score, index) of its slice over the tokens at or above the cut; reads logits (an L2 hit when
#     the slice was just read, else DRAM) and the noise;
#  3. one program per row: the best of its S partial results.
@triton.jit
def _slice_max_kernel(x_ptr, pmax_ptr, V, S, SLICE: tl.constexpr, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    s = tl.program_id(1)
    row = x_ptr + b.to(tl.int64) * V
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    for start in range(s * SLICE, s * SLICE + SLICE, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(row + offs, mask=offs < V, other=float("-inf")))
    tl.store(pmax_ptr + b * S + s, tl.max(m, 0))


@triton.jit
def _slice_best_kernel(x_ptr, g_ptr, t_ptr, mp_ptr, pmax_ptr, pscore_ptr, pidx_ptr, V, S,
                       SLICE: tl.constexpr, BLOCK: tl.constexpr, SP: tl.constexpr):
    b = tl.program_id(0)
    s = tl.program_id(1)
    so = tl.arange(0, SP)
    row_max = tl.max(tl.load(pmax_ptr + b * S + so, mask=so < S, other=float("-inf")), 0)
    temp = tl.load(t_ptr + b)
    cut = tl.log(tl.load(mp_ptr + b))
    inv_t = 1.0 / temp
    base = b.to(tl.int64) * V
    best = tl.full((BLOCK,), float("-inf"), tl.float32)
    best_i = tl.zeros((BLOCK,), tl.int32)
    for start in range(s * SLICE, s * SLICE + SLICE, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < V
        x = tl.load(x_ptr + base + offs, mask=mask, other=float("-inf"))
        g = tl.load(g_ptr + base + offs, mask=mask, other=0.0)
        keep = ((x - row_max) * inv_t >= cut) & mask
        score = tl.where(keep, x * inv_t + g, float("-inf"))
        better = score > best
        best = tl.where(better, score, best)
        best_i = tl.where(better, offs, best_i)
    top, arg = tl.max(best, 0, return_indices=True)
    idx = tl.sum(tl.where(tl.arange(0, BLOCK) == arg, best_i, 0), 0)
    tl.store(pscore_ptr + b * S + s, top)
    tl.store(pidx_ptr + b * S + s, idx)


@triton.jit
def _finish_kernel(pscore_ptr, pidx_ptr, out_ptr, S, SP: tl.constexpr):
    b = tl.program_id(0)
    so = tl.arange(0, SP)
    sc = tl.load(pscore_ptr + b * S + so, mask=so < S, other=float("-inf"))
    ix = tl.load(pidx_ptr + b * S + so, mask=so < S, other=0)
    _, arg = tl.max(sc, 0, return_indices=True)
    tl.store(out_ptr + b, tl.sum(tl.where(so == arg, ix, 0), 0).to(tl.int64))


def sample_min_p_gumbel(logits, temperature, min_p, gumbel):
    b, v = logits.shape
    dev = logits.device
    block = 2048 if v >= 8192 else 256
    # about 4 waves of programs over 132 SMs
    s = max(1, min(triton.cdiv(v, block), triton.cdiv(528, b)))
    slice_ = triton.cdiv(triton.cdiv(v, s), block) * block
    s = triton.cdiv(v, slice_)
    sp = triton.next_power_of_2(s)
    pmax = torch.empty((b, s), dtype=torch.float32, device=dev)
    pscore = torch.empty((b, s), dtype=torch.float32, device=dev)
    pidx = torch.empty((b, s), dtype=torch.int32, device=dev)
    out = torch.empty(b, dtype=torch.int64, device=dev)
    _slice_max_kernel[(b, s)](logits, pmax, v, s, SLICE=slice_, BLOCK=block, num_warps=8)
    _slice_best_kernel[(b, s)](logits, gumbel, temperature, min_p, pmax, pscore, pidx, v, s, SLICE=slice_,
                               BLOCK=block, SP=sp, num_warps=8)
    _finish_kernel[(b,)](pscore, pidx, out, s, SP=sp, num_warps=1)
    return out
