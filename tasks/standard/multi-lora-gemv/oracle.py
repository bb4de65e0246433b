import torch
import triton
import triton.language as tl

# Three launches, each adapter's weights read from HBM once. (1) A tiny kernel groups the tokens by adapter
# on the device (one program per adapter: a mask of its tokens, their compacted positions by cumsum, a list
# and a count), so nothing depends on the host or on sorted input. (2) The shrink: programs per (adapter,
# K slice) stream their slice of A (R x K) once against the adapter's tokens, 16 at a time, on the tensor
# cores, and write fp32 partial sums (split-K: one program per adapter is too few to keep HBM busy).
# (3) The expand: one program per (adapter, column tile) holds its tile of B (BLOCK_N x R) and applies it to
# its tokens 16 at a time (t = the partials summed and rounded to bf16), adding scale * (t @ B^T) to the base
# rows and rounding once. Roundings to bf16 are done in integer ops (round to nearest even), so the
# interpreter, whose float32 -> bfloat16 cast truncates, matches as the GPU does.


@triton.jit
def _round_bf16(v):
    """v rounded to the nearest bfloat16 (ties to even), kept in float32 (integer ops)."""
    bits = v.to(tl.uint32, bitcast=True)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.to(tl.float32, bitcast=True)


@triton.jit
def _group_tokens_kernel(idx_ptr, list_ptr, count_ptr, T, TP: tl.constexpr):
    l = tl.program_id(0)
    tok = tl.arange(0, TP)
    ids = tl.load(idx_ptr + tok, mask=tok < T, other=-1)
    mine = (ids == l).to(tl.int32)
    pos = tl.cumsum(mine, axis=0) - 1
    tl.store(list_ptr + l * T + pos, tok, mask=mine > 0)
    tl.store(count_ptr + l, tl.sum(mine, axis=0))


@triton.jit
def _shrink_kernel(x_ptr, a_ptr, part_ptr, list_ptr, count_ptr, T, K, k_chunk, R: tl.constexpr,
                   BLOCK_K: tl.constexpr):
    l = tl.program_id(0)
    split = tl.program_id(1)
    cnt = tl.load(count_ptr + l)
    offs_r = tl.arange(0, R)
    offs_k = tl.arange(0, BLOCK_K)
    a_base = a_ptr + l.to(tl.int64) * R * K
    k_start = split * k_chunk
    k_end = tl.minimum(k_start + k_chunk, K)
    for c0 in range(0, cnt, 16):
        slot = c0 + tl.arange(0, 16)
        s_mask = slot < cnt
        tok = tl.load(list_ptr + l * T + slot, mask=s_mask, other=0)
        acc = tl.zeros((16, R), dtype=tl.float32)
        for k0 in range(k_start, k_end, BLOCK_K):
            k_mask = (k0 + offs_k) < k_end
            xt = tl.load(x_ptr + tok.to(tl.int64)[:, None] * K + (k0 + offs_k)[None, :],
                         mask=s_mask[:, None] & k_mask[None, :], other=0.0)
            at = tl.load(a_base + offs_r[None, :] * K + (k0 + offs_k)[:, None], mask=k_mask[:, None], other=0.0)
            acc = tl.dot(xt, at, acc)
        tl.store(part_ptr + (split * T + tok)[:, None] * R + offs_r[None, :], acc, mask=s_mask[:, None])


@triton.jit
def _expand_kernel(part_ptr, b_ptr, base_ptr, out_ptr, list_ptr, count_ptr, scale, T, N, splits, R: tl.constexpr,
                   BLOCK_N: tl.constexpr):
    l = tl.program_id(0)
    cnt = tl.load(count_ptr + l)
    if cnt > 0:
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        n_mask = offs_n < N
        offs_r = tl.arange(0, R)
        bt = tl.load(b_ptr + l.to(tl.int64) * N * R + offs_n[None, :] * R + offs_r[:, None], mask=n_mask[None, :],
                     other=0.0)  # (R, BLOCK_N): B^T's tile
        for c0 in range(0, cnt, 16):
            slot = c0 + tl.arange(0, 16)
            s_mask = slot < cnt
            tok = tl.load(list_ptr + l * T + slot, mask=s_mask, other=0)
            t = tl.zeros((16, R), dtype=tl.float32)
            for sp in range(0, splits):  # the shrink's K-split partial sums, then t rounded to bf16
                t += tl.load(part_ptr + (sp * T + tok)[:, None] * R + offs_r[None, :], mask=s_mask[:, None],
                             other=0.0)
            d = tl.dot(_round_bf16(t).to(bt.dtype), bt)
            rows = tok.to(tl.int64)[:, None] * N + offs_n[None, :]
            mask = s_mask[:, None] & n_mask[None, :]
            base = tl.load(base_ptr + rows, mask=mask, other=0.0).to(tl.float32)
            y = _round_bf16(base + scale * d).to(out_ptr.dtype.element_ty)
            tl.store(out_ptr + rows, y, mask=mask)


def multi_lora(x: torch.Tensor, base: torch.Tensor, lora_a: torch.Tensor, lora_b: torch.Tensor, idx: torch.Tensor,
               scale: float) -> torch.Tensor:
    T, K = x.shape
    L, N, R = lora_b.shape
    block_k = 256
    # Split K so that the shrink has a few hundred programs in flight (one per adapter is too few to stream A).
    splits = max(1, min(triton.cdiv(4 * 132, L), triton.cdiv(K, block_k)))
    k_chunk = triton.cdiv(triton.cdiv(K, splits), block_k) * block_k
    splits = triton.cdiv(K, k_chunk)
    lists = torch.empty((L, T), device=x.device, dtype=torch.int32)
    counts = torch.empty((L,), device=x.device, dtype=torch.int32)
    part = torch.empty((splits, T, R), device=x.device, dtype=torch.float32)
    out = torch.empty((T, N), device=x.device, dtype=x.dtype)
    _group_tokens_kernel[(L,)](idx, lists, counts, T, TP=triton.next_power_of_2(T), num_warps=4)
    _shrink_kernel[(L, splits)](x, lora_a, part, lists, counts, T, K, k_chunk, R=R, BLOCK_K=block_k, num_warps=4,
                                num_stages=3)
    block_n = 128
    _expand_kernel[(L, triton.cdiv(N, block_n))](part, lora_b, base, out, lists, counts, scale, T, N, splits, R=R,
                                                 BLOCK_N=block_n, num_warps=4)
    return out
