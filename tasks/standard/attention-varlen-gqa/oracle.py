import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: flash-attention forward over the packed tokens with no host sync and no padding: the grid
# has an upper bound of query tiles (T / 128 + NSEQ per head) and each program finds its sequence and tile
# from a cumulative tile count over cu_seqlens in registers (programs past the last tile exit at once).
# Tiles of each sequence run last-first (the heaviest first). Within a sequence it is the causal kernel:
# key tiles before the query tile's diagonal unmasked, the diagonal masked; q/K/V are read by TMA from the
# (T, H * D) views (a head is a column block), K/V through a pipelined loop into wgmma, exp2 softmax.

BLOCK_M, BLOCK_N, NUM_WARPS, NUM_STAGES = 128, 64, 8, 3


@triton.jit
def _varlen_step(q, k_desc, v_desc, kv_row, kv_col, start_n, offs_m, m_i, l_i, acc, qk_scale,
                 BLOCK_N: tl.constexpr, MASK: tl.constexpr):
    k = k_desc.load([kv_row, kv_col])
    qk = tl.dot(q, k.T) * qk_scale
    if MASK:
        qk = tl.where((start_n + tl.arange(0, BLOCK_N))[None, :] <= offs_m[:, None], qk, -float("inf"))
    m_new = tl.maximum(m_i, tl.max(qk, 1))
    p = tl.math.exp2(qk - m_new[:, None])
    alpha = tl.math.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    v = v_desc.load([kv_row, kv_col])
    acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
    return m_new, l_i, acc


@triton.jit
def _varlen_kernel(q_desc, k_desc, v_desc, o_ptr, cu_ptr, NSEQ, Hq, GROUP, qk_scale,
                   HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, NSEQ_PAD: tl.constexpr):
    t = tl.program_id(0)
    h = tl.program_id(1)
    # Which sequence and tile: cumulative tile counts of the sequences.
    offs_s = tl.arange(0, NSEQ_PAD)
    smask = offs_s < NSEQ
    starts = tl.load(cu_ptr + offs_s, mask=smask, other=0)
    ends = tl.load(cu_ptr + offs_s + 1, mask=smask, other=0)
    ntiles = (ends - starts + BLOCK_M - 1) // BLOCK_M
    cum = tl.cumsum(ntiles, 0)
    if t >= tl.sum(ntiles, 0):
        return
    seq = tl.sum((cum <= t).to(tl.int32), 0)
    pick = offs_s == seq
    seq_start = tl.sum(tl.where(pick, starts, 0), 0)
    seq_len = tl.sum(tl.where(pick, ends - starts, 0), 0)
    first_tile = tl.sum(tl.where(pick, cum - ntiles, 0), 0)
    n_tiles = tl.sum(tl.where(pick, ntiles, 0), 0)
    start_m = (n_tiles - 1 - (t - first_tile)) * BLOCK_M  # last (heaviest) tiles first
    kv_col = (h // GROUP) * HEAD_DIM
    offs_m = start_m + tl.arange(0, BLOCK_M)  # positions within the sequence
    q = q_desc.load([seq_start + start_m, h * HEAD_DIM])
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(0, start_m, BLOCK_N):  # before the diagonal: every key visible
        m_i, l_i, acc = _varlen_step(q, k_desc, v_desc, seq_start + start_n, kv_col, start_n, offs_m, m_i, l_i, acc,
                                     qk_scale, BLOCK_N, False)
    # The diagonal (keys past the sequence's end belong to the next one or lie past T: masked by j <= i
    # for every stored row)
    for start_n in tl.range(start_m, tl.minimum(start_m + BLOCK_M, seq_len), BLOCK_N):
        m_i, l_i, acc = _varlen_step(q, k_desc, v_desc, seq_start + start_n, kv_col, start_n, offs_m, m_i, l_i, acc,
                                     qk_scale, BLOCK_N, True)
    out = acc / l_i[:, None]
    offs_d = tl.arange(0, HEAD_DIM)
    rows = (seq_start + offs_m).to(tl.int64)
    o_ptrs = o_ptr + (rows * Hq + h)[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < seq_len)


def varlen_attention(q, k, v, cu_seqlens):
    T, Hq, D = q.shape
    Hkv = k.shape[1]
    nseq = cu_seqlens.shape[0] - 1
    o = torch.empty_like(q)
    q_desc = TensorDescriptor.from_tensor(q.view(T, Hq * D), [BLOCK_M, D])
    k_desc = TensorDescriptor.from_tensor(k.view(T, Hkv * D), [BLOCK_N, D])
    v_desc = TensorDescriptor.from_tensor(v.view(T, Hkv * D), [BLOCK_N, D])
    qk_scale = D ** -0.5 * 1.4426950408889634  # log2(e): softmax in base 2
    max_tiles = triton.cdiv(T, BLOCK_M) + nseq  # sum of ceil(len / BLOCK_M) never exceeds this
    _varlen_kernel[(max_tiles, Hq)](q_desc, k_desc, v_desc, o, cu_seqlens, nseq, Hq, Hq // Hkv, qk_scale,
                                    HEAD_DIM=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                    NSEQ_PAD=max(16, triton.next_power_of_2(nseq)),
                                    num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    return o
