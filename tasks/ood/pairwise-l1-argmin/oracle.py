import os

import torch
import triton
import triton.language as tl

# L1 has no tensor-core form: each program keeps a BM x BN distance tile in registers and accumulates
# |x - c| one coordinate at a time (two FP32 adds per pair, the abs a free modifier; the x column and c row
# from L1, U coordinates unrolled so the next loads issue under the adds), keeps a running (min, index) per
# tile element and reduces the rows once at the end, and the candidate axis is split over programs when there
# are too few query blocks to fill the 132 SMs; a tiny second kernel merges the per-split winners.
_CONFIGS = [
    triton.Config({"BM": 128, "BN": 64, "U": 4}, num_warps=4, num_stages=1),
    triton.Config({"BM": 128, "BN": 128, "U": 4}, num_warps=4, num_stages=1),
    triton.Config({"BM": 64, "BN": 64, "U": 4}, num_warps=2, num_stages=1),  # more, smaller tiles: a shorter tail
    triton.Config({"BM": 64, "BN": 128, "U": 4}, num_warps=2, num_stages=1),
]
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: one config, no tuning
    _CONFIGS = _CONFIGS[:1]


@triton.autotune(configs=_CONFIGS, key=["M", "N", "D"])
@triton.jit
def _l1_argmin_partial_kernel(x_ptr, c_ptr, best_d_ptr, best_i_ptr, M, N, D, SPLIT, BM: tl.constexpr,
                              BN: tl.constexpr, U: tl.constexpr):
    pid_m = tl.program_id(0)
    split = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    mask_m = rm < M
    x_rows = x_ptr + rm.to(tl.int64) * D
    n_blocks = tl.cdiv(N, BN)
    per_split = tl.cdiv(n_blocks, SPLIT)
    # the best distance so far and its candidate, per (row, column slot) of the tile: an elementwise compare and
    # two selects per candidate block, where a row argmin per block (a shuffle reduction) cost as much as 50 steps
    tile_d = tl.full((BM, BN), float("inf"), dtype=tl.float32)
    tile_j = tl.zeros((BM, BN), dtype=tl.int32)
    for nb in range(split * per_split, min((split + 1) * per_split, n_blocks)):
        rn = nb * BN + tl.arange(0, BN)
        mask_n = rn < N
        c_rows = c_ptr + rn.to(tl.int64) * D
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        d_main = (D // U) * U
        for k0 in range(0, d_main, U):  # unrolled by U: the next step's loads are issued under this step's adds
            for u in tl.static_range(U):
                xv = tl.load(x_rows + (k0 + u), mask=mask_m, other=0.0)
                cv = tl.load(c_rows + (k0 + u), mask=mask_n, other=0.0)
                acc += tl.abs(xv[:, None] - cv[None, :])
        for k in range(d_main, D):
            xv = tl.load(x_rows + k, mask=mask_m, other=0.0)
            cv = tl.load(c_rows + k, mask=mask_n, other=0.0)
            acc += tl.abs(xv[:, None] - cv[None, :])
        better = (acc < tile_d) & mask_n[None, :]  # blocks come in index order: a tie keeps the lower index
        tile_d = tl.where(better, acc, tile_d)
        tile_j = tl.where(better, rn[None, :], tile_j)
    best_d = tl.min(tile_d, axis=1)
    best_i = tl.min(tl.where(tile_d == best_d[:, None], tile_j, N), axis=1)  # the lowest index at the minimum
    out = split.to(tl.int64) * M + rm
    tl.store(best_d_ptr + out, best_d, mask=mask_m)
    tl.store(best_i_ptr + out, best_i, mask=mask_m)


@triton.jit
def _merge_kernel(best_d_ptr, best_i_ptr, out_ptr, M, SPLIT, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = rows < M
    best_d = tl.full((BLOCK,), float("inf"), dtype=tl.float32)
    best_i = tl.zeros((BLOCK,), dtype=tl.int32)
    for s in range(0, SPLIT):
        d = tl.load(best_d_ptr + s * M + rows, mask=mask, other=float("inf"))
        i = tl.load(best_i_ptr + s * M + rows, mask=mask, other=0)
        better = d < best_d  # splits are in index order, so an equal distance keeps the lower index
        best_d = tl.where(better, d, best_d)
        best_i = tl.where(better, i, best_i)
    tl.store(out_ptr + rows, best_i.to(tl.int64), mask=mask)


def l1_argmin(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    m, d = x.shape
    n = c.shape[0]
    out = torch.empty((m,), dtype=torch.int64, device=x.device)
    # enough (query block, candidate split) programs for ~2 waves of 132 SMs at BM = 128
    split = max(1, min(triton.cdiv(264, triton.cdiv(m, 128)), triton.cdiv(n, 128)))
    best_d = torch.empty((split, m), dtype=torch.float32, device=x.device)
    best_i = torch.empty((split, m), dtype=torch.int32, device=x.device)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]), split)
    _l1_argmin_partial_kernel[grid](x, c, best_d, best_i, m, n, d, split)
    _merge_kernel[(triton.cdiv(m, 1024),)](best_d, best_i, out, m, split, BLOCK=1024, num_warps=4)
    return out
