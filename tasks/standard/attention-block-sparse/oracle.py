import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: it does only the layout's blocks. A first tiny kernel compacts every layout row into the
# list of its key-block numbers (a cumsum in registers); the attention kernel then gives each 128-query
# block of each (batch, head) a flash-attention loop over exactly its K key blocks (two 64-key tiles
# each), with no branch on the layout inside the loop: K/V tiles come by TMA at the listed block's rows
# through a pipelined loop into wgmma, exp2 softmax in registers. Only keys past S are masked.

BLOCK = 128
BLOCK_N, NUM_WARPS, NUM_STAGES = 64, 8, 3


@triton.jit
def _compact_kernel(layout_ptr, cols_ptr, counts_ptr, NB, NB_PAD: tl.constexpr):
    row = tl.program_id(0)  # h * NB + query block
    offs = tl.arange(0, NB_PAD)
    m = offs < NB
    flag = tl.load(layout_ptr + row.to(tl.int64) * NB + offs, mask=m, other=0).to(tl.int32)
    slot = tl.cumsum(flag, 0) - 1
    tl.store(cols_ptr + row.to(tl.int64) * NB + slot, offs, mask=m & (flag != 0))
    tl.store(counts_ptr + row, tl.sum(flag, 0))


@triton.jit
def _bs_attn_kernel(q_desc, k_desc, v_desc, o_ptr, cols_ptr, counts_ptr, S, H, NB, qk_scale,
                    HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr, BLOCK_N: tl.constexpr):
    qb = tl.program_id(0)
    bh = tl.program_id(1)
    h = bh % H
    row0 = bh * S
    start_m = qb * BLOCK
    q = q_desc.load([row0 + start_m, 0])
    lrow = (h * NB + qb).to(tl.int64) * NB
    n_blocks = tl.load(counts_ptr + h * NB + qb)
    m_i = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK], dtype=tl.float32)
    acc = tl.zeros([BLOCK, HEAD_DIM], dtype=tl.float32)
    for t in tl.range(0, n_blocks * (BLOCK // BLOCK_N)):
        kb = tl.load(cols_ptr + lrow + t // (BLOCK // BLOCK_N))
        start_n = kb * BLOCK + (t % (BLOCK // BLOCK_N)) * BLOCK_N
        k = k_desc.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        qk = tl.where((start_n + tl.arange(0, BLOCK_N))[None, :] < S, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        m_new = tl.where(m_new == -float("inf"), 0.0, m_new)  # a tile wholly past S: p = 0, not NaN
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([row0 + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    out = acc / l_i[:, None]
    offs_m = start_m + tl.arange(0, BLOCK)
    offs_d = tl.arange(0, HEAD_DIM)
    o_ptrs = o_ptr + (row0 + offs_m).to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < S)


def block_sparse_attention(q, k, v, layout):
    B, H, S, D = q.shape
    NB = layout.shape[-1]
    cols = torch.empty((H, NB, NB), device=q.device, dtype=torch.int32)
    counts = torch.empty((H, NB), device=q.device, dtype=torch.int32)
    _compact_kernel[(H * NB,)](layout, cols, counts, NB, NB_PAD=max(16, triton.next_power_of_2(NB)), num_warps=1)
    o = torch.empty_like(q)
    q_desc = TensorDescriptor.from_tensor(q.reshape(B * H * S, D), [BLOCK, D])
    k_desc = TensorDescriptor.from_tensor(k.reshape(B * H * S, D), [BLOCK_N, D])
    v_desc = TensorDescriptor.from_tensor(v.reshape(B * H * S, D), [BLOCK_N, D])
    qk_scale = D ** -0.5 * 1.4426950408889634  # log2(e): softmax in base 2
    _bs_attn_kernel[(NB, B * H)](q_desc, k_desc, v_desc, o, cols, counts, S, H, NB, qk_scale, HEAD_DIM=D,
                                 BLOCK=BLOCK, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    return o
