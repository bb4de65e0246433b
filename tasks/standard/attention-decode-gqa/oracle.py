import torch
import triton
import triton.language as tl

# Fast because: it is bound by reading the KV cache once. Each program takes one KV head and one slice of
# the sequence (split-K, so B*Hkv*splits programs fill all SMs in one wave even for small batches) and
# serves all g query heads of that KV head from one pass over its K/V tiles (tl.dot on a g-row tile),
# streaming K/V through a pipelined loop; a second tiny kernel merges the per-split (output, log-sum-exp).


BLOCK_N = {64: 128, 128: 64}  # keys per tile, by head dimension
NUM_WARPS, NUM_STAGES = 4, 3
SLOTS = 2 * 132  # programs resident at once: 2 per SM on 132 SMs


@triton.jit
def _decode_split_kernel(q_ptr, k_ptr, v_ptr, o_part_ptr, lse_part_ptr, S, chunk, num_splits, qk_scale,
                         GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, HEAD_DIM: tl.constexpr,
                         BLOCK_N: tl.constexpr):
    split = tl.program_id(0)
    bh = tl.program_id(1)  # b * Hkv + kv_head
    offs_g = tl.arange(0, GROUP_PAD)
    offs_d = tl.arange(0, HEAD_DIM)
    # The GROUP query heads of this KV head are consecutive rows of q viewed as (B*Hq, D).
    q = tl.load(q_ptr + (bh * GROUP + offs_g)[:, None] * HEAD_DIM + offs_d[None, :],
                mask=offs_g[:, None] < GROUP, other=0.0)
    kv_base = bh.to(tl.int64) * S * HEAD_DIM
    start = split * chunk
    end = tl.minimum(start + chunk, S)
    m_i = tl.full([GROUP_PAD], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([GROUP_PAD], dtype=tl.float32)
    acc = tl.zeros([GROUP_PAD, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(start, end, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kv_offs = kv_base + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
        kv_mask = offs_n[:, None] < end
        k = tl.load(k_ptr + kv_offs, mask=kv_mask, other=0.0)
        qk = tl.dot(q, k.T) * qk_scale
        qk = tl.where(offs_n[None, :] < end, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + kv_offs, mask=kv_mask, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    # Partial result of this split: normalized output and its log2-sum-exp2, laid out (B*Hkv, splits, GROUP, .)
    row = (bh * num_splits + split) * GROUP + offs_g
    tl.store(o_part_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], acc / l_i[:, None],
             mask=offs_g[:, None] < GROUP)
    tl.store(lse_part_ptr + row, m_i + tl.math.log2(l_i), mask=offs_g < GROUP)


@triton.jit
def _decode_merge_kernel(o_part_ptr, lse_part_ptr, out_ptr, num_splits,
                         GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, SPLIT_PAD: tl.constexpr):
    h = tl.program_id(0)  # b * Hq + query head
    bh = h // GROUP
    r = h % GROUP
    offs_s = tl.arange(0, SPLIT_PAD)
    offs_d = tl.arange(0, HEAD_DIM)
    row = (bh * num_splits + offs_s) * GROUP + r
    lse = tl.load(lse_part_ptr + row, mask=offs_s < num_splits, other=-float("inf"))
    w = tl.math.exp2(lse - tl.max(lse, 0))
    o = tl.load(o_part_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_s[:, None] < num_splits, other=0.0)
    out = tl.sum(o * w[:, None], 0) / tl.sum(w, 0)
    tl.store(out_ptr + h * HEAD_DIM + offs_d, out.to(out_ptr.dtype.element_ty))


def decode_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, Hq, _, D = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    group = Hq // Hkv
    block_n = BLOCK_N[D]
    # Splits sized so that all programs run in one wave (SLOTS resident at once) with long K/V streams; each
    # split covers a multiple of block_n keys, at least 4 tiles.
    splits = max(1, round(SLOTS / (B * Hkv)))
    chunk = max(triton.cdiv(triton.cdiv(S, splits), block_n) * block_n, 4 * block_n)
    num_splits = triton.cdiv(S, chunk)
    o_part = torch.empty((B * Hkv, num_splits, group, D), device=q.device, dtype=torch.float32)
    lse_part = torch.empty((B * Hkv, num_splits, group), device=q.device, dtype=torch.float32)
    out = torch.empty((B, Hq, 1, D), device=q.device, dtype=q.dtype)
    qk_scale = D ** -0.5 * 1.4426950408889634  # log2(e): softmax in base 2
    _decode_split_kernel[(num_splits, B * Hkv)](
        q, k, v, o_part, lse_part, S, chunk, num_splits, qk_scale, GROUP=group,
        GROUP_PAD=max(16, triton.next_power_of_2(group)), HEAD_DIM=D, BLOCK_N=block_n,
        num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    _decode_merge_kernel[(B * Hq,)](o_part, lse_part, out, num_splits, GROUP=group, HEAD_DIM=D,
                                    SPLIT_PAD=triton.next_power_of_2(num_splits), num_warps=4)
    return out
