import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: flash-attention forward: one program per 128-query tile keeps Q, the running max/sum and
# the fp32 output tile in registers while TMA streams K/V tiles through a pipelined loop; S = QK^T and
# PV run on wgmma, softmax uses exp2 with the scale folded in, only the last key tile is masked, and the
# scores never touch HBM. Programs of one head run side by side, so its K/V are re-read from L2.


# (BLOCK_M, BLOCK_N, num_warps, num_stages) by head dimension
CONFIGS = {32: (128, 128, 4, 3), 64: (128, 128, 4, 3), 128: (128, 64, 8, 3)}


@triton.jit
def _attn_fwd_kernel(q_desc, k_desc, v_desc, o_ptr, S, qk_scale,
                     HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)
    row0 = bh * S  # first row of this (batch, head) in the (B*H*S, D) views
    q = q_desc.load([row0 + start_m, 0])
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    n_full = (S // BLOCK_N) * BLOCK_N
    # Full key tiles: no mask.
    for start_n in tl.range(0, n_full, BLOCK_N):
        k = k_desc.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([row0 + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    # The last, partial key tile: keys past S (the next head's rows, or zeros) get -inf.
    if n_full < S:
        offs_n = n_full + tl.arange(0, BLOCK_N)
        k = k_desc.load([row0 + n_full, 0])
        qk = tl.dot(q, k.T) * qk_scale
        qk = tl.where(offs_n[None, :] < S, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([row0 + n_full, 0])
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    out = acc / l_i[:, None]
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    o_ptrs = o_ptr + (row0 + offs_m).to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < S)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, H, S, D = q.shape
    o = torch.empty((B, H, S, D), device=q.device, dtype=q.dtype)
    block_m, block_n, num_warps, num_stages = CONFIGS[D]
    q2, k2, v2 = (t.reshape(B * H * S, D) for t in (q, k, v))
    q_desc = TensorDescriptor.from_tensor(q2, [block_m, D])
    k_desc = TensorDescriptor.from_tensor(k2, [block_n, D])
    v_desc = TensorDescriptor.from_tensor(v2, [block_n, D])
    qk_scale = D ** -0.5 * 1.4426950408889634  # log2(e): softmax in base 2
    grid = (triton.cdiv(S, block_m), B * H)
    _attn_fwd_kernel[grid](q_desc, k_desc, v_desc, o, S, qk_scale, HEAD_DIM=D, BLOCK_M=block_m, BLOCK_N=block_n,
                           num_warps=num_warps, num_stages=num_stages)
    return o
