import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)

PAGE = 16  # tokens per page
BLOCK_N = 64  # tokens per tile: four pages
HALF = 64  # head-dim columns per TMA box and per shared buffer: 128 bytes, one 128B-swizzle row
GROUP_ROWS = 64  # wgmma's M: the query heads of one KV head, padded with zero rows
STAGES = 3  # K/V tiles in the ring: 3 x 32 KB + 16 KB of q = 112 KB, two programs per SM
NUM_WARPS = 4  # one warpgroup
LOG2E = 1.4426950408889634


@gluon.jit
def _page_ids(bt_row, tile, MAXP):
    """The page numbers of the four pages of `tile` (indices clamped into the table's row: tiles past the
    context read valid pages that the mask then ignores)."""
    first = tile * 4
    p0 = gl.load(bt_row + gl.minimum(first, MAXP - 1))
    p1 = gl.load(bt_row + gl.minimum(first + 1, MAXP - 1))
    p2 = gl.load(bt_row + gl.minimum(first + 2, MAXP - 1))
    p3 = gl.load(bt_row + gl.minimum(first + 3, MAXP - 1))
    return p0, p1, p2, p3


@gluon.jit
def _issue_page(desc, page, col, bar, ring, slot, j: gl.constexpr):
    tma.async_copy_global_to_shared(desc, [page * 16, col], bar, ring.index(2 * slot).slice(j * 16, 16))
    tma.async_copy_global_to_shared(desc, [page * 16, col + 64], bar, ring.index(2 * slot + 1).slice(j * 16, 16))


@gluon.jit
def _issue_tile(k_desc, v_desc, k_ring, v_ring, k_bars, v_bars, slot, p0, p1, p2, p3, col):
    """TMA the K and V rows of four pages (16 tokens x 128 dims each, as two 64-column halves) into `slot`."""
    tile_bytes: gl.constexpr = 8 * k_desc.block_type.nbytes
    kb = k_bars.index(slot)
    mbarrier.expect(kb, tile_bytes)
    _issue_page(k_desc, p0, col, kb, k_ring, slot, 0)
    _issue_page(k_desc, p1, col, kb, k_ring, slot, 1)
    _issue_page(k_desc, p2, col, kb, k_ring, slot, 2)
    _issue_page(k_desc, p3, col, kb, k_ring, slot, 3)
    vb = v_bars.index(slot)
    mbarrier.expect(vb, tile_bytes)
    _issue_page(v_desc, p0, col, vb, v_ring, slot, 0)
    _issue_page(v_desc, p1, col, vb, v_ring, slot, 1)
    _issue_page(v_desc, p2, col, vb, v_ring, slot, 2)
    _issue_page(v_desc, p3, col, vb, v_ring, slot, 3)


