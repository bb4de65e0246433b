import os

import torch
import triton
import triton.language as tl

# Memory-bound with ragged segments, one design for every length. Each program owns SEGS consecutive whole
# segments, so its elements are one contiguous range [lo, hi) of x, which it streams densely in BLOCK-element
# chunks (coalesced, no lane idles on a short segment). Within a chunk, a histogram of the segment starts
# (and of the segment ends) that fall in it gives per-element start and end flags, and a cumulative sum of
# the start flags gives each element its segment. Three sweeps over the range:
#   1. a segmented max scan (flags reset it; the open segment's max carries into the next chunk); the
#      running max at each segment's last element is the segment's max, stored to a scratch array;
#   2. exp(x - max) with the max gathered back (consecutive elements share one address), a segmented sum
#      scan, the sum stored at each segment's last element;
#   3. out = exp(x - max) / sum.
# Sweeps 2 and 3 re-read the program's range (tens of KB) from L1/L2, so x leaves HBM about once; the scratch
# holds 8 bytes per segment. The stats are read back with .cg (from L2), after a barrier, so no line another
# program left in L1 is read stale. The old design (a (BLOCK x SEGS) membership mask per chunk for short
# segments) ran at 3% of the floor with 16-element segments on the H200 (2026-12-02).
_CONFIGS = [triton.Config({"SEGS": segs, "BLOCK": block}, num_warps=warps)
            for segs, block, warps in ((16, 1024, 4), (64, 1024, 4), (256, 1024, 4), (256, 2048, 8),
                                       (128, 2048, 8), (32, 2048, 8), (8, 2048, 8), (4, 1024, 4), (2, 1024, 4),
                                       (2, 2048, 8), (1, 2048, 8))]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one small config, no tuning
    _CONFIGS = [triton.Config({"SEGS": 8, "BLOCK": 256}, num_warps=4)]


def _prune(configs, named_args, **kwargs):
    # A program's range should hold a few chunks: SEGS * mean length within [BLOCK, 32 * BLOCK].
    if len(configs) == 1:
        return configs
    mean = max(1, named_args["N"] // max(1, named_args["S"]))
    keep = [c for c in configs if c.kwargs["BLOCK"] <= c.kwargs["SEGS"] * mean <= 32 * c.kwargs["BLOCK"]]
    if not keep:  # very short or very long segments: the extreme SEGS
        keep = [max(configs, key=lambda c: c.kwargs["SEGS"])] if mean < 16 else \
            [min(configs, key=lambda c: c.kwargs["SEGS"])]
    return keep


@triton.jit
def _seg_max(f1, a1, f2, a2):
    return f1 | f2, tl.where(f2 != 0, a2, tl.maximum(a1, a2))


@triton.jit
def _seg_sum(f1, a1, f2, a2):
    return f1 | f2, tl.where(f2 != 0, a2, a1 + a2)


@triton.jit
def _chunk_flags(starts, ends, seg_mask, c0, BLOCK: tl.constexpr):
    rs = starts - c0
    re = ends - 1 - c0
    # Starts (and ends) are distinct, so each bin counts 0 or 1; "> 0" keeps that true even where a layout
    # holds a segment's entry in several threads.
    flags = tl.histogram(rs.to(tl.int32), BLOCK, mask=seg_mask & (rs >= 0) & (rs < BLOCK))
    last = tl.histogram(re.to(tl.int32), BLOCK, mask=seg_mask & (re >= 0) & (re < BLOCK))
    return (flags > 0).to(tl.int32), last


@triton.autotune(configs=_CONFIGS, key=["N", "S"], prune_configs_by={"early_config_prune": _prune})
@triton.jit
def _segmented_softmax_kernel(x_ptr, off_ptr, out_ptr, max_ptr, sum_ptr, N, S,
                              SEGS: tl.constexpr, BLOCK: tl.constexpr):
    first = tl.program_id(0) * SEGS
    segs = first + tl.arange(0, SEGS)
    seg_mask = segs < S
    starts = tl.load(off_ptr + segs, mask=seg_mask, other=0)
    ends = tl.load(off_ptr + segs + 1, mask=seg_mask, other=0)
    lo = tl.load(off_ptr + first)
    hi = tl.load(off_ptr + tl.minimum(first + SEGS, S))
    lanes = tl.arange(0, BLOCK)

    # 1. segment maxima
    carry = -float("inf")
    base = first - 1
    for c0 in range(lo, hi, BLOCK):
        e = c0 + lanes
        valid = e < hi
        v = tl.load(x_ptr + e, mask=valid, other=-float("inf"))
        flags, last = _chunk_flags(starts, ends, seg_mask, c0, BLOCK)
        cum = tl.cumsum(flags, 0)
        _, run = tl.associative_scan((flags, v), 0, _seg_max)
        run = tl.where(cum == 0, tl.maximum(run, carry), run)
        tl.store(max_ptr + base + cum, run, mask=(last > 0) & valid)
        carry = tl.max(tl.where(lanes == BLOCK - 1, run, -float("inf")), axis=0)
        base += tl.sum(flags, axis=0)
    tl.debug_barrier()

    # 2. segment sums of exp(x - max)
    carry_sum = 0.0
    base = first - 1
    for c0 in range(lo, hi, BLOCK):
        e = c0 + lanes
        valid = e < hi
        v = tl.load(x_ptr + e, mask=valid, other=-float("inf"))
        flags, last = _chunk_flags(starts, ends, seg_mask, c0, BLOCK)
        cum = tl.cumsum(flags, 0)
        m = tl.load(max_ptr + base + cum, mask=valid, other=0.0, cache_modifier=".cg")
        _, run = tl.associative_scan((flags, tl.exp(v - m)), 0, _seg_sum)
        run = tl.where(cum == 0, run + carry_sum, run)
        tl.store(sum_ptr + base + cum, run, mask=(last > 0) & valid)
        carry_sum = tl.sum(tl.where(lanes == BLOCK - 1, run, 0.0), axis=0)
        base += tl.sum(flags, axis=0)
    tl.debug_barrier()

    # 3. the output
    base = first - 1
    for c0 in range(lo, hi, BLOCK):
        e = c0 + lanes
        valid = e < hi
        v = tl.load(x_ptr + e, mask=valid, other=0.0)
        flags, last = _chunk_flags(starts, ends, seg_mask, c0, BLOCK)
        cum = tl.cumsum(flags, 0)
        m = tl.load(max_ptr + base + cum, mask=valid, other=0.0, cache_modifier=".cg")
        total = tl.load(sum_ptr + base + cum, mask=valid, other=1.0, cache_modifier=".cg")
        tl.store(out_ptr + e, tl.exp(v - m) / total, mask=valid)
        base += tl.sum(flags, axis=0)


def segmented_softmax(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    n = x.numel()
    s = offsets.numel() - 1
    out = torch.empty_like(x)
    seg_max = torch.empty(s, dtype=torch.float32, device=x.device)
    seg_sum = torch.empty(s, dtype=torch.float32, device=x.device)
    grid = lambda meta: (triton.cdiv(s, meta["SEGS"]),)  # noqa: E731
    _segmented_softmax_kernel[grid](x, offsets, out, seg_max, seg_sum, n, s)
    return out
