import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: flash-attention forward with causal block skipping: a 128-query tile visits only the key
# tiles at or before its diagonal (about half the work), masks only the diagonal tiles, streams K/V by
# TMA through a pipelined loop into wgmma with exp2 softmax in registers, and the heaviest (last) query
# tiles of each head are launched first to shorten the tail.


# (BLOCK_M, BLOCK_N, num_warps, num_stages) by head dimension  (BLOCK_M a multiple of BLOCK_N)
CONFIGS = {32: (128, 128, 4, 3), 64: (128, 128, 4, 3), 128: (128, 64, 8, 3)}


@triton.jit
def _attn_step(q, k_desc, v_desc, kv_row, start_n, offs_m, m_i, l_i, acc, qk_scale,
               BLOCK_N: tl.constexpr, MASK: tl.constexpr):
    k = k_desc.load([kv_row, 0])
    qk = tl.dot(q, k.T) * qk_scale
    if MASK:  # key j is visible to query i only if j <= i
        offs_n = start_n + tl.arange(0, BLOCK_N)
        qk = tl.where(offs_n[None, :] <= offs_m[:, None], qk, -float("inf"))
    m_new = tl.maximum(m_i, tl.max(qk, 1))
    p = tl.math.exp2(qk - m_new[:, None])
    alpha = tl.math.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    v = v_desc.load([kv_row, 0])
    acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
    return m_new, l_i, acc


@triton.jit
def _causal_attn_kernel(q_desc, k_desc, v_desc, o_ptr, S, qk_scale,
                        HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # last (heaviest) tiles first
    bh = tl.program_id(1)
    row0 = bh * S  # first row of this (batch, head) in the (B*H*S, D) views
    offs_m = start_m + tl.arange(0, BLOCK_M)
    q = q_desc.load([row0 + start_m, 0])
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # Key tiles entirely before this query tile: every key is visible, no mask.
    for start_n in tl.range(0, start_m, BLOCK_N):
        m_i, l_i, acc = _attn_step(q, k_desc, v_desc, row0 + start_n, start_n, offs_m, m_i, l_i, acc, qk_scale,
                                   BLOCK_N, False)
    # Diagonal tiles: keys start_m .. start_m + BLOCK_M - 1, masked j <= i (keys past S then never count
    # for a query row < S; rows past S are not stored).
    for start_n in tl.range(start_m, tl.minimum(start_m + BLOCK_M, S), BLOCK_N):
        m_i, l_i, acc = _attn_step(q, k_desc, v_desc, row0 + start_n, start_n, offs_m, m_i, l_i, acc, qk_scale,
                                   BLOCK_N, True)
    out = acc / l_i[:, None]
    offs_d = tl.arange(0, HEAD_DIM)
    o_ptrs = o_ptr + (row0 + offs_m).to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < S)


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, H, S, D = q.shape
    o = torch.empty((B, H, S, D), device=q.device, dtype=q.dtype)
    block_m, block_n, num_warps, num_stages = CONFIGS[D]
    q2, k2, v2 = (t.reshape(B * H * S, D) for t in (q, k, v))
    q_desc = TensorDescriptor.from_tensor(q2, [block_m, D])
    k_desc = TensorDescriptor.from_tensor(k2, [block_n, D])
    v_desc = TensorDescriptor.from_tensor(v2, [block_n, D])
    qk_scale = D ** -0.5 * 1.4426950408889634  # log2(e): softmax in base 2
    grid = (triton.cdiv(S, block_m), B * H)
    _causal_attn_kernel[grid](q_desc, k_desc, v_desc, o, S, qk_scale, HEAD_DIM=D, BLOCK_M=block_m,
                              BLOCK_N=block_n, num_warps=num_warps, num_stages=num_stages)
    return o
