import torch
import triton
import triton.language as tl

# Hamming distances on the int8 tensor cores, top-k by a thresholded insertion loop.
# With s = 1 - 2 * bit in {+1, -1}, popcount(q ^ c) = (D - <s_q, s_c>) / 2, so one int8 product of the
# unpacked signs gives a whole (BM, BN) tile of exact distances: 2 * D int8 ops per pair on the IMMA units
# instead of D / 32 POPC instructions per pair on the CUDA cores (quarter-rate on Hopper).
#   1. unpack: the packed bytes become +-1 int8 rows (queries and codes), 8 B per bit-byte, once per call.
#   2. scan: program (query block, split of the codes) keeps, per query, an unsorted set of K slots holding
#      (distance << 32 | index) keys. Per code tile it forms key32 = (<s_q, s_c> + D) * BN + (BN - 1 - col),
#      larger = better (smaller distance, then lower index), and its row maximum; only when some row's best beats
#      that row's bound (its K-th distance: codes come in index order, so a tie never wins) does it loop:
#      insert each row's best into its worst slot, tighten the bound, take the next best below the last one.
#      After the first few tiles a tile costs one product and one row maximum.
#   3. merge: per query, the K smallest of the splits' keys (tl.topk), in order.
INF_KEY = tl.constexpr(1 << 62)


@triton.jit
def _unpack_kernel(src_ptr, dst_ptr, R, DB: tl.constexpr, BR: tl.constexpr):
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    mask = rows < R
    byte = tl.load(src_ptr + rows.to(tl.int64)[:, None] * DB + tl.arange(0, DB)[None, :], mask=mask[:, None], other=0)
    bits = (byte.to(tl.int32)[:, :, None] >> tl.arange(0, 8)[None, None, :]) & 1
    signs = tl.reshape(1 - 2 * bits, [BR, DB * 8]).to(tl.int8)
    cols = tl.arange(0, DB * 8)
    tl.store(dst_ptr + rows.to(tl.int64)[:, None] * (DB * 8) + cols[None, :], signs, mask=mask[:, None])


