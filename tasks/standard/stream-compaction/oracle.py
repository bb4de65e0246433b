import torch
import triton
import triton.language as tl


# Three passes: (1) every BLOCK-element block counts its kept elements; (2) one program turns the block
# counts into exclusive block offsets (a chunked scan with a carry) and writes the total; (3) every block
# re-reads its elements, ranks the kept ones with an in-register prefix sum and stores them at their block
# offset plus rank, and zero-fills the positions of its own range that lie at or past the total. Every
# element of out is written exactly once; the result is deterministic.
@triton.jit
def _count_kernel(x_ptr, counts_ptr, n, threshold, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    o = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o, mask=o < n, other=0.0)
    keep = (o < n) & (x > threshold)
    tl.store(counts_ptr + pid, tl.sum(keep.to(tl.int32), axis=0))


@triton.jit
def _scan_kernel(counts_ptr, offs_ptr, count_ptr, n_blocks, BLOCK_S: tl.constexpr):
    carry = tl.zeros((), tl.int64)
    for s0 in range(0, n_blocks, BLOCK_S):
        s = s0 + tl.arange(0, BLOCK_S)
        c = tl.load(counts_ptr + s, mask=s < n_blocks, other=0).to(tl.int64)
        incl = tl.cumsum(c, axis=0)
        tl.store(offs_ptr + s, carry + incl - c, mask=s < n_blocks)
        carry += tl.sum(c, axis=0)
    tl.store(count_ptr, carry)


@triton.jit
def _scatter_kernel(x_ptr, offs_ptr, count_ptr, out_ptr, n, threshold, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    o = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    in_range = o < n
    x = tl.load(x_ptr + o, mask=in_range, other=0.0, eviction_policy="evict_first")
    keep = in_range & (x > threshold)
    k = keep.to(tl.int32)
    rank = tl.cumsum(k, axis=0) - k
    base = tl.load(offs_ptr + pid)
    tl.store(out_ptr + base + rank, x, mask=keep)
    total = tl.load(count_ptr)
    tl.store(out_ptr + o, tl.zeros((BLOCK,), tl.float32), mask=in_range & (o >= total))


def stream_compaction(x: torch.Tensor, threshold: float):
    n = x.numel()
    block = 4096
    n_blocks = triton.cdiv(n, block)
    counts = torch.empty((n_blocks,), dtype=torch.int32, device=x.device)
    offs = torch.empty((n_blocks,), dtype=torch.int64, device=x.device)
    out = torch.empty_like(x)
    count = torch.empty((), dtype=torch.int64, device=x.device)
    _count_kernel[(n_blocks,)](x, counts, n, threshold, BLOCK=block, num_warps=8)
    _scan_kernel[(1,)](counts, offs, count, n_blocks, BLOCK_S=4096, num_warps=8)
    _scatter_kernel[(n_blocks,)](x, offs, count, out, n, threshold, BLOCK=block, num_warps=8)
    return out, count
