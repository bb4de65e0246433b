import torch
import triton
import triton.language as tl


# Two launches over (row, slice) programs; only the rows of the resampled position are streamed.
#  1. every program finds the row's first rejection n from S gathered probabilities (a few sectors), then
#     sums its slice of the residual r = max(p_n - q_n, 0) (or the bonus row p_S); program (b, 0) also writes
#     the accepted tokens and the -1 tail;
#  2. every program adds the row's slice sums; the one slice whose prefix interval holds
#     uniform_resample * total rescans its slice (an L2 hit) with block prefix sums and writes the first token
#     whose cumulative sum passes the point.
@triton.jit
def _first_reject(q_ptr, p_ptr, ids_ptr, u_ptr, b, V, S: tl.constexpr, SP: tl.constexpr):
    i = tl.arange(0, SP)
    im = i < S
    x = tl.load(ids_ptr + b * S + i, mask=im, other=0)
    q = tl.load(q_ptr + (b * S + i).to(tl.int64) * V + x, mask=im, other=1.0)
    p = tl.load(p_ptr + (b * (S + 1) + i).to(tl.int64) * V + x, mask=im, other=0.0)
    u = tl.load(u_ptr + b * S + i, mask=im, other=0.0)
    rejected = (u * q >= p) & im
    n = tl.min(tl.where(rejected, i, S), 0)
    return n, x, i


@triton.jit
def _residual(q_row, p_row, offs, mask, has_q):
    p = tl.load(p_row + offs, mask=mask, other=0.0)
    q = tl.load(q_row + offs, mask=mask & has_q, other=0.0)
    return tl.where(has_q, tl.maximum(p - q, 0.0), p)


@triton.jit
def _sum_kernel(q_ptr, p_ptr, ids_ptr, u_ptr, psum_ptr, out_ptr, V, NS, S: tl.constexpr, SP: tl.constexpr,
                SLICE: tl.constexpr, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    s = tl.program_id(1)
    n, x, i = _first_reject(q_ptr, p_ptr, ids_ptr, u_ptr, b, V, S, SP)
    if s == 0:
        tl.store(out_ptr + b * (S + 1) + i, tl.where(i < n, x, -1), mask=(i < S) & (i != n))
        if n < S:
            tl.store(out_ptr + b * (S + 1) + S, -1)
    has_q = n < S
    q_row = q_ptr + (b * S + tl.minimum(n, S - 1)).to(tl.int64) * V
    p_row = p_ptr + (b * (S + 1) + n).to(tl.int64) * V
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(s * SLICE, s * SLICE + SLICE, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += _residual(q_row, p_row, offs, offs < V, has_q)
    tl.store(psum_ptr + b * NS + s, tl.sum(acc, 0))


@triton.jit
def _pick_kernel(q_ptr, p_ptr, ids_ptr, u_ptr, ur_ptr, psum_ptr, out_ptr, V, NS, S: tl.constexpr,
                 SP: tl.constexpr, NSP: tl.constexpr, SLICE: tl.constexpr, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    s = tl.program_id(1)
    so = tl.arange(0, NSP)
    ps = tl.load(psum_ptr + b * NS + so, mask=so < NS, other=0.0)
    total = tl.sum(ps, 0)
    before = tl.sum(tl.where(so < s, ps, 0.0), 0)
    mine = tl.sum(tl.where(so == s, ps, 0.0), 0)
    point = tl.load(ur_ptr + b) * total
    if (before <= point) & (before + mine > point):
        n, x, i = _first_reject(q_ptr, p_ptr, ids_ptr, u_ptr, b, V, S, SP)
        has_q = n < S
        q_row = q_ptr + (b * S + tl.minimum(n, S - 1)).to(tl.int64) * V
        p_row = p_ptr + (b * (S + 1) + n).to(tl.int64) * V
        run = before
        found = V - 1
        for start in range(s * SLICE, s * SLICE + SLICE, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            r = _residual(q_row, p_row, offs, offs < V, has_q)
            c = run + tl.cumsum(r, 0)
            found = tl.minimum(found, tl.min(tl.where((c > point) & (offs < V), offs, V - 1), 0))
            run += tl.sum(r, 0)
        tl.store(out_ptr + b * (S + 1) + n, found.to(tl.int64))


def rejection_sample(draft_probs, target_probs, draft_token_ids, uniform, uniform_resample):
    b, s, v = draft_probs.shape
    dev = draft_probs.device
    block = 2048 if v >= 8192 else 128
    ns = max(1, min(triton.cdiv(v, block), triton.cdiv(528, b)))
    slice_ = triton.cdiv(triton.cdiv(v, ns), block) * block
    ns = triton.cdiv(v, slice_)
    out = torch.empty((b, s + 1), dtype=torch.int64, device=dev)
    psum = torch.empty((b, ns), dtype=torch.float32, device=dev)
    sp = triton.next_power_of_2(s)
    _sum_kernel[(b, ns)](draft_probs, target_probs, draft_token_ids, uniform, psum, out, v, ns, S=s, SP=sp,
                         SLICE=slice_, BLOCK=block, num_warps=8)
    _pick_kernel[(b, ns)](draft_probs, target_probs, draft_token_ids, uniform, uniform_resample, psum, out, v, ns,
                          S=s, SP=sp, NSP=triton.next_power_of_2(ns), SLICE=slice_, BLOCK=block, num_warps=8)
    return out
