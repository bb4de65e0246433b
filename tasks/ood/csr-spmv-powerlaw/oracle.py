import torch
import triton
import triton.language as tl

# Work split two ways so that no program waits on one row. (1) Short rows (<= LONG nonzeros, nearly all of them):
# a program takes R consecutive rows as an (R, BK) tile per step, so a row of a handful of nonzeros costs one
# masked step; long rows are only given y = 0 here. (2) Long rows: the nonzeros are cut into equal chunks of CH
# (the merge-path idea on the nonzero axis); a program finds the row under its chunk start by binary search in
# indptr, scans the rows that meet its chunk for long ones (a vector test per window of rows) and streams each
# long row's part of the chunk in coalesced blocks, adding the partial sum to y with one atomic. Every program
# so has bounded work: at most R short rows, or at most CH nonzeros of long rows.
_LONG = 128     # longer rows go to the chunked kernel
_R = 128        # short rows a program
_BK = 16        # nonzeros of a short row a step
_CH = 8192      # nonzeros a chunk
_RW = 1024      # rows tested at once for length
_BLOCK = 1024   # nonzeros a step in a long row


@triton.jit
def _short_rows_kernel(indptr, indices, values, x, y, M, LONG: tl.constexpr, R: tl.constexpr, BK: tl.constexpr):
    rows = tl.program_id(0) * R + tl.arange(0, R)
    in_range = rows < M
    start = tl.load(indptr + rows, mask=in_range, other=0)
    length = tl.load(indptr + rows + 1, mask=in_range, other=0) - start
    length = tl.where(in_range & (length <= LONG), length, 0)
    acc = tl.zeros((R, BK), dtype=tl.float32)
    for j in range(0, tl.max(length, axis=0), BK):
        k = j + tl.arange(0, BK)
        mask = k[None, :] < length[:, None]
        at = start[:, None] + k[None, :]
        col = tl.load(indices + at, mask=mask, other=0)
        val = tl.load(values + at, mask=mask, other=0.0)
        acc += val * tl.load(x + col, mask=mask, other=0.0)
    tl.store(y + rows, tl.sum(acc, axis=1), mask=in_range)


@triton.jit
def _long_rows_kernel(indptr, indices, values, x, y, M, NNZ, SEARCH_STEPS, LONG: tl.constexpr, CH: tl.constexpr,
                      RW: tl.constexpr, BLOCK: tl.constexpr):
    c_start = tl.program_id(0) * CH
    c_end = tl.minimum(c_start + CH, NNZ)
    # the row holding nonzero c_start: the last r with indptr[r] <= c_start (rows are never empty)
    lo = 0
    hi = M - 1
    for _ in range(SEARCH_STEPS):
        mid = (lo + hi + 1) // 2
        below = tl.load(indptr + mid) <= c_start
        lo = tl.where(below, mid, lo)
        hi = tl.where(below, hi, mid - 1)
    window = lo
    while tl.load(indptr + tl.minimum(window, M)) < c_end:  # indptr[M] = NNZ ends the scan
        rows = window + tl.arange(0, RW)
        in_range = rows < M
        start = tl.load(indptr + rows, mask=in_range, other=0)
        end = tl.load(indptr + rows + 1, mask=in_range, other=0)
        todo = in_range & (start < c_end) & (end > c_start) & (end - start > LONG)
        while tl.max(todo.to(tl.int32), axis=0) > 0:
            row = tl.min(tl.where(todo, rows, M), axis=0)
            todo = todo & (rows != row)
            lo_p = tl.maximum(tl.load(indptr + row), c_start)
            hi_p = tl.minimum(tl.load(indptr + row + 1), c_end)
            acc = tl.zeros((BLOCK,), dtype=tl.float32)
            for p in range(lo_p, hi_p, BLOCK):
                at = p + tl.arange(0, BLOCK)
                mask = at < hi_p
                col = tl.load(indices + at, mask=mask, other=0)
                val = tl.load(values + at, mask=mask, other=0.0)
                acc += val * tl.load(x + col, mask=mask, other=0.0)
            tl.atomic_add(y + row, tl.sum(acc, axis=0), sem="relaxed")
        window += RW


def csr_spmv(indptr: torch.Tensor, indices: torch.Tensor, values: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    m = indptr.numel() - 1
    nnz = indices.numel()
    y = torch.empty(m, dtype=torch.float32, device=values.device)
    _short_rows_kernel[(triton.cdiv(m, _R),)](indptr, indices, values, x, y, m, LONG=_LONG, R=_R, BK=_BK,
                                              num_warps=4)
    steps = max(1, (m - 1).bit_length() + 1)
    _long_rows_kernel[(triton.cdiv(nnz, _CH),)](indptr, indices, values, x, y, m, nnz, steps, LONG=_LONG, CH=_CH,
                                                RW=_RW, BLOCK=_BLOCK, num_warps=4)
    return y
