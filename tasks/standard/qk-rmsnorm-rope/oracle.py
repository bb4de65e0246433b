import torch
import triton
import triton.language as tl

# Fast because: one streaming pass over q and k in a single launch (the first programs take q's rows, the
# rest k's). A program holds a (BLOCK_R rows x D) tile of (token, head) rows as two contiguous halves with
# 16-byte vector accesses, reduces each row's sum of squares in registers, scales by rsqrt and the norm
# weight, rotates with the token's cos/sin row (gathered from L1/L2: rows of one token share it) and
# writes once, so HBM sees q and k once each way plus the distinct cache rows.


@triton.jit
def _norm_rope_rows(x_ptr, o_ptr, w_ptr, pos_ptr, cs_ptr, row0, n_rows, H, eps,
                    HALF: tl.constexpr, BLOCK_R: tl.constexpr):
    rows = row0 + tl.arange(0, BLOCK_R)
    rmask = rows < n_rows
    tok = rows // H
    pos = tl.load(pos_ptr + tok, mask=rmask, other=0)
    offs = tl.arange(0, HALF)
    m2 = rmask[:, None]
    base = rows.to(tl.int64)[:, None] * (2 * HALF) + offs[None, :]
    x1 = tl.load(x_ptr + base, mask=m2, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + HALF, mask=m2, other=0.0).to(tl.float32)
    w1 = tl.load(w_ptr + offs).to(tl.float32)
    w2 = tl.load(w_ptr + HALF + offs).to(tl.float32)
    ss = tl.sum(x1 * x1, 1) + tl.sum(x2 * x2, 1)
    r = tl.math.rsqrt(ss / (2 * HALF) + eps)
    y1 = x1 * r[:, None] * w1[None, :]
    y2 = x2 * r[:, None] * w2[None, :]
    cs_row = cs_ptr + pos[:, None] * (2 * HALF) + offs[None, :]
    c = tl.load(cs_row, mask=m2, other=0.0)
    s = tl.load(cs_row + HALF, mask=m2, other=0.0)
    tl.store(o_ptr + base, (y1 * c - y2 * s).to(o_ptr.dtype.element_ty), mask=m2)
    tl.store(o_ptr + base + HALF, (y2 * c + y1 * s).to(o_ptr.dtype.element_ty), mask=m2)


@triton.jit
def _qk_norm_rope_kernel(q_ptr, k_ptr, qw_ptr, kw_ptr, qo_ptr, ko_ptr, pos_ptr, cs_ptr, nq_rows, nk_rows, Hq, Hkv,
                         nq_progs, eps, HALF: tl.constexpr, BLOCK_R: tl.constexpr):
    pid = tl.program_id(0)
    if pid < nq_progs:
        _norm_rope_rows(q_ptr, qo_ptr, qw_ptr, pos_ptr, cs_ptr, pid * BLOCK_R, nq_rows, Hq, eps, HALF, BLOCK_R)
    else:
        _norm_rope_rows(k_ptr, ko_ptr, kw_ptr, pos_ptr, cs_ptr, (pid - nq_progs) * BLOCK_R, nk_rows, Hkv, eps,
                        HALF, BLOCK_R)


def qk_rmsnorm_rope(q, k, q_weight, k_weight, positions, cos_sin_cache, eps):
    T, Hq, D = q.shape
    Hkv = k.shape[1]
    q_out = torch.empty_like(q)
    k_out = torch.empty_like(k)
    block_r = max(1, 8192 // D)  # 64 rows of 128: 16 KB of bf16 per program
    nq_progs = triton.cdiv(T * Hq, block_r)
    nk_progs = triton.cdiv(T * Hkv, block_r)
    _qk_norm_rope_kernel[(nq_progs + nk_progs,)](q, k, q_weight, k_weight, q_out, k_out, positions, cos_sin_cache,
                                                 T * Hq, T * Hkv, Hq, Hkv, nq_progs, eps, HALF=D // 2,
                                                 BLOCK_R=block_r, num_warps=4)
    return q_out, k_out
