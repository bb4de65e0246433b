import torch
import triton
import triton.language as tl

# Plain Triton's best paged decode (standard/attention-paged-decode's oracle, in the manner of vLLM's Triton
# paged attention): one program per (KV head of a sequence, chunk of its context) serves all g query heads
# of that KV head with tl.dot on a g-row tile (padded to 16), the page numbers of a 64-token tile come from
# the block table and each token's 256-byte K/V row is gathered by tl.load, which the compiler turns into a
# cp.async ring over num_stages; chunks fill several waves of SMs and a second kernel merges the per-chunk
# (output, log-sum-exp) pairs.

PAGE = 16
BLOCK_N, NUM_WARPS, NUM_STAGES = 64, 4, 3
SLOTS = 2 * 132  # programs resident at once


@triton.jit
def _paged_split_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, o_part_ptr, lse_part_ptr, MAXP, Hkv, chunk, num_splits,
                        qk_scale, GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, HEAD_DIM: tl.constexpr,
                        PAGE: tl.constexpr, BLOCK_N: tl.constexpr):
    split = tl.program_id(0)
    bk = tl.program_id(1)  # b * Hkv + kv head
    b = bk // Hkv
    kvh = bk % Hkv
    n_ctx = tl.load(lens_ptr + b)
    start = split * chunk
    end = tl.minimum(start + chunk, n_ctx)
    offs_g = tl.arange(0, GROUP_PAD)
    offs_d = tl.arange(0, HEAD_DIM)
    row = (bk * num_splits + split) * GROUP + offs_g  # partials laid out (B*Hkv, splits, GROUP, .)
    if start >= n_ctx:  # nothing to do: an empty partial (weight 0 in the merge)
        tl.store(o_part_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], tl.zeros([GROUP_PAD, HEAD_DIM], tl.float32),
                 mask=offs_g[:, None] < GROUP)
        tl.store(lse_part_ptr + row, tl.full([GROUP_PAD], -float("inf"), tl.float32), mask=offs_g < GROUP)
        return
    # The GROUP query heads of this KV head are consecutive rows of q viewed as (B*Hq, D).
    q = tl.load(q_ptr + (bk * GROUP + offs_g)[:, None] * HEAD_DIM + offs_d[None, :],
                mask=offs_g[:, None] < GROUP, other=0.0)
    m_i = tl.full([GROUP_PAD], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([GROUP_PAD], dtype=tl.float32)
    acc = tl.zeros([GROUP_PAD, HEAD_DIM], dtype=tl.float32)
    token_stride = Hkv * HEAD_DIM
    for start_n in tl.range(start, end, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        nmask = offs_n < end
        page = tl.load(bt_ptr + b * MAXP + offs_n // PAGE, mask=nmask, other=0)
        tok = (page.to(tl.int64) * PAGE + offs_n % PAGE) * token_stride + kvh * HEAD_DIM
        kv_offs = tok[:, None] + offs_d[None, :]
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
    tl.store(o_part_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], acc / l_i[:, None], mask=offs_g[:, None] < GROUP)
    tl.store(lse_part_ptr + row, m_i + tl.math.log2(l_i), mask=offs_g < GROUP)


@triton.jit
def _merge_kernel(o_part_ptr, lse_part_ptr, out_ptr, num_splits,
                  GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, SPLIT_PAD: tl.constexpr):
    h = tl.program_id(0)  # b * Hq + query head
    bk = h // GROUP
    r = h % GROUP
    offs_s = tl.arange(0, SPLIT_PAD)
    offs_d = tl.arange(0, HEAD_DIM)
    row = (bk * num_splits + offs_s) * GROUP + r
    lse = tl.load(lse_part_ptr + row, mask=offs_s < num_splits, other=-float("inf"))
    w = tl.math.exp2(lse - tl.max(lse, 0))  # split 0 always holds keys, so the max is finite
    o = tl.load(o_part_ptr + row[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_s[:, None] < num_splits, other=0.0)
    out = tl.sum(o * w[:, None], 0) / tl.sum(w, 0)
    tl.store(out_ptr + h * HEAD_DIM + offs_d, out.to(out_ptr.dtype.element_ty))


def paged_decode_attention(q, k_cache, v_cache, block_table, context_lens):
    B, Hq, D = q.shape
    Hkv = k_cache.shape[2]
    maxp = block_table.shape[1]
    group = Hq // Hkv
    max_ctx = maxp * PAGE
    # Chunks sized for about 8 waves of programs over the longest possible context (the lengths are not
    # read on the host), a multiple of BLOCK_N and at least 256 tokens.
    splits = triton.cdiv(8 * SLOTS, B * Hkv)
    chunk = max(256, triton.cdiv(triton.cdiv(max_ctx, splits), BLOCK_N) * BLOCK_N)
    num_splits = triton.cdiv(max_ctx, chunk)
    o_part = torch.empty((B * Hkv, num_splits, group, D), device=q.device, dtype=torch.float32)
    lse_part = torch.empty((B * Hkv, num_splits, group), device=q.device, dtype=torch.float32)
    out = torch.empty_like(q)
    qk_scale = D ** -0.5 * 1.4426950408889634  # log2(e): softmax in base 2
    _paged_split_kernel[(num_splits, B * Hkv)](
        q, k_cache, v_cache, block_table, context_lens, o_part, lse_part, maxp, Hkv, chunk, num_splits, qk_scale,
        GROUP=group, GROUP_PAD=max(16, triton.next_power_of_2(group)), HEAD_DIM=D, PAGE=PAGE, BLOCK_N=BLOCK_N,
        num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    _merge_kernel[(B * Hq,)](o_part, lse_part, out, num_splits, GROUP=group, HEAD_DIM=D,
                             SPLIT_PAD=triton.next_power_of_2(num_splits), num_warps=4)
    return out
