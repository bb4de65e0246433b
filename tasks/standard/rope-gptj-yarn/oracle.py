import torch
import triton
import triton.language as tl

# Fast because: one streaming pass over q_pe and k_pe in a single launch (the first programs take q's
# (token, head) rows, the rest k's token rows): each program loads a (BLOCK_R x D) tile of whole rows with
# contiguous 16-byte accesses, splits the adjacent pairs in registers (reshape + split, no strided loads),
# rotates them with the token's cos/sin row (gathered from L1/L2: the heads of a token share it), joins
# and stores the rows contiguously. HBM sees q and k once each way plus the distinct cache rows.


@triton.jit
def _rope_pairs(x_ptr, o_ptr, pos_ptr, cs_ptr, row0, n_rows, H, HALF: tl.constexpr, BLOCK_R: tl.constexpr):
    rows = row0 + tl.arange(0, BLOCK_R)
    rmask = rows < n_rows
    pos = tl.load(pos_ptr + rows // H, mask=rmask, other=0)
    offs_h = tl.arange(0, HALF)
    offs_d = tl.arange(0, 2 * HALF)
    m2 = rmask[:, None]
    cs_row = cs_ptr + pos[:, None] * (2 * HALF) + offs_h[None, :]
    c = tl.load(cs_row, mask=m2, other=0.0)
    s = tl.load(cs_row + HALF, mask=m2, other=0.0)
    ptrs = rows.to(tl.int64)[:, None] * (2 * HALF) + offs_d[None, :]
    x = tl.load(x_ptr + ptrs, mask=m2, other=0.0).to(tl.float32)
    x0, x1 = tl.split(tl.reshape(x, [BLOCK_R, HALF, 2]))
    y = tl.reshape(tl.join(x0 * c - x1 * s, x1 * c + x0 * s), [BLOCK_R, 2 * HALF])
    tl.store(o_ptr + ptrs, y.to(o_ptr.dtype.element_ty), mask=m2)


@triton.jit
def _rope_gptj_kernel(q_ptr, k_ptr, qo_ptr, ko_ptr, pos_ptr, cs_ptr, nq_rows, T, H, nq_progs,
                      HALF: tl.constexpr, BLOCK_R: tl.constexpr):
    pid = tl.program_id(0)
    if pid < nq_progs:
        _rope_pairs(q_ptr, qo_ptr, pos_ptr, cs_ptr, pid * BLOCK_R, nq_rows, H, HALF, BLOCK_R)
    else:
        _rope_pairs(k_ptr, ko_ptr, pos_ptr, cs_ptr, (pid - nq_progs) * BLOCK_R, T, 1, HALF, BLOCK_R)


def rope_gptj_yarn(q_pe, k_pe, positions, cos_sin_cache):
    T, H, D = q_pe.shape
    q_out = torch.empty_like(q_pe)
    k_out = torch.empty_like(k_pe)
    block_r = max(1, 8192 // D)  # 128 rows of 64: 16 KB of bf16 per program
    nq_progs = triton.cdiv(T * H, block_r)
    nk_progs = triton.cdiv(T, block_r)
    _rope_gptj_kernel[(nq_progs + nk_progs,)](q_pe, k_pe, q_out, k_out, positions, cos_sin_cache, T * H, T, H,
                                              nq_progs, HALF=D // 2, BLOCK_R=block_r, num_warps=4)
    return q_out, k_out