# Memory-bound: every cached key and value row is read once. One program takes one KV head of one sequence
# and one chunk of its context (split-KV: enough chunks that the programs fill the SMs several times over,
# which also evens out the ragged lengths; chunks past a sequence's end exit at once). The pages of a
# 64-token tile are fetched by TMA, one 16-row box per page and half head-dim (the box's global rows are
# the page's 16 token slots of this KV head, 2 KB apart), straight into 128B-swizzled shared buffers of a
# 3-deep ring, K and V on separate mbarriers; the page numbers of a tile are read from the block table one
# iteration before its loads are issued. No thread computes a gathered address and no register holds a
# loaded row. The g query heads of the KV head are the rows of a 64-row Q tile in shared memory (zero rows
# below g): S = Q K^T is a wgmma (m64n64k16) over both head-dim halves, the online softmax runs on its
# accumulator, and P (bf16, in registers) times the V tile is two more wgmma, left in flight while the next
# tile's scores are computed. Partial outputs and log-sum-exps of the chunks are merged by a second kernel.
@gluon.jit
def _paged_decode_kernel(q_ptr, k_desc, v_desc, bt_ptr, lens_ptr, out_ptr, o_part_ptr, lse_part_ptr, MAXP, Hkv,
                         chunk, num_splits, qk_scale, GROUP: gl.constexpr, STAGES: gl.constexpr,
                         DIRECT: gl.constexpr, num_warps: gl.constexpr):
    BN: gl.constexpr = 64
    HD: gl.constexpr = 128
    ROWS: gl.constexpr = 64
    dtype: gl.constexpr = k_desc.dtype
    split = gl.program_id(0)
    bk = gl.program_id(1)  # b * Hkv + kv head
    b = bk // Hkv
    kvh = bk % Hkv
    n_ctx = gl.load(lens_ptr + b)
    start = split * chunk
    if start < n_ctx:
        end = gl.minimum(start + chunk, n_ctx)
        num_tiles = gl.cdiv(end - start, BN)
        first_tile = start // BN  # chunk is a multiple of BN
        bt_row = bt_ptr + b * MAXP
        col = kvh * HD

        buf_layout: gl.constexpr = k_desc.layout
        q_smem = gl.allocate_shared_memory(dtype, [2, ROWS, 64], buf_layout)
        k_ring = gl.allocate_shared_memory(dtype, [2 * STAGES, BN, 64], buf_layout)
        v_ring = gl.allocate_shared_memory(dtype, [2 * STAGES, BN, 64], buf_layout)
        k_bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        v_bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        for i in gl.static_range(STAGES):
            mbarrier.init(k_bars.index(i), count=1)
            mbarrier.init(v_bars.index(i), count=1)

        # The first STAGES - 1 tiles in flight (tiles past the chunk are not loaded).
        for i in gl.static_range(STAGES - 1):
            if i < num_tiles:
                p0, p1, p2, p3 = _page_ids(bt_row, first_tile + i, MAXP)
                _issue_tile(k_desc, v_desc, k_ring, v_ring, k_bars, v_bars, i, p0, p1, p2, p3, col)
        n0, n1, n2, n3 = _page_ids(bt_row, first_tile + STAGES - 1, MAXP)

        # The GROUP query heads of this KV head are consecutive rows of q viewed as (B * Hq, D).
        ld: gl.constexpr = gl.BlockedLayout([1, 8], [8, 4], [num_warps, 1], [1, 0])
        rows = gl.arange(0, ROWS, layout=gl.SliceLayout(1, ld))
        cols = gl.arange(0, 64, layout=gl.SliceLayout(0, ld))
        q_offs = gl.expand_dims((bk * GROUP + rows) * HD, 1) + gl.expand_dims(cols, 0)
        q_mask = gl.expand_dims(rows < GROUP, 1)
        q_smem.index(0).store(gl.load(q_ptr + q_offs, mask=q_mask, other=0.0))
        q_smem.index(1).store(gl.load(q_ptr + q_offs + 64, mask=q_mask, other=0.0))
        fence_async_shared()
        gl.thread_barrier()

        mma: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                      instr_shape=[16, 64, 16])
        p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=mma, k_width=2)
        row_l: gl.constexpr = gl.SliceLayout(1, mma)
        col_l: gl.constexpr = gl.SliceLayout(0, mma)
        m_i = gl.full([ROWS], float("-inf"), gl.float32, layout=row_l)
        l_i = gl.zeros([ROWS], gl.float32, layout=row_l)
        o0 = gl.zeros([ROWS, 64], gl.float32, layout=mma)  # head dims 0..63
        o1 = gl.zeros([ROWS, 64], gl.float32, layout=mma)  # head dims 64..127
        s_zero = gl.zeros([ROWS, BN], gl.float32, layout=mma)
        offs_n = gl.arange(0, BN, layout=col_l)

        for t in range(num_tiles):
            s = t % STAGES
            phase = (t // STAGES) & 1
            mbarrier.wait(k_bars.index(s), phase)
            sc = warpgroup_mma(q_smem.index(0), k_ring.index(2 * s).permute((1, 0)), s_zero, use_acc=False,
                               is_async=True)
            sc = warpgroup_mma(q_smem.index(1), k_ring.index(2 * s + 1).permute((1, 0)), sc, is_async=True)
            # Everything issued is done: this tile's scores and the previous tile's P V, whose slot now
            # takes tile t + STAGES - 1.
            sc, o0, o1 = warpgroup_mma_wait(num_outstanding=0, deps=(sc, o0, o1))
            if t + STAGES - 1 < num_tiles:
                _issue_tile(k_desc, v_desc, k_ring, v_ring, k_bars, v_bars, (t + STAGES - 1) % STAGES, n0, n1,
                            n2, n3, col)
            n0, n1, n2, n3 = _page_ids(bt_row, first_tile + t + STAGES, MAXP)

            tok = start + t * BN + offs_n
            sc = gl.where(gl.expand_dims(tok < end, 0), sc * qk_scale, float("-inf"))
            m_new = gl.maximum(m_i, gl.max(sc, axis=1))
            p = gl.exp2(sc - gl.expand_dims(m_new, 1))
            alpha = gl.exp2(m_i - m_new)
            l_i = l_i * alpha + gl.sum(p, axis=1)
            m_i = m_new
            o0 = o0 * gl.expand_dims(alpha, 1)
            o1 = o1 * gl.expand_dims(alpha, 1)
            p_op = gl.convert_layout(p.to(dtype), p_layout)

            mbarrier.wait(v_bars.index(s), phase)
            o0 = warpgroup_mma(p_op, v_ring.index(2 * s), o0, is_async=True)
            o1 = warpgroup_mma(p_op, v_ring.index(2 * s + 1), o1, is_async=True)
            o0, o1 = warpgroup_mma_wait(num_outstanding=2, deps=(o0, o1))  # still in flight

        o0, o1 = warpgroup_mma_wait(num_outstanding=0, deps=(o0, o1))
        for i in gl.static_range(STAGES):
            mbarrier.invalidate(k_bars.index(i))
            mbarrier.invalidate(v_bars.index(i))

        inv_l = gl.expand_dims(1.0 / l_i, 1)
        o0 = o0 * inv_l
        o1 = o1 * inv_l
        g = gl.arange(0, ROWS, layout=row_l)
        d = gl.arange(0, 64, layout=col_l)
        g_ok = gl.expand_dims(g < GROUP, 1)
        if DIRECT:
            offs = gl.expand_dims((bk * GROUP + g) * HD, 1) + gl.expand_dims(d, 0)
            gl.store(out_ptr + offs, o0.to(out_ptr.dtype.element_ty), mask=g_ok)
            gl.store(out_ptr + offs + 64, o1.to(out_ptr.dtype.element_ty), mask=g_ok)
        else:
            part = (bk * num_splits + split) * GROUP + g  # partials laid out (B * Hkv, splits, GROUP, .)
            offs = gl.expand_dims(part.to(gl.int64) * HD, 1) + gl.expand_dims(d, 0)
            gl.store(o_part_ptr + offs, o0, mask=g_ok)
            gl.store(o_part_ptr + offs + 64, o1, mask=g_ok)
            gl.store(lse_part_ptr + part, m_i + gl.log2(l_i), mask=g < GROUP)


# One program per (sequence, query head): the chunks that hold keys (as many as the context length needs)
# are weighted by exp2(lse - max lse) and summed.
@gluon.jit
def _merge_kernel(o_part_ptr, lse_part_ptr, lens_ptr, out_ptr, Hq, chunk, num_splits, GROUP: gl.constexpr,
                  SPLIT_PAD: gl.constexpr, num_warps: gl.constexpr):
    HD: gl.constexpr = 128
    layout: gl.constexpr = gl.BlockedLayout([1, 4], [1, 32], [num_warps, 1], [1, 0])
    h = gl.program_id(0)  # b * Hq + query head
    bk = h // GROUP
    r = h % GROUP
    used = gl.cdiv(gl.load(lens_ptr + h // Hq), chunk)
    offs_s = gl.arange(0, SPLIT_PAD, layout=gl.SliceLayout(1, layout))
    offs_d = gl.arange(0, HD, layout=gl.SliceLayout(0, layout))
    ok = offs_s < used
    row = (bk * num_splits + offs_s) * GROUP + r
    lse = gl.load(lse_part_ptr + row, mask=ok, other=float("-inf"))
    w = gl.exp2(lse - gl.max(lse, axis=0))  # split 0 always holds keys, so the max is finite
    o = gl.load(o_part_ptr + gl.expand_dims(row.to(gl.int64) * HD, 1) + gl.expand_dims(offs_d, 0),
                mask=gl.expand_dims(ok, 1), other=0.0)
    out = gl.sum(o * gl.expand_dims(w, 1), axis=0) / gl.sum(w, axis=0)
    gl.store(out_ptr + h * HD + offs_d, out.to(out_ptr.dtype.element_ty))


def paged_decode_attention(q, k_cache, v_cache, block_table, context_lens):
    B, Hq, D = q.shape
    num_pages, page, Hkv, _ = k_cache.shape
    assert D == 128 and page == PAGE and Hq % Hkv == 0 and Hq // Hkv <= GROUP_ROWS
    maxp = block_table.shape[1]
    group = Hq // Hkv
    max_ctx = maxp * PAGE
    # Chunks sized for about 8 waves of two resident programs per SM over the longest possible context (the
    # lengths stay on the GPU, so the host never waits), a multiple of BLOCK_N and at least 512 tokens: short
    # enough that the ragged ends of the sequences leave little tail, long enough to amortize a program's
    # start (q to shared memory, the ring's first loads).
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count if q.is_cuda else 132
    splits = triton.cdiv(16 * sms, B * Hkv)
    chunk = max(512, triton.cdiv(triton.cdiv(max_ctx, splits), BLOCK_N) * BLOCK_N)
    num_splits = triton.cdiv(max_ctx, chunk)
    direct = num_splits == 1
    out = torch.empty_like(q)
    if direct:
        o_part = lse_part = out
    else:
        o_part = torch.empty((B * Hkv, num_splits, group, D), device=q.device, dtype=torch.float32)
        lse_part = torch.empty((B * Hkv, num_splits, group), device=q.device, dtype=torch.float32)
    layout = gl.NVMMASharedLayout.get_default_for([PAGE, HALF], gl.bfloat16)
    k_desc = TensorDescriptor.from_tensor(k_cache.view(num_pages * PAGE, Hkv * D), [PAGE, HALF], layout)
    v_desc = TensorDescriptor.from_tensor(v_cache.view(num_pages * PAGE, Hkv * D), [PAGE, HALF], layout)
    qk_scale = D ** -0.5 * LOG2E  # softmax in base 2
    _paged_decode_kernel[(num_splits, B * Hkv)](
        q, k_desc, v_desc, block_table, context_lens, out, o_part, lse_part, maxp, Hkv, chunk, num_splits, qk_scale,
        GROUP=group, STAGES=STAGES, DIRECT=direct, num_warps=NUM_WARPS)
    if not direct:
        _merge_kernel[(B * Hq, )](o_part, lse_part, context_lens, out, Hq, chunk, num_splits, GROUP=group,
                                  SPLIT_PAD=triton.next_power_of_2(num_splits), num_warps=4)
    return out
