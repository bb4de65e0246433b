import torch
import triton
import triton.language as tl


# No full sort. top_k <= 64, so the k-th largest logit is at least tau = the k-th largest of the maxima of
# CH-element chunks (k distinct chunks hold k distinct elements >= tau), and only the few logits >= tau
# (about k for normal logits) can be among the top k.
#  1. (row, slice) programs: chunk maxima (one full read of the logits);
#  2. one program per row: tau from a bitonic top-64 of the chunk maxima; zeroes the row's candidate count;
#  3. (row, slice) programs: the indices of the logits >= tau, appended to the row's candidate list (one
#     atomic per block that has any);
#  4. one program per row: a bitonic top-64 of the candidates keyed (order-preserving logit bits, index),
#     then temperature weights, top-k, top-p and the inverse CDF on 64 registers.
@triton.jit
def _chunk_max_kernel(x_ptr, cmax_ptr, V, NC, CH: tl.constexpr, NCB: tl.constexpr):
    b = tl.program_id(0)
    c = tl.program_id(1) * NCB + tl.arange(0, NCB)
    j = tl.arange(0, CH)
    offs = c[:, None] * CH + j[None, :]
    x = tl.load(x_ptr + b.to(tl.int64) * V + offs, mask=offs < V, other=float("-inf"))
    tl.store(cmax_ptr + b * NC + c, tl.max(x, 1), mask=c < NC)


@triton.jit
def _tau_kernel(cmax_ptr, k_ptr, tau_ptr, cnt_ptr, NC, NCP: tl.constexpr, KM: tl.constexpr):
    b = tl.program_id(0)
    c = tl.arange(0, NCP)
    m = tl.load(cmax_ptr + b * NC + c, mask=c < NC, other=float("-inf"))
    top = tl.topk(m, KM)
    k = tl.load(k_ptr + b)
    tau = tl.sum(tl.where(tl.arange(0, KM) == k - 1, top, 0.0), 0)
    tl.store(tau_ptr + b, tau)
    tl.store(cnt_ptr + b, 0)


@triton.jit
def _collect_kernel(x_ptr, tau_ptr, cnt_ptr, cand_ptr, V, SLICE: tl.constexpr, BLOCK: tl.constexpr,
                    CAP: tl.constexpr):
    b = tl.program_id(0)
    s = tl.program_id(1)
    tau = tl.load(tau_ptr + b)
    for start in range(s * SLICE, s * SLICE + SLICE, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + b.to(tl.int64) * V + offs, mask=offs < V, other=float("-inf"))
        hit = (x >= tau) & (offs < V)
        n = tl.sum(hit.to(tl.int32), 0)
        if n > 0:
            base = tl.atomic_add(cnt_ptr + b, n)
            pos = base + tl.cumsum(hit.to(tl.int32), 0) - 1
            tl.store(cand_ptr + b * CAP + pos, offs, mask=hit & (pos < CAP))


@triton.jit
def _sample_kernel(x_ptr, cand_ptr, cnt_ptr, t_ptr, k_ptr, p_ptr, u_ptr, out_ptr, V, CAP: tl.constexpr,
                   KM: tl.constexpr):
    b = tl.program_id(0)
    row = x_ptr + b.to(tl.int64) * V
    n = tl.minimum(tl.load(cnt_ptr + b), CAP)
    ci = tl.arange(0, CAP)
    idx = tl.load(cand_ptr + b * CAP + ci, mask=ci < n, other=0)
    x = tl.load(row + idx, mask=ci < n, other=float("-inf"))
    bits = x.to(tl.int32, bitcast=True)
    order = tl.where(bits >= 0, bits, bits ^ 0x7FFFFFFF)
    key = (order.to(tl.int64) << 32) | idx.to(tl.int64)
    key = tl.where(ci < n, key, -9223372036854775807 - 1)
    top = tl.topk(key, KM)                                   # descending
    tidx = (top & 0xFFFFFFFF).to(tl.int32)
    r = tl.arange(0, KM)
    k = tl.load(k_ptr + b)
    in_k = r < k
    v = tl.load(row + tidx, mask=in_k, other=float("-inf"))
    vmax = tl.max(v, 0)
    e = tl.where(in_k, tl.exp((v - vmax) / tl.load(t_ptr + b)), 0.0)
    total = tl.sum(e, 0)
    excl = tl.cumsum(e, 0) - e
    keep = (excl < tl.load(p_ptr + b) * total) & in_k
    ek = tl.where(keep, e, 0.0)
    c = tl.cumsum(ek, 0)
    point = tl.load(u_ptr + b) * tl.sum(ek, 0)
    pos = tl.sum(((c <= point) & keep).to(tl.int32), 0)
    tok = tl.sum(tl.where(r == pos, tidx, 0), 0)
    tl.store(out_ptr + b, tok.to(tl.int64))


def sample_top_k_top_p(logits, temperature, top_k, top_p, uniform):
    b, v = logits.shape
    dev = logits.device
    km = 64
    ch = 128
    while ch > 1 and v // ch < km:   # at least 64 chunks (small vocabularies)
        ch //= 2
    nc = triton.cdiv(v, ch)
    ncb = max(1, 4096 // ch)
    cap = 1024
    cmax = torch.empty((b, nc), dtype=torch.float32, device=dev)
    tau = torch.empty(b, dtype=torch.float32, device=dev)
    cnt = torch.empty(b, dtype=torch.int32, device=dev)
    cand = torch.empty((b, cap), dtype=torch.int32, device=dev)
    out = torch.empty(b, dtype=torch.int64, device=dev)
    _chunk_max_kernel[(b, triton.cdiv(nc, ncb))](logits, cmax, v, nc, CH=ch, NCB=ncb, num_warps=8)
    _tau_kernel[(b,)](cmax, top_k, tau, cnt, nc, NCP=max(km, triton.next_power_of_2(nc)), KM=km, num_warps=8)
    block = 4096 if v >= 65536 else 256
    ns = max(1, min(triton.cdiv(v, block), triton.cdiv(528, b)))
    slice_ = triton.cdiv(triton.cdiv(v, ns), block) * block
    ns = triton.cdiv(v, slice_)
    _collect_kernel[(b, ns)](logits, tau, cnt, cand, v, SLICE=slice_, BLOCK=block, CAP=cap, num_warps=8)
    _sample_kernel[(b,)](logits, cand, cnt, temperature, top_k, top_p, uniform, out, v, CAP=cap, KM=km,
                         num_warps=4)
    return out
