import torch
import triton
import triton.language as tl


# Memory-bound; every cache byte moves once. A slot map (slot -> new token, or -1) is built first (two tiny
# kernels over B * L int32), then one pass over all cache slots writes each output row exactly once: a slot
# taking a new token reads k/v (rotating k in float32 with the table row of that slot), any other slot copies
# the old cache row. Overwritten old rows are never read; rows are (H, D/2) half-tiles with 128-byte runs.
@triton.jit
def _fill_kernel(map_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(map_ptr + offs, tl.full((BLOCK,), -1, dtype=tl.int32), mask=offs < n)


@triton.jit
def _scatter_slots_kernel(pos_ptr, map_ptr, S, L, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    pos = tl.load(pos_ptr + offs, mask=mask, other=0)
    b = offs // S
    tl.store(map_ptr + b * L + pos, (offs % S).to(tl.int32), mask=mask)


@triton.jit
def _rope_cache_kernel(k_ptr, v_ptr, kc_ptr, vc_ptr, cos_ptr, sin_ptr, map_ptr, nk_ptr, nv_ptr, S, L, H,
                       HALF: tl.constexpr, ROWS: tl.constexpr, HH_P2: tl.constexpr):
    # one program: ROWS consecutive cache slots of one sequence; a row is H heads x D = 2 * HALF values
    b = tl.program_id(1)
    slots = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    slot_mask = slots < L
    src = tl.load(map_ptr + b * L + slots, mask=slot_mask, other=-1)
    is_new = src >= 0
    j = tl.arange(0, HH_P2)  # (head, d) pairs of the first half
    head = j // HALF
    d = j % HALF
    j_mask = head < H
    row_len = H * 2 * HALF
    col = head * (2 * HALF) + d
    new_rows = (b * S + tl.maximum(src, 0)).to(tl.int64) * row_len
    old_rows = (b * L + slots).to(tl.int64) * row_len
    m_new = (is_new & slot_mask)[:, None] & j_mask[None, :]
    m_old = ((~is_new) & slot_mask)[:, None] & j_mask[None, :]
    m_all = slot_mask[:, None] & j_mask[None, :]
    new_lo = new_rows[:, None] + col[None, :]
    old_lo = old_rows[:, None] + col[None, :]

    # keys: rotate where the slot takes a new token, else copy
    k1 = tl.load(k_ptr + new_lo, mask=m_new, other=0.0).to(tl.float32)
    k2 = tl.load(k_ptr + new_lo + HALF, mask=m_new, other=0.0).to(tl.float32)
    tab = slots[:, None] * HALF + d[None, :]
    c = tl.load(cos_ptr + tab, mask=m_new, other=0.0)
    sn = tl.load(sin_ptr + tab, mask=m_new, other=0.0)
    o1 = tl.load(kc_ptr + old_lo, mask=m_old, other=0.0)
    o2 = tl.load(kc_ptr + old_lo + HALF, mask=m_old, other=0.0)
    r1 = tl.where(m_new, (k1 * c - k2 * sn).to(nk_ptr.dtype.element_ty), o1)
    r2 = tl.where(m_new, (k2 * c + k1 * sn).to(nk_ptr.dtype.element_ty), o2)
    tl.store(nk_ptr + old_lo, r1, mask=m_all)
    tl.store(nk_ptr + old_lo + HALF, r2, mask=m_all)

    # values: a plain select between the new token and the old slot
    v1 = tl.load(v_ptr + new_lo, mask=m_new, other=0.0)
    v2 = tl.load(v_ptr + new_lo + HALF, mask=m_new, other=0.0)
    p1 = tl.load(vc_ptr + old_lo, mask=m_old, other=0.0)
    p2 = tl.load(vc_ptr + old_lo + HALF, mask=m_old, other=0.0)
    tl.store(nv_ptr + old_lo, tl.where(m_new, v1, p1), mask=m_all)
    tl.store(nv_ptr + old_lo + HALF, tl.where(m_new, v2, p2), mask=m_all)


def rope_kv_cache(k, v, k_cache, v_cache, cos, sin, positions):
    b, s, h, d = k.shape
    l = k_cache.shape[1]
    half = d // 2
    new_k = torch.empty_like(k_cache)
    new_v = torch.empty_like(v_cache)
    slot_map = torch.empty((b, l), dtype=torch.int32, device=k.device)
    _fill_kernel[(triton.cdiv(b * l, 1024),)](slot_map, b * l, BLOCK=1024, num_warps=4)
    _scatter_slots_kernel[(triton.cdiv(b * s, 1024),)](positions, slot_map, s, l, b * s, BLOCK=1024, num_warps=4)
    hh = triton.next_power_of_2(h * half)
    rows = max(1, 4096 // hh)
    _rope_cache_kernel[(triton.cdiv(l, rows), b)](k, v, k_cache, v_cache, cos, sin, slot_map, new_k, new_v, s, l, h,
                                                  HALF=half, ROWS=rows, HH_P2=hh, num_warps=8)
    return new_k, new_v
