import torch
import triton
import triton.language as tl


# One pass, memory-bound: each program routes BT tokens as a (BT, G, GSP) register tile (GSP = the group
# size rounded up to a power of two, padded lanes at -inf). Group scores are the max plus the max with the
# argmax lane removed; a group is chosen when fewer than TG groups beat it; then K rounds of (max, argmax,
# remove) over the chosen experts pick the ids in order, carrying the unbiased score of each pick.
@triton.jit
def _router_kernel(x_ptr, b_ptr, w_ptr, id_ptr, T, scale, E: tl.constexpr, G: tl.constexpr, GS: tl.constexpr,
                   GSP: tl.constexpr, TG: tl.constexpr, K: tl.constexpr, KP: tl.constexpr,
                   BT: tl.constexpr):
    rows = tl.program_id(0) * BT + tl.arange(0, BT)
    rmask = rows < T
    g = tl.arange(0, G)
    j = tl.arange(0, GSP)
    col = g[:, None] * GS + j[None, :]                               # (G, GSP) expert index
    cmask = j[None, :] < GS
    mask = rmask[:, None, None] & cmask[None, :, :]
    x = tl.load(x_ptr + rows.to(tl.int64)[:, None, None] * E + col[None, :, :], mask=mask, other=0.0)
    bias = tl.load(b_ptr + col, mask=cmask, other=0.0)
    score = tl.sigmoid(x)
    s = tl.where(cmask[None, :, :], score + bias[None, :, :], float("-inf"))
    m1, a1 = tl.max(s, axis=2, return_indices=True)
    m2 = tl.max(tl.where(j[None, None, :] == a1[:, :, None], float("-inf"), s), axis=2)
    gsc = m1 + m2                                                    # (BT, G)
    beaten = tl.sum((gsc[:, None, :] > gsc[:, :, None]).to(tl.int32), axis=2)
    chosen = beaten < TG
    s = tl.where(chosen[:, :, None], s, float("-inf"))
    s2 = tl.reshape(s, (BT, G * GSP))
    sc2 = tl.reshape(score, (BT, G * GSP))
    flat = tl.arange(0, G * GSP)
    kk = tl.arange(0, KP)
    picked_w = tl.zeros((BT, KP), tl.float32)
    picked_id = tl.zeros((BT, KP), tl.int32)
    for i in tl.static_range(K):
        best, arg = tl.max(s2, axis=1, return_indices=True)
        hit = flat[None, :] == arg[:, None]
        v = tl.sum(tl.where(hit, sc2, 0.0), axis=1)
        s2 = tl.where(hit, float("-inf"), s2)
        expert = (arg // GSP) * GS + arg % GSP
        picked_w = tl.where(kk[None, :] == i, v[:, None], picked_w)
        picked_id = tl.where(kk[None, :] == i, expert[:, None].to(tl.int32), picked_id)
    total = tl.sum(picked_w, axis=1)  # a tree sum of K <= 8 values: within 1e-7 of the reference's order
    out_mask = rmask[:, None] & (kk[None, :] < K)
    offs = rows[:, None] * K + kk[None, :]
    tl.store(w_ptr + offs, picked_w * (scale / total)[:, None], mask=out_mask)
    tl.store(id_ptr + offs, picked_id, mask=out_mask)


def grouped_topk_router(logits, bias, n_group, topk_group, top_k, routed_scaling_factor):
    t, e = logits.shape
    gs = e // n_group
    gsp = triton.next_power_of_2(gs)
    weights = torch.empty((t, top_k), dtype=torch.float32, device=logits.device)
    ids = torch.empty((t, top_k), dtype=torch.int32, device=logits.device)
    bt = max(1, 4096 // (n_group * gsp))
    _router_kernel[(triton.cdiv(t, bt),)](logits, bias, weights, ids, t, routed_scaling_factor, E=e, G=n_group,
                                          GS=gs, GSP=gsp, TG=topk_group, K=top_k, KP=triton.next_power_of_2(top_k), BT=bt, num_warps=8)
    return weights, ids
