import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: flash-attention forward that visits only the key tiles inside the band
# [i - W + 1, i] of its 128 query rows (about W + 128 keys, not S): the tiles wholly inside the band for
# every row run unmasked, the two edge bands (the window's start and the diagonal) masked. K/V stream by
# TMA through a pipelined loop into wgmma with an exp2 softmax in registers; the query heads of one KV
# head run side by side, so their shared K/V tiles come from L2.

BLOCK_M, BLOCK_N, NUM_WARPS, NUM_STAGES = 128, 64, 8, 3


@triton.jit
def _swa_step(q, k_desc, v_desc, kv_row, start_n, offs_m, m_i, l_i, acc, qk_scale, W,
              BLOCK_N: tl.constexpr, MASK: tl.constexpr):
    k = k_desc.load([kv_row, 0])
    qk = tl.dot(q, k.T) * qk_scale
    if MASK:
        diff = offs_m[:, None] - (start_n + tl.arange(0, BLOCK_N))[None, :]
        qk = tl.where((diff >= 0) & (diff < W), qk, -float("inf"))
    m_new = tl.maximum(m_i, tl.max(qk, 1))
    if MASK:  # a row may see no key of its first tiles yet: keep its max finite so exp2 gives 0, not NaN
        m_new = tl.where(m_new == -float("inf"), 0.0, m_new)
    p = tl.math.exp2(qk - m_new[:, None])
    alpha = tl.math.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    v = v_desc.load([kv_row, 0])
    acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
    return m_new, l_i, acc


@triton.jit
def _swa_kernel(q_desc, k_desc, v_desc, o_ptr, S, W, Hq, GROUP, qk_scale,
                HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)  # b * Hq + h
    b = bh // Hq
    kvh = (bh % Hq) // GROUP
    q_row0 = bh * S
    kv_row0 = (b * (Hq // GROUP) + kvh) * S
    offs_m = start_m + tl.arange(0, BLOCK_M)
    q = q_desc.load([q_row0 + start_m, 0])
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # Keys this tile may see: from start_m - W + 1 (first row) to start_m + BLOCK_M - 1 (last row).
    lo = (tl.maximum(start_m - W + 1, 0) // BLOCK_N) * BLOCK_N
    # First tile whose keys are inside every row's window: n >= start_m + BLOCK_M - W.
    mid = tl.cdiv(tl.maximum(start_m + BLOCK_M - W, 0), BLOCK_N) * BLOCK_N
    mid = tl.minimum(tl.maximum(mid, lo), start_m)
    for start_n in tl.range(lo, mid, BLOCK_N):  # the window's start: masked
        m_i, l_i, acc = _swa_step(q, k_desc, v_desc, kv_row0 + start_n, start_n, offs_m, m_i, l_i, acc, qk_scale,
                                  W, BLOCK_N, True)
    for start_n in tl.range(mid, start_m, BLOCK_N):  # wholly visible
        m_i, l_i, acc = _swa_step(q, k_desc, v_desc, kv_row0 + start_n, start_n, offs_m, m_i, l_i, acc, qk_scale,
                                  W, BLOCK_N, False)
    for start_n in tl.range(start_m, tl.minimum(start_m + BLOCK_M, S), BLOCK_N):  # the diagonal: masked
        m_i, l_i, acc = _swa_step(q, k_desc, v_desc, kv_row0 + start_n, start_n, offs_m, m_i, l_i, acc, qk_scale,
                                  W, BLOCK_N, True)
    out = acc / l_i[:, None]
    offs_d = tl.arange(0, HEAD_DIM)
    o_ptrs = o_ptr + (q_row0 + offs_m).to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < S)


def sliding_window_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, window: int) -> torch.Tensor:
    B, Hq, S, D = q.shape
    Hkv = k.shape[1]
    o = torch.empty_like(q)
    q_desc = TensorDescriptor.from_tensor(q.reshape(B * Hq * S, D), [BLOCK_M, D])
    k_desc = TensorDescriptor.from_tensor(k.reshape(B * Hkv * S, D), [BLOCK_N, D])
    v_desc = TensorDescriptor.from_tensor(v.reshape(B * Hkv * S, D), [BLOCK_N, D])
    qk_scale = D ** -0.5 * 1.4426950408889634  # log2(e): softmax in base 2
    grid = (triton.cdiv(S, BLOCK_M), B * Hq)
    _swa_kernel[grid](q_desc, k_desc, v_desc, o, S, window, Hq, Hq // Hkv, qk_scale, HEAD_DIM=D, BLOCK_M=BLOCK_M,
                      BLOCK_N=BLOCK_N, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    return o
