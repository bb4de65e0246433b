import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# Fast because: causal flash-attention forward with the soft-cap fused into the score tile: tanh comes
# from one exp2 per score (tanh(y) = 1 - 2 / (exp(2y) + 1)), in registers, so the cap costs a few ALU ops
# per score beside two 256-deep wgmma products. A query tile visits only the key tiles at or before its
# diagonal (only the diagonal ones masked); K/V stream by TMA through a pipelined loop; the query heads
# of one KV head run side by side (their K/V tiles come from L2); the heaviest tiles launch first; tile
# sizes are autotuned (a 256-wide head puts a 128 x 256 fp32 accumulator in registers).


@triton.jit
def _softcap_step(q, k_desc, v_desc, kv_row, start_n, offs_m, m_i, l_i, acc, pre, cap2,
                  BLOCK_N: tl.constexpr, MASK: tl.constexpr):
    k = k_desc.load([kv_row, 0])
    y = tl.dot(q, k.T) * pre  # 2 * score / softcap, in log2 units: exp2(y) = exp(2 * score / softcap)
    t = 1.0 - 2.0 / (tl.math.exp2(y) + 1.0)  # tanh(score / softcap)
    s = t * cap2  # softcap * tanh(.) in log2 units
    if MASK:
        s = tl.where((start_n + tl.arange(0, BLOCK_N))[None, :] <= offs_m[:, None], s, -float("inf"))
    m_new = tl.maximum(m_i, tl.max(s, 1))
    p = tl.math.exp2(s - m_new[:, None])
    alpha = tl.math.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    v = v_desc.load([kv_row, 0])
    acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
    return m_new, l_i, acc


def _set_block_shapes(nargs):
    # host TMA descriptors take the block shape of the config being run
    d = nargs["HEAD_DIM"]
    nargs["q_desc"].block_shape = [nargs["BLOCK_M"], d]
    nargs["k_desc"].block_shape = [nargs["BLOCK_N"], d]
    nargs["v_desc"].block_shape = [nargs["BLOCK_N"], d]


@triton.autotune(configs=[triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=w, num_stages=st,
                                        pre_hook=_set_block_shapes)
                          for m, n, w, st in [(128, 64, 8, 2), (64, 64, 4, 3), (128, 32, 8, 3), (64, 32, 4, 4)]],
                 key=["S", "HEAD_DIM"])
@triton.jit
def _softcap_kernel(q_desc, k_desc, v_desc, o_ptr, S, Hq, GROUP, pre, cap2,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # last (heaviest) tiles first
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
    for start_n in tl.range(0, start_m, BLOCK_N):  # before the diagonal: every key visible
        m_i, l_i, acc = _softcap_step(q, k_desc, v_desc, kv_row0 + start_n, start_n, offs_m, m_i, l_i, acc, pre,
                                      cap2, BLOCK_N, False)
    for start_n in tl.range(start_m, tl.minimum(start_m + BLOCK_M, S), BLOCK_N):  # the diagonal: masked
        m_i, l_i, acc = _softcap_step(q, k_desc, v_desc, kv_row0 + start_n, start_n, offs_m, m_i, l_i, acc, pre,
                                      cap2, BLOCK_N, True)
    out = acc / l_i[:, None]
    offs_d = tl.arange(0, HEAD_DIM)
    o_ptrs = o_ptr + (q_row0 + offs_m).to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < S)


def softcap_attention(q, k, v, softcap):
    B, Hq, S, D = q.shape
    Hkv = k.shape[1]
    o = torch.empty_like(q)
    # placeholder block shapes: the autotuner's pre_hook sets each config's
    q_desc = TensorDescriptor.from_tensor(q.reshape(B * Hq * S, D), [64, D])
    k_desc = TensorDescriptor.from_tensor(k.reshape(B * Hkv * S, D), [64, D])
    v_desc = TensorDescriptor.from_tensor(v.reshape(B * Hkv * S, D), [64, D])
    pre = 2.0 * D ** -0.5 / softcap * 1.4426950408889634  # exp2(pre * qk) = exp(2 * score / softcap)
    cap2 = softcap * 1.4426950408889634  # softcap in log2 units
    grid = lambda meta: (triton.cdiv(S, meta["BLOCK_M"]), B * Hq)
    _softcap_kernel[grid](q_desc, k_desc, v_desc, o, S, Hq, Hq // Hkv, pre, cap2, HEAD_DIM=D)
    return o
