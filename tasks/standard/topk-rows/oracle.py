import torch
import triton
import triton.language as tl

# Each element becomes one int64 key whose order is the task's order: the high 32 bits are the float's bits
# mapped to an order-preserving signed integer, the low 32 bits are (2^32 - 1 - column), so among equal
# values the lower column is the larger key. Keys are unique, so top-k over keys is exact, ties included.
# Stage 1: every (row, chunk of CHUNK columns) program reads its chunk once (coalesced), takes the largest
# key of each group of GS columns, picks the KP best groups with Triton's bitonic top-k and the KP largest
# keys among those groups' KP * GS keys with a second, small top-k (about 3x less sorting work than a top-k
# over the whole chunk). Stage 2: one program per row takes the top KP of the
# chunks' candidates and decodes the first k into values and indices (a row of one chunk is done in stage 1).
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
def _decode_store(top, val_ptr, idx_ptr, row, K, KP: tl.constexpr):
    r = tl.arange(0, KP)
    col = _LOW_MASK - (top & _LOW_MASK)
    b = (top >> 32).to(tl.int32)
    b = tl.where(b < 0, b ^ _NEG_MAG, b)
    val = b.to(tl.float32, bitcast=True)
    tl.store(val_ptr + row * K + r, val, mask=r < K)
    tl.store(idx_ptr + row * K + r, col, mask=r < K)


@triton.jit
def _topk_chunk_kernel(x_ptr, cand_ptr, val_ptr, idx_ptr, N, n_chunks, K, CHUNK: tl.constexpr, GS: tl.constexpr,
                       KP: tl.constexpr, ONE_CHUNK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    x_row = x_ptr + row.to(tl.int64) * N
    start = chunk * CHUNK
    # the chunk as (CHUNK // GS) groups of GS consecutive columns; each group's largest key
    cols = start + tl.arange(0, CHUNK // GS)[:, None] * GS + tl.arange(0, GS)[None, :]
    mask = cols < N
    x = tl.load(x_row + cols, mask=mask, other=0.0)
    gmax = tl.max(tl.where(mask, _encode(x, cols), _KEY_MIN), axis=1)
    # The top KP elements of the chunk lie in the KP groups with the largest group maxima (keys are unique:
    # an element outside those groups has KP group maxima above it). Re-read only those groups (L1/L2 hits)
    # and take the top KP of their KP * GS keys.
    top_g = tl.topk(gmax, KP)
    g_ok = top_g != _KEY_MIN
    g_col = ((top_g & _LOW_MASK) * -1 + _LOW_MASK).to(tl.int32)
    g_start = tl.where(g_ok, (g_col // GS) * GS, start)
    cols2 = g_start[:, None] + tl.arange(0, GS)[None, :]
    mask2 = g_ok[:, None] & (cols2 < N)
    x2 = tl.load(x_row + cols2, mask=mask2, other=0.0)
    key2 = tl.where(mask2, _encode(x2, cols2), _KEY_MIN)
    top = tl.topk(tl.reshape(key2, (KP * GS,)), KP)
    if ONE_CHUNK:  # the whole row was one chunk: its top KP are the answer
        _decode_store(top, val_ptr, idx_ptr, row, K, KP)
    else:
        out = (row * n_chunks + chunk).to(tl.int64) * KP + tl.arange(0, KP)
        tl.store(cand_ptr + out, top)


@triton.jit
def _topk_merge_kernel(cand_ptr, val_ptr, idx_ptr, n_cand, K, BLOCK_C: tl.constexpr, KP: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_C)
    key = tl.load(cand_ptr + row.to(tl.int64) * n_cand + offs, mask=offs < n_cand,
                  other=-9223372036854775807 - 1)
    top = tl.topk(key, KP)
    _decode_store(top, val_ptr, idx_ptr, row, K, KP)


def topk_rows(x: torch.Tensor, k: int):
    m, n = x.shape
    kp = max(2, triton.next_power_of_2(k))  # tl.topk needs k >= 2
    gs = 16
    chunk = max(kp * gs, min(4096, triton.next_power_of_2(n)))
    n_chunks = triton.cdiv(n, chunk)
    cand = torch.empty((m, n_chunks * kp), dtype=torch.int64, device=x.device)
    values = torch.empty((m, k), dtype=torch.float32, device=x.device)
    indices = torch.empty((m, k), dtype=torch.int64, device=x.device)
    _topk_chunk_kernel[(m, n_chunks)](x, cand, values, indices, n, n_chunks, k, CHUNK=chunk, GS=gs, KP=kp,
                                      ONE_CHUNK=n_chunks == 1, num_warps=8)
    if n_chunks == 1:
        return values, indices
    n_cand = n_chunks * kp
    _topk_merge_kernel[(m,)](cand, values, indices, n_cand, k, BLOCK_C=max(kp, triton.next_power_of_2(n_cand)),
                             KP=kp, num_warps=8)
    return values, indices
