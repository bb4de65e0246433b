import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: flash-attention forward over the visible keys only: a 128-query tile streams the whole
# prefix and the new keys before its own rows unmasked, then masks only the one or two tiles that hold its
# diagonal (about a causal half of the new-token block is skipped). K/V stream by TMA through a pipelined
# loop into wgmma with an exp2 softmax in registers; the g query heads of one KV head run side by side, so
# their shared K/V tiles come from L2; the heaviest (last) query tiles are launched first.

BLOCK_M, BLOCK_N, NUM_WARPS, NUM_STAGES = 128, 64, 8, 3


@triton.jit
def _extend_step(q, k_desc, v_desc, kv_row, start_n, pos_m, m_i, l_i, acc, qk_scale,
                 BLOCK_N: tl.constexpr, MASK: tl.constexpr):
    k = k_desc.load([kv_row, 0])
    qk = tl.dot(q, k.T) * qk_scale
    if MASK:
        qk = tl.where((start_n + tl.arange(0, BLOCK_N))[None, :] <= pos_m[:, None], qk, -float("inf"))
    m_new = tl.maximum(m_i, tl.max(qk, 1))
    p = tl.math.exp2(qk - m_new[:, None])
    alpha = tl.math.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    v = v_desc.load([kv_row, 0])
    acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
    return m_new, l_i, acc


@triton.jit
def _extend_kernel(q_desc, k_desc, v_desc, o_ptr, N, P, Hq, GROUP, qk_scale,
                   HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # last (heaviest) tiles first
    bh = tl.program_id(1)  # b * Hq + h
    b = bh // Hq
    kvh = (bh % Hq) // GROUP
    L = P + N
    q_row0 = bh * N
    kv_row0 = (b * (Hq // GROUP) + kvh) * L
    offs_m = start_m + tl.arange(0, BLOCK_M)
    pos_m = P + offs_m  # absolute positions of the tile's queries
    q = q_desc.load([q_row0 + start_m, 0])
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # Key tiles wholly at or before the tile's first query (position P + start_m): no mask. Key 0 is in
    # the first tile, so every row has a finite max from the start.
    n_full = ((P + start_m + 1) // BLOCK_N) * BLOCK_N
    for start_n in tl.range(0, n_full, BLOCK_N):
        m_i, l_i, acc = _extend_step(q, k_desc, v_desc, kv_row0 + start_n, start_n, pos_m, m_i, l_i, acc, qk_scale,
                                     BLOCK_N, False)
    for start_n in tl.range(n_full, tl.minimum(P + start_m + BLOCK_M, L), BLOCK_N):  # the diagonal: masked
        m_i, l_i, acc = _extend_step(q, k_desc, v_desc, kv_row0 + start_n, start_n, pos_m, m_i, l_i, acc, qk_scale,
                                     BLOCK_N, True)
    out = acc / l_i[:, None]
    offs_d = tl.arange(0, HEAD_DIM)
    o_ptrs = o_ptr + (q_row0 + offs_m).to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < N)


def prefix_extend_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, Hq, N, D = q.shape
    Hkv, L = k.shape[1], k.shape[2]
    o = torch.empty_like(q)
    q_desc = TensorDescriptor.from_tensor(q.reshape(B * Hq * N, D), [BLOCK_M, D])
    k_desc = TensorDescriptor.from_tensor(k.reshape(B * Hkv * L, D), [BLOCK_N, D])
    v_desc = TensorDescriptor.from_tensor(v.reshape(B * Hkv * L, D), [BLOCK_N, D])
    qk_scale = D ** -0.5 * 1.4426950408889634  # log2(e): softmax in base 2
    grid = (triton.cdiv(N, BLOCK_M), B * Hq)
    _extend_kernel[grid](q_desc, k_desc, v_desc, o, N, L - N, Hq, Hq // Hkv, qk_scale, HEAD_DIM=D, BLOCK_M=BLOCK_M,
                         BLOCK_N=BLOCK_N, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    return o
