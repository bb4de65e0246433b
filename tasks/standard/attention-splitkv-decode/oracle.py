import torch
import triton
import triton.language as tl

# Fast because: the work is cut by the packed context, not by the sequence: every sequence is split into
# CHUNK-token pieces, so a 32k context becomes 64 programs per KV head and a 64-token one a single one,
# and all of them run in a few even waves (no host sync: each program finds its sequence and piece from
# a cumulative count over cu_seqlens_k in registers; the grid is an upper bound and extra programs exit).
# A program serves all g query heads of its KV head from one pass over its K/V rows (tl.dot on a g-row
# tile) through a pipelined loop and writes a float32 partial (output, log2-sum-exp2); a second kernel
# merges each (sequence, head)'s pieces with an online rescaling.

CHUNK, BLOCK_N, NUM_WARPS, NUM_STAGES = 512, 64, 4, 3
MERGE_BLOCK = 16


@triton.jit
def _locate(cu_ptr, B, c, CHUNK: tl.constexpr, B_PAD: tl.constexpr):
    """(sequence, its first chunk id, its start row, its length) for global chunk c, or sequence B if none."""
    offs = tl.arange(0, B_PAD)
    bmask = offs < B
    starts = tl.load(cu_ptr + offs, mask=bmask, other=0)
    ends = tl.load(cu_ptr + offs + 1, mask=bmask, other=0)
    nchunks = (ends - starts + CHUNK - 1) // CHUNK
    cum = tl.cumsum(nchunks, 0)
    seq = tl.sum((cum <= c).to(tl.int32), 0)
    pick = offs == seq
    first = tl.sum(tl.where(pick, cum - nchunks, 0), 0)
    start = tl.sum(tl.where(pick, starts, 0), 0)
    length = tl.sum(tl.where(pick, ends - starts, 0), 0)
    return seq, first, start, length, tl.sum(nchunks, 0)


@triton.jit
def _split_kernel(q_ptr, k_ptr, v_ptr, cu_ptr, o_part_ptr, lse_part_ptr, B, Hkv, qk_scale,
                  GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, HEAD_DIM: tl.constexpr, CHUNK: tl.constexpr,
                  BLOCK_N: tl.constexpr, B_PAD: tl.constexpr):
    c = tl.program_id(0)
    kvh = tl.program_id(1)
    seq, first, start, length, total_chunks = _locate(cu_ptr, B, c, CHUNK, B_PAD)
    if c >= total_chunks:
        return
    lo = start + (c - first) * CHUNK
    hi = tl.minimum(lo + CHUNK, start + length)
    offs_g = tl.arange(0, GROUP_PAD)
    offs_d = tl.arange(0, HEAD_DIM)
    gmask = offs_g < GROUP
    Hq = Hkv * GROUP
    q = tl.load(q_ptr + ((seq * Hq + kvh * GROUP) + offs_g)[:, None] * HEAD_DIM + offs_d[None, :],
                mask=gmask[:, None], other=0.0)
    m_i = tl.full([GROUP_PAD], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([GROUP_PAD], dtype=tl.float32)
    acc = tl.zeros([GROUP_PAD, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(lo, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        nmask = offs_n < hi
        kv_offs = (offs_n.to(tl.int64) * Hkv + kvh)[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(k_ptr + kv_offs, mask=nmask[:, None], other=0.0)
        qk = tl.dot(q, k.T) * qk_scale
        qk = tl.where(nmask[None, :], qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + kv_offs, mask=nmask[:, None], other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    row = c * Hq + kvh * GROUP + offs_g  # partials laid out (chunk, Hq, .)
    tl.store(o_part_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], acc / l_i[:, None], mask=gmask[:, None])
    tl.store(lse_part_ptr + row, m_i + tl.math.log2(l_i), mask=gmask)


@triton.jit
def _merge_kernel(cu_ptr, o_part_ptr, lse_part_ptr, out_ptr, B, Hq,
                  HEAD_DIM: tl.constexpr, CHUNK: tl.constexpr, B_PAD: tl.constexpr, MERGE_BLOCK: tl.constexpr):
    seq = tl.program_id(0)
    h = tl.program_id(1)
    offs = tl.arange(0, B_PAD)
    bmask = offs < B
    starts = tl.load(cu_ptr + offs, mask=bmask, other=0)
    ends = tl.load(cu_ptr + offs + 1, mask=bmask, other=0)
    nchunks = (ends - starts + CHUNK - 1) // CHUNK
    cum = tl.cumsum(nchunks, 0)
    pick = offs == seq
    first = tl.sum(tl.where(pick, cum - nchunks, 0), 0)
    n = tl.sum(tl.where(pick, nchunks, 0), 0)
    offs_c = tl.arange(0, MERGE_BLOCK)
    offs_d = tl.arange(0, HEAD_DIM)
    m = tl.full([], -float("inf"), tl.float32)
    s = tl.zeros([], tl.float32)
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for c0 in tl.range(0, n, MERGE_BLOCK):
        cmask = c0 + offs_c < n
        row = (first + c0 + offs_c) * Hq + h
        lse = tl.load(lse_part_ptr + row, mask=cmask, other=-float("inf"))
        o = tl.load(o_part_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], mask=cmask[:, None], other=0.0)
        m_new = tl.maximum(m, tl.max(lse, 0))  # the first block holds a chunk: m_new is finite
        w = tl.math.exp2(lse - m_new)
        scale = tl.math.exp2(m - m_new)
        s = s * scale + tl.sum(w, 0)
        acc = acc * scale + tl.sum(o * w[:, None], 0)
        m = m_new
    tl.store(out_ptr + (seq * Hq + h) * HEAD_DIM + offs_d, (acc / s).to(out_ptr.dtype.element_ty))


def splitkv_decode_attention(q, k, v, cu_seqlens_k):
    B, Hq, D = q.shape
    total, Hkv = k.shape[0], k.shape[1]
    group = Hq // Hkv
    max_chunks = triton.cdiv(total, CHUNK) + B  # sum of ceil(len / CHUNK) never exceeds this
    o_part = torch.empty((max_chunks, Hq, D), device=q.device, dtype=torch.float32)
    lse_part = torch.empty((max_chunks, Hq), device=q.device, dtype=torch.float32)
    out = torch.empty_like(q)
    qk_scale = D ** -0.5 * 1.4426950408889634  # log2(e): softmax in base 2
    b_pad = max(16, triton.next_power_of_2(B))
    _split_kernel[(max_chunks, Hkv)](q, k, v, cu_seqlens_k, o_part, lse_part, B, Hkv, qk_scale, GROUP=group,
                                     GROUP_PAD=max(16, triton.next_power_of_2(group)), HEAD_DIM=D, CHUNK=CHUNK,
                                     BLOCK_N=BLOCK_N, B_PAD=b_pad, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    _merge_kernel[(B, Hq)](cu_seqlens_k, o_part, lse_part, out, B, Hq, HEAD_DIM=D, CHUNK=CHUNK, B_PAD=b_pad,
                           MERGE_BLOCK=MERGE_BLOCK, num_warps=4)
    return out
