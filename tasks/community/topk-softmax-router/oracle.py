import torch
import triton
import triton.language as tl


# Memory-bound: each program routes BT tokens as a (BT, E) register tile loaded with 16-byte accesses;
# softmax statistics and the k rounds of (max, argmax, mask out) are all register reductions, so the
# logits are read once and only the (T, k) results are written.
@triton.jit
def _topk_softmax_kernel(logits_ptr, w_ptr, idx_ptr, T, E: tl.constexpr, K: tl.constexpr, BT: tl.constexpr,
                         BE: tl.constexpr):
    # E is a compile-time constant so row starts and the column mask are known to be aligned (vector loads
    # even when E is not a multiple of 16)
    rows = tl.program_id(0) * BT + tl.arange(0, BT)
    cols = tl.arange(0, BE)
    row_mask = rows < T
    mask = row_mask[:, None] & (cols < E)[None, :]
    x = tl.load(logits_ptr + rows.to(tl.int64)[:, None] * E + cols[None, :], mask=mask, other=-float("inf"))
    row_max = tl.where(row_mask, tl.max(x, axis=1), 0.0)
    e = tl.exp(x - row_max[:, None])  # exactly 0 where masked (x = -inf)
    inv = 1.0 / tl.where(row_mask, tl.sum(e, axis=1), 1.0)
    p = e * inv[:, None]
    p = tl.where(mask, p, -1.0)
    for i in tl.static_range(K):
        best, arg = tl.max(p, axis=1, return_indices=True)
        tl.store(w_ptr + rows * K + i, best, mask=row_mask)
        tl.store(idx_ptr + rows * K + i, arg.to(tl.int64), mask=row_mask)
        p = tl.where(cols[None, :] == arg[:, None], -1.0, p)


def topk_softmax(logits: torch.Tensor, top_k: int):
    t, e = logits.shape
    weights = torch.empty((t, top_k), dtype=torch.float32, device=logits.device)
    indices = torch.empty((t, top_k), dtype=torch.int64, device=logits.device)
    be = triton.next_power_of_2(e)
    bt = max(1, 4096 // be)
    _topk_softmax_kernel[(triton.cdiv(t, bt),)](logits, weights, indices, t, e, K=top_k, BT=bt, BE=be,
                                                 num_warps=8)
    return weights, indices
