import os

import torch
import triton
import triton.language as tl


@triton.jit
def _combine(a1, b1, a2, b2):
    # (a1, b1) then (a2, b2): h -> a2 * (a1 * h + b1) + b2
    return a1 * a2, a2 * b1 + b2


# Memory-bound: each program owns BD contiguous channels of one batch element and walks time in BT-step
# tiles; inside a tile the recurrence is an associative scan over (a, b) pairs (parallel, in registers), so
# each tile is one coalesced load of a and b and one store of h, with only the carry h passed between tiles.
_CONFIGS = [
    triton.Config({"BT": 64, "BD": 32}, num_warps=4, num_stages=3),
    triton.Config({"BT": 64, "BD": 16}, num_warps=2, num_stages=3),
    triton.Config({"BT": 32, "BD": 32}, num_warps=4, num_stages=1),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["NB", "T", "D"])
@triton.jit
def _glr_kernel(a_ptr, b_ptr, h_ptr, NB, T, D, BT: tl.constexpr, BD: tl.constexpr):
    pid_b = tl.program_id(0)
    chans = tl.program_id(1) * BD + tl.arange(0, BD)
    chan_mask = chans < D
    base = pid_b.to(tl.int64) * T * D
    carry = tl.zeros((BD,), dtype=tl.float32)
    for t0 in range(0, T, BT):
        steps = t0 + tl.arange(0, BT)
        mask = (steps < T)[:, None] & chan_mask[None, :]
        offsets = base + steps.to(tl.int64)[:, None] * D + chans[None, :]
        a = tl.load(a_ptr + offsets, mask=mask, other=1.0, eviction_policy="evict_first")
        b = tl.load(b_ptr + offsets, mask=mask, other=0.0, eviction_policy="evict_first")
        a_cum, b_cum = tl.associative_scan((a, b), axis=0, combine_fn=_combine)
        h = a_cum * carry[None, :] + b_cum
        tl.store(h_ptr + offsets, h, mask=mask)
        carry = tl.sum(tl.where(steps[:, None] == t0 + BT - 1, h, 0.0), axis=0)
    # (masked steps past T carry a = 1, b = 0, so the last row of the last tile is still valid)


def gated_linear_recurrence(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    batch, t, d = a.shape
    h = torch.empty_like(a)
    grid = lambda meta: (batch, triton.cdiv(d, meta["BD"]))
    _glr_kernel[grid](a, b, h, batch, t, d)
    return h
