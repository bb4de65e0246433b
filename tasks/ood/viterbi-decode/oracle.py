import os

import torch
import triton
import triton.language as tl

# Forward: each program keeps BB sequences' score vectors delta (BB x S) and the whole S x S transition matrix in
# registers and runs the recursion as one broadcast add and one max-reduction over the previous state per step
# (a [BB, S_prev, S] tile, the reduction mostly within each thread); the emissions are prefetched two steps
# ahead and every delta_t is written out. No backpointers are kept, so the forward pass does two operations per
# (sequence, step, state pair) instead of the four an argmax would need. The backtrace, a second latency-bound
# kernel with one warp per two sequences (its argmax needs only shuffles), recomputes
# argmax_i delta_{t-1}[i] + transitions[i, z_t] along the path only, from the stored deltas (prefetched, as they do
# not depend on the path) and a transposed copy of the transitions (one contiguous row per step).
_CONFIGS = [
    triton.Config({"BB": 4}, num_warps=8),
    triton.Config({"BB": 8}, num_warps=8),
    triton.Config({"BB": 2}, num_warps=4),
    triton.Config({"BB": 4}, num_warps=4),
    triton.Config({"BB": 2}, num_warps=8),
    triton.Config({"BB": 1}, num_warps=8),
    triton.Config({"BB": 4}, num_warps=16),
    triton.Config({"BB": 1}, num_warps=4),
]


def _fits(configs, named_args, **kwargs):
    # 64 to 128 elements of the [BB, S_prev, S] tile per thread: fewer leave the per-step layout conversions and
    # barriers unamortised (S = 64, BB = 2 on 8 warps even reloads the transitions each step), more spill; the
    # sm_90 builds of the kept ones do 2.5 to 3.2 instructions per (state, previous state) pair per step
    sp = max(16, triton.next_power_of_2(named_args["S"]))
    per_thread = {id(c): c.kwargs["BB"] * sp * sp // (32 * c.num_warps) for c in configs}
    kept = [c for c in configs if 64 <= per_thread[id(c)] <= 128]
    if not kept:  # small S: the configs with the most work per thread
        most = max(v for v in per_thread.values() if v <= 128)
        kept = [c for c in configs if per_thread[id(c)] == most]
    if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
        kept = kept[:1]
    return kept


@triton.autotune(configs=_CONFIGS, key=["B", "T", "S"], prune_configs_by={"early_config_prune": _fits})
@triton.jit
def _forward_kernel(em_ptr, tr_ptr, init_ptr, delta_ptr, trt_ptr, B, T, S, BB: tl.constexpr, SP: tl.constexpr):
    pid = tl.program_id(0)
    rb = pid * BB + tl.arange(0, BB)
    rs = tl.arange(0, SP)
    mb = rb < B
    ms = rs < S
    m2 = mb[:, None] & ms[None, :]
    # padded states get -inf transitions and emissions, so they never win a max
    tr = tl.load(tr_ptr + rs[:, None] * S + rs[None, :], mask=ms[:, None] & ms[None, :], other=-float("inf"))
    if pid == 0:  # the backtrace reads columns of the transitions as rows
        tl.store(trt_ptr + rs[None, :] * S + rs[:, None], tr, mask=ms[:, None] & ms[None, :])
    base = rb.to(tl.int64) * T * S
    em_rows = em_ptr + base[:, None] + rs[None, :]
    dl_rows = delta_ptr + base[:, None] + rs[None, :]
    d = tl.load(init_ptr + rs, mask=ms, other=-float("inf"))[None, :] + tl.load(em_rows, mask=m2, other=-float("inf"))
    tl.store(dl_rows, d, mask=m2)
    e1 = tl.load(em_rows + S, mask=m2 & (T > 1), other=-float("inf"))
    e2 = tl.load(em_rows + 2 * S, mask=m2 & (T > 2), other=-float("inf"))
    for t in range(1, T):
        cur = e1
        e1 = e2
        e2 = tl.load(em_rows + (t + 2) * S, mask=m2 & (t + 2 < T), other=-float("inf"))
        d = tl.max(d[:, :, None] + tr[None, :, :], axis=1) + cur
        tl.store(dl_rows + t * S, d, mask=m2)


@triton.jit
def _backtrace_kernel(delta_ptr, trt_ptr, path_ptr, score_ptr, B, T, S, BB: tl.constexpr, SP: tl.constexpr):
    pid = tl.program_id(0)
    rb = pid * BB + tl.arange(0, BB)
    rs = tl.arange(0, SP)
    mb = rb < B
    ms = rs < S
    m2 = mb[:, None] & ms[None, :]
    dl_rows = delta_ptr + (rb.to(tl.int64) * T * S)[:, None] + rs[None, :]
    path_rows = path_ptr + rb.to(tl.int64) * T
    d = tl.load(dl_rows + (T - 1) * S, mask=m2, other=-float("inf"))
    score, z = tl.max(d, axis=1, return_indices=True)
    tl.store(score_ptr + rb, score, mask=mb)
    tl.store(path_rows + (T - 1), z.to(tl.int64), mask=mb)
    # the deltas do not depend on the path: prefetched two steps ahead, off the critical z -> z chain
    p1 = tl.load(dl_rows + (T - 2) * S, mask=m2 & (T > 1), other=-float("inf"))
    p2 = tl.load(dl_rows + (T - 3) * S, mask=m2 & (T > 2), other=-float("inf"))
    for t in range(T - 1, 0, -1):
        dprev = p1
        p1 = p2
        p2 = tl.load(dl_rows + (t - 3) * S, mask=m2 & (t > 2), other=-float("inf"))
        col = tl.load(trt_ptr + z[:, None] * S + rs[None, :], mask=m2, other=-float("inf"))
        z = tl.argmax(dprev + col, axis=1)
        tl.store(path_rows + (t - 1), z.to(tl.int64), mask=mb)


def viterbi_decode(emissions: torch.Tensor, transitions: torch.Tensor, initial: torch.Tensor):
    b, t, s = emissions.shape
    dev = emissions.device
    sp = max(16, triton.next_power_of_2(s))
    delta = torch.empty((b, t, s), dtype=torch.float32, device=dev)
    trt = torch.empty((s, s), dtype=torch.float32, device=dev)
    path = torch.empty((b, t), dtype=torch.int64, device=dev)
    score = torch.empty((b,), dtype=torch.float32, device=dev)
    _forward_kernel[lambda meta: (triton.cdiv(b, meta["BB"]),)](emissions, transitions, initial, delta, trt, b, t, s,
                                                               SP=sp)
    _backtrace_kernel[(triton.cdiv(b, 2),)](delta, trt, path, score, b, t, s, BB=2, SP=sp, num_warps=1)
    return path, score
