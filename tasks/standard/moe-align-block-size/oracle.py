import torch
import triton
import triton.language as tl


# A stable counting sort in four launches, each one pass over small data:
#  1. per chunk of CHUNK assignments: the expert histogram (tl.histogram) and its exclusive prefix over
#     experts (where each expert's run starts inside the chunk once the chunk is sorted);
#  2. per expert: exclusive scan of its counts over the chunks, and its total;
#  3. one program: padded totals, their prefix (each expert's segment start), the pad value written into
#     every padding slot and the tail, and the total;
#  4. per chunk: sort the keys expert * CHUNK + position (unique, so stable by flat index), and write each
#     flat index at start[e] + chunk_prefix[e] + (its position in the sorted chunk - the run's start);
#     the same programs also fill expert_ids, a few blocks each.
@triton.jit
def _hist_kernel(ids_ptr, hist_ptr, lstart_ptr, M, n_chunks, E: tl.constexpr, EP: tl.constexpr,
                 CHUNK: tl.constexpr):
    c = tl.program_id(0)
    offs = c * CHUNK + tl.arange(0, CHUNK)
    mask = offs < M
    ids = tl.load(ids_ptr + offs, mask=mask, other=0)
    h = tl.histogram(ids, EP, mask=mask)
    ls = tl.cumsum(h, 0) - h
    ex = tl.arange(0, EP)
    tl.store(hist_ptr + ex * n_chunks + c, h, mask=ex < E)
    tl.store(lstart_ptr + ex * n_chunks + c, ls, mask=ex < E)


@triton.jit
def _chunk_scan_kernel(hist_ptr, prefix_ptr, total_ptr, n_chunks, BLOCK: tl.constexpr):
    e = tl.program_id(0)
    base = e.to(tl.int64) * n_chunks
    carry = 0
    for s in range(0, n_chunks, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        mask = offs < n_chunks
        h = tl.load(hist_ptr + base + offs, mask=mask, other=0)
        inc = tl.cumsum(h, 0)
        tl.store(prefix_ptr + base + offs, carry + inc - h, mask=mask)
        carry += tl.sum(h, 0)
    tl.store(total_ptr + e, carry)


@triton.jit
def _offsets_kernel(total_ptr, start_ptr, sorted_ptr, num_ptr, M, max_padded, BS: tl.constexpr,
                    E: tl.constexpr, EP: tl.constexpr, FILL: tl.constexpr):
    ex = tl.arange(0, EP)
    emask = ex < E
    cnt = tl.load(total_ptr + ex, mask=emask, other=0)
    padded = (cnt + BS - 1) // BS * BS
    start = tl.cumsum(padded, 0) - padded
    tl.store(start_ptr + ex, start, mask=emask)
    num = tl.sum(padded, 0)
    tl.store(num_ptr, num)
    # padding slots of each expert: start + cnt .. start + padded - 1 (at most BS - 1 of them)
    j = tl.arange(0, BS)
    pos = start[:, None] + cnt[:, None] + j[None, :]
    pmask = emask[:, None] & (pos < (start + padded)[:, None])
    tl.store(sorted_ptr + pos, tl.zeros((EP, BS), tl.int32) + M, mask=pmask)
    for s in range(num, max_padded, FILL):
        offs = s + tl.arange(0, FILL)
        tl.store(sorted_ptr + offs, tl.zeros((FILL,), tl.int32) + M, mask=offs < max_padded)


@triton.jit
def _scatter_kernel(ids_ptr, prefix_ptr, lstart_ptr, start_ptr, num_ptr, sorted_ptr, expert_ids_ptr, M, n_chunks,
                    max_blocks, blocks_per_prog, BS: tl.constexpr, E: tl.constexpr, EP: tl.constexpr,
                    CHUNK: tl.constexpr, BB: tl.constexpr):
    c = tl.program_id(0)
    p = tl.arange(0, CHUNK)
    offs = c * CHUNK + p
    mask = offs < M
    ids = tl.load(ids_ptr + offs, mask=mask, other=E)
    keys = tl.sort(ids * CHUNK + p)              # unique keys: grouped by expert, by position within
    e = keys // CHUNK
    src = keys % CHUNK
    valid = e < E
    eg = tl.where(valid, e, 0)
    base = tl.load(start_ptr + eg, mask=valid, other=0) \
        + tl.load(prefix_ptr + eg * n_chunks + c, mask=valid, other=0) \
        - tl.load(lstart_ptr + eg * n_chunks + c, mask=valid, other=0)
    tl.store(sorted_ptr + base + p, c * CHUNK + src, mask=valid)
    # expert_ids for this program's blocks: the number of experts whose segment ends at or before the block
    num = tl.load(num_ptr)
    ex = tl.arange(0, EP)
    emask = ex < E
    seg_end = tl.load(start_ptr + ex + 1, mask=ex + 1 < E, other=0)
    seg_end = tl.where(ex + 1 < E, seg_end, num)
    for s in range(c * blocks_per_prog, (c + 1) * blocks_per_prog, BB):
        b = s + tl.arange(0, BB)
        bmask = (b < (c + 1) * blocks_per_prog) & (b < max_blocks)
        first = b * BS
        idx = tl.sum(((seg_end[None, :] <= first[:, None]) & emask[None, :]).to(tl.int32), 1)
        idx = tl.where(first < num, idx, -1)
        tl.store(expert_ids_ptr + b, idx, mask=bmask)


def moe_align_block_size(topk_ids: torch.Tensor, block_size: int, num_experts: int):
    t, k = topk_ids.shape
    m = t * k
    e = num_experts
    ep = triton.next_power_of_2(e)
    dev = topk_ids.device
    chunk = 1024 if m >= (1 << 16) else 64  # small problems (the interpreter): small sorts
    n_chunks = triton.cdiv(m, chunk)
    max_padded = m + e * (block_size - 1)
    max_blocks = triton.cdiv(max_padded, block_size)
    sorted_ids = torch.empty(max_padded, dtype=torch.int32, device=dev)
    expert_ids = torch.empty(max_blocks, dtype=torch.int32, device=dev)
    num = torch.empty(1, dtype=torch.int32, device=dev)
    hist = torch.empty((e, n_chunks), dtype=torch.int32, device=dev)
    lstart = torch.empty((e, n_chunks), dtype=torch.int32, device=dev)
    prefix = torch.empty((e, n_chunks), dtype=torch.int32, device=dev)
    total = torch.empty(e, dtype=torch.int32, device=dev)
    start = torch.empty(e, dtype=torch.int32, device=dev)
    _hist_kernel[(n_chunks,)](topk_ids, hist, lstart, m, n_chunks, E=e, EP=ep, CHUNK=chunk, num_warps=4)
    _chunk_scan_kernel[(e,)](hist, prefix, total, n_chunks, BLOCK=1024, num_warps=4)
    _offsets_kernel[(1,)](total, start, sorted_ids, num, m, max_padded, BS=block_size, E=e, EP=ep,
                          FILL=4096, num_warps=8)
    blocks_per_prog = triton.cdiv(max_blocks, n_chunks)
    bb = min(64, triton.next_power_of_2(blocks_per_prog))
    _scatter_kernel[(n_chunks,)](topk_ids, prefix, lstart, start, num, sorted_ids, expert_ids, m, n_chunks,
                                 max_blocks, blocks_per_prog, BS=block_size, E=e, EP=ep, CHUNK=chunk, BB=bb,
                                 num_warps=8)
    return sorted_ids, expert_ids, num
