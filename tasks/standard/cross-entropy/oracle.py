import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)


# Pass 1 reads each logit once: a single-pass online logsumexp over (row, split) segments, one max per chunk
# and one exp2 per element, with rows split across programs when M is too small to fill 132 SMs.
@triton.jit
def _ce_partial_kernel(logits_ptr, pmax_ptr, psum_ptr, V, chunks_per_split, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    split = tl.program_id(1)
    n_splits = tl.num_programs(1)
    base = logits_ptr + row.to(tl.int64) * V
    offs = tl.arange(0, BLOCK)
    m = -1.0e30
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    start = split * chunks_per_split * BLOCK
    for c in range(0, chunks_per_split):
        cols = start + c * BLOCK + offs
        mask = cols < V
        x = tl.load(base + cols, mask=mask, other=-1.0e30).to(tl.float32) * _LOG2E
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp2(m - m_new) + tl.where(mask, tl.exp2(x - m_new), 0.0)
        m = m_new
    tl.store(pmax_ptr + row * n_splits + split, m)  # in log2 units
    tl.store(psum_ptr + row * n_splits + split, tl.sum(s, axis=0))


# Pass 2 (one program): merge the split partials per row, subtract the target logit, average over rows.
@triton.jit
def _ce_finish_kernel(logits_ptr, targets_ptr, pmax_ptr, psum_ptr, out_ptr, M, V, n_splits,
                      BLOCK_M: tl.constexpr, BLOCK_S: tl.constexpr):
    offs_s = tl.arange(0, BLOCK_S)
    total = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for m0 in range(0, M, BLOCK_M):
        rows = m0 + tl.arange(0, BLOCK_M)
        r_mask = rows < M
        mask = r_mask[:, None] & (offs_s < n_splits)[None, :]
        p = rows[:, None] * n_splits + offs_s[None, :]
        pm = tl.load(pmax_ptr + p, mask=mask, other=-1.0e30)
        ps = tl.load(psum_ptr + p, mask=mask, other=0.0)
        gm = tl.max(pm, axis=1)
        tot = tl.sum(ps * tl.exp2(pm - gm[:, None]), axis=1)
        lse = (gm + tl.log2(tl.where(r_mask, tot, 1.0))) / _LOG2E
        tgt = tl.load(targets_ptr + rows, mask=r_mask, other=0)
        xt = tl.load(logits_ptr + rows.to(tl.int64) * V + tgt, mask=r_mask, other=0.0).to(tl.float32)
        total += tl.where(r_mask, lse - xt, 0.0)
    tl.store(out_ptr, tl.sum(total, axis=0) / M)


def cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    m, v = logits.shape
    block = 4096 if v >= 4096 else triton.next_power_of_2(v)
    n_chunks = triton.cdiv(v, block)
    n_splits = max(1, min(n_chunks, triton.cdiv(8 * 132, m)))
    chunks_per_split = triton.cdiv(n_chunks, n_splits)
    n_splits = triton.cdiv(n_chunks, chunks_per_split)
    pmax = torch.empty((m * n_splits,), dtype=torch.float32, device=logits.device)
    psum = torch.empty((m * n_splits,), dtype=torch.float32, device=logits.device)
    out = torch.empty((), dtype=torch.float32, device=logits.device)
    _ce_partial_kernel[(m, n_splits)](logits, pmax, psum, v, chunks_per_split, BLOCK=block,
                                      num_warps=8 if block >= 2048 else 4)
    _ce_finish_kernel[(1,)](logits, targets, pmax, psum, out, m, v, n_splits,
                            BLOCK_M=128, BLOCK_S=triton.next_power_of_2(n_splits), num_warps=4)
    return out