@triton.jit
def _scan_kernel(qs_ptr, cs_ptr, part_ptr, Q, N, K, chunk, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                 KP: tl.constexpr):
    qb = tl.program_id(0)
    split = tl.program_id(1)
    rows = qb * BM + tl.arange(0, BM)
    dcols = tl.arange(0, D)
    q = tl.load(qs_ptr + rows.to(tl.int64)[:, None] * D + dcols[None, :], mask=(rows < Q)[:, None], other=0)
    slot = tl.arange(0, KP)[None, :]
    # slots >= K hold -1 and are never the maximum, so never replaced
    best_set = tl.where(slot < K, INF_KEY, -1).to(tl.int64) + tl.zeros([BM, KP], dtype=tl.int64)
    bound = tl.zeros([BM], dtype=tl.int32)  # key32 >= bound <=> distance < the row's K-th distance
    col = tl.arange(0, BN)
    start = split * chunk
    stop = tl.minimum(start + chunk, N)
    for n0 in range(start, stop, BN):
        codes = n0 + col
        c = tl.load(cs_ptr + codes.to(tl.int64)[:, None] * D + dcols[None, :], mask=(codes < stop)[:, None], other=0)
        dot = tl.dot(q, tl.trans(c), out_dtype=tl.int32)  # = D - 2 * distance
        key = tl.where((codes < stop)[None, :], (dot + D) * BN + (BN - 1 - col)[None, :], -1)
        top = tl.max(key, axis=1)
        while tl.max(top - bound) >= 0:
            take = top >= bound
            dist = (D - (top // BN - D)) // 2
            idx = n0 + (BN - 1) - top % BN
            new = (dist.to(tl.int64) << 32) | idx.to(tl.int64)
            worst, arg = tl.max(best_set, axis=1, return_indices=True)
            best_set = tl.where(take[:, None] & (slot == arg[:, None]), new[:, None], best_set)
            kth = tl.max(best_set, axis=1)
            kth_dist = tl.where(kth == INF_KEY, D + 1, (kth >> 32).to(tl.int32))
            bound = (2 * D - 2 * kth_dist + 2) * BN
            top = tl.max(tl.where(key < top[:, None], key, -1), axis=1)
    out = part_ptr + (split.to(tl.int64) * Q + rows.to(tl.int64))[:, None] * KP + slot
    tl.store(out, best_set, mask=(rows < Q)[:, None])


@triton.jit
def _merge_kernel(part_ptr, idx_ptr, dist_ptr, Q, K, S, KP: tl.constexpr, SKP: tl.constexpr, BQ: tl.constexpr):
    rows = tl.program_id(0) * BQ + tl.arange(0, BQ)
    j = tl.arange(0, SKP)
    s = j // KP
    ok = (rows < Q)[:, None] & (s < S)[None, :]
    ptrs = part_ptr + (s.to(tl.int64)[None, :] * Q + rows.to(tl.int64)[:, None]) * KP + (j % KP)[None, :]
    keys = tl.load(ptrs, mask=ok, other=INF_KEY)
    keys = tl.where(keys < 0, INF_KEY, keys)
    # the KP smallest keys, ascending: the KP largest of INF - key, descending
    flipped = tl.topk(tl.full([BQ, SKP], INF_KEY, dtype=tl.int64) - keys, KP, dim=1)
    best = tl.full([BQ, KP], INF_KEY, dtype=tl.int64) - flipped
    r = tl.arange(0, KP)
    out = rows.to(tl.int64)[:, None] * K + r[None, :]
    m = (rows < Q)[:, None] & (r < K)[None, :]
    tl.store(idx_ptr + out, best & 0xFFFFFFFF, mask=m)
    tl.store(dist_ptr + out, (best >> 32).to(tl.int32), mask=m)


def hamming_knn(queries: torch.Tensor, codes: torch.Tensor, k: int):
    q_count, db = queries.shape
    n = codes.shape[0]
    d = 8 * db
    dev = queries.device
    q_signs = torch.empty((q_count, d), dtype=torch.int8, device=dev)
    c_signs = torch.empty((n, d), dtype=torch.int8, device=dev)
    br = max(1, 4096 // d)
    _unpack_kernel[(triton.cdiv(q_count, br),)](queries, q_signs, q_count, DB=db, BR=br, num_warps=4)
    _unpack_kernel[(triton.cdiv(n, br),)](codes, c_signs, n, DB=db, BR=br, num_warps=4)
    bm = 128
    bn = 64
    kp = max(2, triton.next_power_of_2(k))  # tl.topk needs at least 2
    q_blocks = triton.cdiv(q_count, bm)
    splits = max(1, min(triton.cdiv(2 * 132, q_blocks), triton.cdiv(n, 8 * bn)))  # about two waves of 132 SMs
    chunk = triton.cdiv(triton.cdiv(n, splits), bn) * bn
    splits = triton.cdiv(n, chunk)
    part = torch.empty((splits, q_count, kp), dtype=torch.int64, device=dev)
    _scan_kernel[(q_blocks, splits)](q_signs, c_signs, part, q_count, n, k, chunk, D=d, BM=bm, BN=bn, KP=kp,
                                     num_warps=8, num_stages=3)
    indices = torch.empty((q_count, k), dtype=torch.int64, device=dev)
    distances = torch.empty((q_count, k), dtype=torch.int32, device=dev)
    skp = triton.next_power_of_2(splits * kp)
    bq = max(1, min(4, 2048 // skp))
    _merge_kernel[(triton.cdiv(q_count, bq),)](part, indices, distances, q_count, k, splits, KP=kp, SKP=skp, BQ=bq,
                                               num_warps=4)
    return indices, distances
