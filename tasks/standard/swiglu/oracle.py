import os

import torch
import triton
import triton.language as tl

# Memory-bound: 2-D tiles of BLOCK_M rows x BLOCK_N output columns; each tile loads its slice of both halves
# of the rows (a = x[:, :N], b = x[:, N:]) with contiguous vector loads, fuses the gate and the product in
# float32 registers and stores once, so x is read once and out written once. Tiles of several rows give each
# program 16-64 KB of traffic instead of one 2048-column strip (that design ran 0.93x of torch.compile at
# 8192x8192 on the H200, 2026-12-03). The eviction hint is a tuning choice (evict_first cost 3% on a plain
# stream in standard/gelu), so both are among the configs; the first config is the old design.
_CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "EVICT_FIRST": ev}, num_warps=w)
            for bm, bn, w, ev in ((1, 2048, 8, True), (1, 2048, 8, False), (2, 2048, 8, False),
                                  (4, 1024, 8, False), (4, 2048, 16, False), (8, 1024, 16, False),
                                  (2, 1024, 4, False), (8, 512, 8, False))]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


def _prune(configs, named_args, **kwargs):
    n = named_args["n_cols"]
    keep = [c for c in configs if c.kwargs["BLOCK_N"] <= max(512, triton.next_power_of_2(n))]
    return keep or configs[:1]


@triton.autotune(configs=_CONFIGS, key=["n_rows", "n_cols"], prune_configs_by={"early_config_prune": _prune})
@triton.jit
def _swiglu_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   EVICT_FIRST: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    a_ptrs = x_ptr + rows[:, None] * (2 * n_cols) + cols[None, :]
    if EVICT_FIRST:
        a = tl.load(a_ptrs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        b = tl.load(a_ptrs + n_cols, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    else:
        a = tl.load(a_ptrs, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(a_ptrs + n_cols, mask=mask, other=0.0).to(tl.float32)
    y = a / (1.0 + tl.exp(-a)) * b
    tl.store(out_ptr + rows[:, None] * n_cols + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def swiglu(x: torch.Tensor) -> torch.Tensor:
    m, two_n = x.shape
    n = two_n // 2
    out = torch.empty((m, n), dtype=x.dtype, device=x.device)
    grid = lambda meta: (triton.cdiv(m, meta["BLOCK_M"]), triton.cdiv(n, meta["BLOCK_N"]))  # noqa: E731
    _swiglu_kernel[grid](x, out, m, n)
    return out
