import torch
import triton
import triton.language as tl

# Fast because: at 128 heads over one shared latent cache the work is compute-bound, so it runs on tensor
# cores with the heads as the M dimension: a program holds a 64-head block of q (the 512 latent and 64
# rotary columns as two operands) and streams its sequence's cache rows once per head block (the second
# head block re-reads them from L2), computing scores with two dots and the latent-valued output (64 x 512
# fp32 accumulator) with a third; the sequence is split so that the programs fill the SMs, and a small
# kernel merges the per-split (output, log2-sum-exp2) pairs.

BLOCK_H = 64
DC, DR = 512, 64
SLOTS = 132 * 2


@triton.autotune(configs=[triton.Config({"BLOCK_N": 32}, num_warps=8, num_stages=2),
                          triton.Config({"BLOCK_N": 64}, num_warps=8, num_stages=2),
                          triton.Config({"BLOCK_N": 32}, num_warps=8, num_stages=1),
                          triton.Config({"BLOCK_N": 16}, num_warps=4, num_stages=2)],
                 key=["H", "chunk"])
@triton.jit
def _mla_split_kernel(q_ptr, kv_ptr, o_part_ptr, lse_part_ptr, S, H, chunk, num_splits, qk_scale,
                      BLOCK_H: tl.constexpr, DC: tl.constexpr, DR: tl.constexpr, BLOCK_N: tl.constexpr):
    split = tl.program_id(0)
    hb = tl.program_id(1)
    b = tl.program_id(2)
    offs_h = hb * BLOCK_H + tl.arange(0, BLOCK_H)
    hmask = offs_h < H
    offs_c = tl.arange(0, DC)
    offs_r = tl.arange(0, DR)
    q_rows = (b * H + offs_h).to(tl.int64)[:, None] * (DC + DR)
    q_c = tl.load(q_ptr + q_rows + offs_c[None, :], mask=hmask[:, None], other=0.0)
    q_r = tl.load(q_ptr + q_rows + DC + offs_r[None, :], mask=hmask[:, None], other=0.0)
    start = split * chunk
    end = tl.minimum(start + chunk, S)
    m_i = tl.full([BLOCK_H], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, DC], dtype=tl.float32)
    kv_base = kv_ptr + b.to(tl.int64) * S * (DC + DR)
    for start_n in tl.range(start, end, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        nmask = offs_n < end
        rows = offs_n.to(tl.int64)[:, None] * (DC + DR)
        kc = tl.load(kv_base + rows + offs_c[None, :], mask=nmask[:, None], other=0.0)  # (BLOCK_N, 512)
        kr = tl.load(kv_base + rows + DC + offs_r[None, :], mask=nmask[:, None], other=0.0)  # (BLOCK_N, 64)
        qk = tl.dot(q_c, kc.T)
        qk = tl.dot(q_r, kr.T, qk) * qk_scale
        qk = tl.where(nmask[None, :], qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(kc.dtype), kc, acc * alpha[:, None])
        m_i = m_new
    row = (b * num_splits + split) * H + offs_h  # partials laid out (B, splits, H, .)
    tl.store(o_part_ptr + row.to(tl.int64)[:, None] * DC + offs_c[None, :], acc / l_i[:, None], mask=hmask[:, None])
    tl.store(lse_part_ptr + row, m_i + tl.math.log2(l_i), mask=hmask)


@triton.jit
def _mla_merge_kernel(o_part_ptr, lse_part_ptr, out_ptr, H, num_splits, DC: tl.constexpr, SPLIT_PAD: tl.constexpr):
    bh = tl.program_id(0)  # b * H + h
    b = bh // H
    h = bh % H
    offs_s = tl.arange(0, SPLIT_PAD)
    offs_c = tl.arange(0, DC)
    smask = offs_s < num_splits
    row = (b * num_splits + offs_s) * H + h
    lse = tl.load(lse_part_ptr + row, mask=smask, other=-float("inf"))
    w = tl.math.exp2(lse - tl.max(lse, 0))
    o = tl.load(o_part_ptr + row.to(tl.int64)[:, None] * DC + offs_c[None, :], mask=smask[:, None], other=0.0)
    out = tl.sum(o * w[:, None], 0) / tl.sum(w, 0)
    tl.store(out_ptr + bh.to(tl.int64) * DC + offs_c, out.to(out_ptr.dtype.element_ty))


def mla_decode(q, kv_cache, sm_scale):
    B, H, _ = q.shape
    S = kv_cache.shape[1]
    head_blocks = triton.cdiv(H, BLOCK_H)
    # Splits for about two waves of programs, each a multiple of 64 tokens (every config's BLOCK_N divides it)
    splits = max(1, triton.cdiv(2 * SLOTS, B * head_blocks))
    chunk = max(256, triton.cdiv(triton.cdiv(S, splits), 64) * 64)
    num_splits = triton.cdiv(S, chunk)
    o_part = torch.empty((B, num_splits, H, DC), device=q.device, dtype=torch.float32)
    lse_part = torch.empty((B, num_splits, H), device=q.device, dtype=torch.float32)
    out = torch.empty((B, H, DC), device=q.device, dtype=q.dtype)
    qk_scale = sm_scale * 1.4426950408889634  # log2(e): softmax in base 2
    _mla_split_kernel[(num_splits, head_blocks, B)](q, kv_cache, o_part, lse_part, S, H, chunk, num_splits,
                                                    qk_scale, BLOCK_H=BLOCK_H, DC=DC, DR=DR)
    _mla_merge_kernel[(B * H,)](o_part, lse_part, out, H, num_splits, DC=DC,
                                SPLIT_PAD=triton.next_power_of_2(num_splits), num_warps=4)
    return out
