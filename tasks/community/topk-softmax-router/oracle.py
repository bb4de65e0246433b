import os

import torch
import triton
import triton.language as tl


# Memory-bound: each program routes BT tokens as a (BT, E) register tile loaded with 16-byte accesses;
# softmax statistics and the k rounds of (max, argmax, mask out) are all register reductions, so the
# logits are read once and only the (T, k) results are written.
# Softmax is monotonic, so the top-k of p are the top-k of the logits: the first is the row maximum that the
# softmax needs anyway (one indexed max), the others come from indexed maxima of the logits with the chosen
# experts masked out, and p is formed only at the k winners: per element one exp, one sum and k max
# reductions (the old kernel also scaled and masked every p and ran k indexed maxima over p). Tokens per
# program and warps are tuned per (T, E): with 16 tokens of 256 lanes on 8 warps every row reduction
# crossed warps (through shared memory), and E = 160 and 256 ran at 25% and 39% of the floor on the H200
# (2026-12-03). That old choice is the first config.
_CONFIGS = [triton.Config({"TOKENS": tokens}, num_warps=warps)
            for tokens, warps in ((4096, 8), (4096, 4), (8192, 4), (8192, 8), (2048, 4), (2048, 2), (16384, 8),
                                  (1024, 1), (2048, 1))]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["T", "E"])
@triton.jit
def _topk_softmax_kernel(logits_ptr, w_ptr, idx_ptr, T, E: tl.constexpr, K: tl.constexpr, BE: tl.constexpr,
                         TOKENS: tl.constexpr):
    # E is a compile-time constant so row starts and the column mask are known to be aligned (vector loads
    # even when E is not a multiple of 16); TOKENS is the tile's element count, BT = TOKENS // BE rows
    BT: tl.constexpr = max(1, TOKENS // BE)
    rows = tl.program_id(0) * BT + tl.arange(0, BT)
    cols = tl.arange(0, BE)
    row_mask = rows < T
    mask = row_mask[:, None] & (cols < E)[None, :]
    x = tl.load(logits_ptr + rows.to(tl.int64)[:, None] * E + cols[None, :], mask=mask, other=-float("inf"))
    row_max, arg = tl.max(x, axis=1, return_indices=True)
    row_max = tl.where(row_mask, row_max, 0.0)
    inv = 1.0 / tl.where(row_mask, tl.sum(tl.exp(x - row_max[:, None]), axis=1), 1.0)  # masked lanes: exp(-inf) = 0
    best = row_max
    for i in tl.static_range(K):
        if i > 0:
            x = tl.where(cols[None, :] == arg[:, None], -float("inf"), x)
            best, arg = tl.max(x, axis=1, return_indices=True)
        tl.store(w_ptr + rows * K + i, tl.exp(best - row_max) * inv, mask=row_mask)
        tl.store(idx_ptr + rows * K + i, arg.to(tl.int64), mask=row_mask)


def topk_softmax(logits: torch.Tensor, top_k: int):
    t, e = logits.shape
    weights = torch.empty((t, top_k), dtype=torch.float32, device=logits.device)
    indices = torch.empty((t, top_k), dtype=torch.int64, device=logits.device)
    be = triton.next_power_of_2(e)
    grid = lambda meta: (triton.cdiv(t, max(1, meta["TOKENS"] // be)),)  # noqa: E731
    _topk_softmax_kernel[grid](logits, weights, indices, t, e, K=top_k, BE=be)
    return weights, indices
