import os

import torch
import triton
import triton.language as tl

# Myers' bit-parallel edit distance (in Hyyrö's form for a global alignment), one thread per pair: the vertical
# deltas of a whole DP column (one bit per row of a) live in registers as W = ceil(L / 32) 32-bit words of a
# positive (Pv) and a negative (Mv) mask, and each column of b costs about seventeen integer instructions per
# word of 32 DP cells (sm_90 build) instead of five or six per cell: an add whose carry ripples up the words and
# shifts that carry the top bits up; a first loop over the columns every pair of the block still has runs
# without the masks that freeze the pairs whose b has ended. The match mask of the column's token (bit i set where a[i] equals it) is never stored: a is
# held as four bit-planes (bit k of every token of a, packed like the rows), and the mask is the AND over the
# planes of plane or not-plane as the token's bit k is 1 or 0, four logic instructions per word, from registers.
# The distance is read at the end as len_b + popcount(Pv) - popcount(Mv) over the rows below len_a.
_CONFIGS = [  # one pair per thread: BP = 32 * num_warps
    triton.Config({"BP": 128}, num_warps=4),
    triton.Config({"BP": 64}, num_warps=2),
    triton.Config({"BP": 256}, num_warps=8),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.jit
def _popc(x):
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) >> 24).to(tl.int32)


@triton.jit
def _column(planes, tok, pv, mv, active, ones, zero, W: tl.constexpr, MASKED: tl.constexpr):
    # One column of the DP for the W words of rows. The add's carry and the shifted-out top bits ripple up the
    # words; a +1 horizontal delta enters at the bottom row (D[0][j] - D[0][j-1] = 1).
    n0 = tl.where((tok & 1) != 0, zero, ones)
    n1 = tl.where((tok & 2) != 0, zero, ones)
    n2 = tl.where((tok & 4) != 0, zero, ones)
    n3 = tl.where((tok & 8) != 0, zero, ones)
    carry = zero
    ph_in = zero + 1
    mh_in = zero
    new_pv = ()
    new_mv = ()
    for w in tl.static_range(W):
        e = (planes[w] ^ n0) & (planes[W + w] ^ n1) & (planes[2 * W + w] ^ n2) & (planes[3 * W + w] ^ n3)
        v_p = pv[w]
        v_m = mv[w]
        xv = e | v_m
        wide = (e & v_p).to(tl.uint64) + v_p.to(tl.uint64) + carry.to(tl.uint64)
        carry = (wide >> 32).to(tl.uint32)
        xh = (wide.to(tl.uint32) ^ v_p) | e
        ph = v_m | ((xh | v_p) ^ ones)
        mh = v_p & xh
        ph_out = ph >> 31
        mh_out = mh >> 31
        ph = (ph << 1) | ph_in
        mh = (mh << 1) | mh_in
        ph_in = ph_out
        mh_in = mh_out
        n_p = mh | ((xv | ph) ^ ones)
        n_m = ph & xv
        if MASKED:  # pairs whose b has ended keep their last column
            n_p = tl.where(active, n_p, v_p)
            n_m = tl.where(active, n_m, v_m)
        new_pv = new_pv + (n_p,)
        new_mv = new_mv + (n_m,)
    return new_pv, new_mv


@triton.autotune(configs=_CONFIGS, key=["B", "L"])
@triton.jit
def _edit_distance_kernel(a_ptr, b_ptr, len_a_ptr, len_b_ptr, out_ptr, B, L, W: tl.constexpr, BP: tl.constexpr):
    p = tl.program_id(0) * BP + tl.arange(0, BP)
    live = p < B
    m = tl.load(len_a_ptr + p, mask=live, other=0)
    n = tl.load(len_b_ptr + p, mask=live, other=0)
    n_min = tl.min(tl.where(live, n, L), axis=0)
    n_max = tl.max(n, axis=0)
    zero = tl.zeros((BP,), dtype=tl.uint32)
    ones = tl.full((BP,), 0xFFFFFFFF, tl.uint32)

    # the bit-planes of a, one pair per thread: planes[k * W + w] holds bit k of the tokens of rows 32 w .. 32 w + 31
    a_row = a_ptr + p.to(tl.int64) * L
    q0 = ()
    q1 = ()
    q2 = ()
    q3 = ()
    for w in tl.static_range(W):
        x0 = zero
        x1 = zero
        x2 = zero
        x3 = zero
        for k in range(0, 32):
            tok = tl.load(a_row + (w * 32 + k), mask=live & (w * 32 + k < L), other=0).to(tl.uint32)
            x0 |= (tok & 1) << k
            x1 |= ((tok >> 1) & 1) << k
            x2 |= ((tok >> 2) & 1) << k
            x3 |= ((tok >> 3) & 1) << k
        q0 = q0 + (x0,)
        q1 = q1 + (x1,)
        q2 = q2 + (x2,)
        q3 = q3 + (x3,)
    planes = q0 + q1 + q2 + q3

    pv = ()
    mv = ()
    for w in tl.static_range(W):
        pv = pv + (ones,)  # column 0: D[i][0] = i, every vertical delta +1
        mv = mv + (zero,)
    b_row = b_ptr + p.to(tl.int64) * L
    tok = tl.load(b_row, mask=live & (n > 0), other=0).to(tl.int32)
    for j in range(0, n_min):  # every live pair still has columns
        tok_next = tl.load(b_row + j + 1, mask=live & (j + 1 < n), other=0).to(tl.int32)
        pv, mv = _column(planes, tok, pv, mv, live, ones, zero, W, False)
        tok = tok_next
    for j in range(n_min, n_max):  # some pairs have ended
        tok_next = tl.load(b_row + j + 1, mask=live & (j + 1 < n), other=0).to(tl.int32)
        pv, mv = _column(planes, tok, pv, mv, j < n, ones, zero, W, True)
        tok = tok_next

    # D[len_a][len_b] = D[0][len_b] + the vertical deltas of column len_b over rows 0 .. len_a - 1
    dist = n
    for w in tl.static_range(W):
        rows = tl.minimum(tl.maximum(m - 32 * w, 0), 32)
        below = tl.where(rows >= 32, ones, (tl.full((BP,), 1, tl.uint32) << (rows % 32).to(tl.uint32)) - 1)
        dist += _popc(pv[w] & below) - _popc(mv[w] & below)
    tl.store(out_ptr + p, dist, mask=live)


def edit_distance(a: torch.Tensor, b: torch.Tensor, len_a: torch.Tensor, len_b: torch.Tensor) -> torch.Tensor:
    n, length = a.shape
    out = torch.empty((n,), dtype=torch.int32, device=a.device)
    grid = lambda meta: (triton.cdiv(n, meta["BP"]),)
    _edit_distance_kernel[grid](a, b, len_a, len_b, out, n, length, W=triton.cdiv(length, 32))
    return out
