import torch
import triton
import triton.language as tl

# Each element becomes one int64 key whose order is the task's order: the high 32 bits are the float's bits
# mapped to an order-preserving signed integer, the low 32 bits are (2^32 - 1 - column), so among equal
# values the lower column is the larger key. Keys are unique, so selecting by key is exact, ties included.
# Hierarchical selection: the top KP keys of a set lie in the KP groups whose largest keys are the KP
# largest group maxima (an element outside those groups has KP group maxima above it).
#   Stage 1 (streams x once, coalesced): the largest key of every group of GS consecutive columns, written
#     as a row of group keys (1/8 of x's bytes).
#   Stage 2 (one program per row): the largest group key of every run of GS groups (a super-group of GS*GS
#     columns); Triton's bitonic top-k picks the KP best super-groups, then the KP best groups among their
#     KP*GS group keys, then the KP best elements among those groups' KP*GS elements (re-read: a few KB),
#     which are decoded into values and indices. Each top-k sorts at most a few thousand keys per row.
_LOW_MASK = tl.constexpr(0xFFFFFFFF)
_NEG_MAG = tl.constexpr(0x7FFFFFFF)
_KEY_MIN = tl.constexpr(-9223372036854775807 - 1)


@triton.jit
def _encode(x, cols):
    x = x + 0.0  # -0.0 becomes +0.0
    b = x.to(tl.int32, bitcast=True)
    b = tl.where(b < 0, b ^ _NEG_MAG, b)
    return (b.to(tl.int64) << 32) | (_LOW_MASK - cols.to(tl.int64))


@triton.jit
def _key_col(key):
    return ((key & _LOW_MASK) * -1 + _LOW_MASK).to(tl.int32)


@triton.jit
def _group_max_kernel(x_ptr, g_ptr, N, NG, CHUNK: tl.constexpr, GS: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    grp = chunk * (CHUNK // GS) + tl.arange(0, CHUNK // GS)
    cols = grp[:, None] * GS + tl.arange(0, GS)[None, :]
    mask = cols < N
    x = tl.load(x_ptr + row.to(tl.int64) * N + cols, mask=mask, other=0.0, eviction_policy="evict_first")
    gmax = tl.max(tl.where(mask, _encode(x, cols), _KEY_MIN), axis=1)
    tl.store(g_ptr + row.to(tl.int64) * NG + grp, gmax, mask=grp < NG)


@triton.jit
def _select_kernel(x_ptr, g_ptr, val_ptr, idx_ptr, N, NG, K, BLOCK_G: tl.constexpr, GS: tl.constexpr,
                   KP: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row.to(tl.int64) * N
    g_row = g_ptr + row.to(tl.int64) * NG
    # level 1: super-groups of GS groups
    gi = tl.arange(0, BLOCK_G // GS)[:, None] * GS + tl.arange(0, GS)[None, :]
    g = tl.load(g_row + gi, mask=gi < NG, other=_KEY_MIN)
    top_s = tl.topk(tl.max(g, axis=1), KP)
    s_ok = top_s != _KEY_MIN
    s_first = tl.where(s_ok, _key_col(top_s) // (GS * GS), 0) * GS  # first group of each chosen super-group
    # level 2: groups
    gi2 = s_first[:, None] + tl.arange(0, GS)[None, :]
    g2 = tl.load(g_row + gi2, mask=s_ok[:, None] & (gi2 < NG), other=_KEY_MIN)
    top_g = tl.topk(tl.reshape(g2, (KP * GS,)), KP)
    g_ok = top_g != _KEY_MIN
    g_start = tl.where(g_ok, _key_col(top_g) // GS, 0) * GS
    # level 3: elements
    cols = g_start[:, None] + tl.arange(0, GS)[None, :]
    mask = g_ok[:, None] & (cols < N)
    x = tl.load(x_row + cols, mask=mask, other=0.0)
    top = tl.topk(tl.reshape(tl.where(mask, _encode(x, cols), _KEY_MIN), (KP * GS,)), KP)
    r = tl.arange(0, KP)
    b = (top >> 32).to(tl.int32)
    b = tl.where(b < 0, b ^ _NEG_MAG, b)
    tl.store(val_ptr + row * K + r, b.to(tl.float32, bitcast=True), mask=r < K)
    tl.store(idx_ptr + row * K + r, _key_col(top).to(tl.int64), mask=r < K)


def topk_rows(x: torch.Tensor, k: int):
    m, n = x.shape
    kp = max(2, triton.next_power_of_2(k))  # tl.topk needs k >= 2
    gs = 16
    chunk = min(4096, max(gs, triton.next_power_of_2(n)))
    ng = triton.cdiv(n, chunk) * (chunk // gs)  # group keys per row (groups past the row's end hold the minimum)
    block_g = max(kp * gs, triton.next_power_of_2(ng))
    gkeys = torch.empty((m, ng), dtype=torch.int64, device=x.device)
    values = torch.empty((m, k), dtype=torch.float32, device=x.device)
    indices = torch.empty((m, k), dtype=torch.int64, device=x.device)
    _group_max_kernel[(m, triton.cdiv(n, chunk))](x, gkeys, n, ng, CHUNK=chunk, GS=gs, num_warps=8)
    _select_kernel[(m,)](x, gkeys, values, indices, n, ng, k, BLOCK_G=block_g, GS=gs, KP=kp, num_warps=8)
    return values, indices
