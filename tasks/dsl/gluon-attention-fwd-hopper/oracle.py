import torch
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

# Flash attention on Hopper tensor cores: a 128-query tile per CTA (two warpgroups, 64 rows each) with Q
# resident in swizzled shared memory, K and V tiles of 128 keys streamed by TMA through a 2-slot mbarrier ring
# (the next block lands while this one is computed), S = Q K^T on wgmma m64n128k16 reading K through a permuted
# view, online softmax in exp2 on the fp32 accumulator layout, P kept in registers as the wgmma A operand for
# P V, the diagonal block alone masked, and the output written back through Q's buffer by a TMA store.


@gluon.jit
def _attend(q_smem, k_desc, v_desc, k_bufs, v_bufs, ready, kv_row, j, n_blocks, start_m, m_i, l_i, acc,
            qk_scale, MASK: gl.constexpr, s_layout: gl.constexpr, o_layout: gl.constexpr):
    BLOCK_M: gl.constexpr = q_smem.type.shape[0]
    BLOCK_N: gl.constexpr = k_desc.block_type.shape[0]
    STAGES: gl.constexpr = k_bufs.type.shape[0]
    s = j % STAGES
    mbarrier.wait(ready.index(s), (j // STAGES) & 1)
    # Every warpgroup is done with block j - 1 (its P V waited), so its slot takes block j + STAGES - 1.
    gl.thread_barrier()
    nxt = j + STAGES - 1
    sn = nxt % STAGES
    pred = nxt < n_blocks
    mbarrier.expect(ready.index(sn), k_desc.block_type.nbytes + v_desc.block_type.nbytes, pred=pred)
    tma.async_copy_global_to_shared(k_desc, [kv_row + nxt * BLOCK_N, 0], ready.index(sn), k_bufs.index(sn), pred)
    tma.async_copy_global_to_shared(v_desc, [kv_row + nxt * BLOCK_N, 0], ready.index(sn), v_bufs.index(sn), pred)

    k_t = k_bufs.index(s).permute((1, 0))
    qk = warpgroup_mma(q_smem, k_t, gl.zeros([BLOCK_M, BLOCK_N], gl.float32, s_layout), use_acc=False,
                       is_async=True)
    qk, _, _ = warpgroup_mma_wait(num_outstanding=0, deps=(qk, q_smem, k_t))
    qk = qk * qk_scale  # log2(e) / sqrt(d): the softmax runs in exp2
    if MASK:
        offs_m = start_m * BLOCK_M + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, s_layout))
        offs_n = j * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s_layout))
        keep = gl.expand_dims(offs_m, 1) >= gl.expand_dims(offs_n, 0)
        qk = gl.where(keep, qk, gl.full([BLOCK_M, BLOCK_N], float("-inf"), gl.float32, s_layout))
    m_new = gl.maximum(m_i, gl.max(qk, axis=1))
    p = gl.exp2(qk - gl.expand_dims(m_new, 1))
    alpha = gl.exp2(m_i - m_new)
    l_i = l_i * alpha + gl.sum(p, axis=1)
    acc = acc * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o_layout)), 1)
    p_op = gl.convert_layout(p.to(gl.bfloat16), gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2))
    acc = warpgroup_mma(p_op, v_bufs.index(s), acc, is_async=True)
    acc, _ = warpgroup_mma_wait(num_outstanding=0, deps=(acc, v_bufs.index(s)))
    return m_new, l_i, acc


@gluon.jit
def _attention_kernel(q_desc, k_desc, v_desc, o_desc, seq_len, qk_scale, STAGES: gl.constexpr,
                      num_warps: gl.constexpr):
    BLOCK_M: gl.constexpr = q_desc.block_type.shape[0]
    HEAD_D: gl.constexpr = q_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = k_desc.block_type.shape[0]
    start_m = gl.num_programs(0) - 1 - gl.program_id(0)  # longest query tiles (most key blocks) first
    head = gl.program_id(1)
    kv_row = head * seq_len
    q_row = kv_row + start_m * BLOCK_M
    n_blocks = (start_m + 1) * BLOCK_M // BLOCK_N  # keys up to the diagonal

    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                       instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                       instr_shape=[16, HEAD_D, 16])
    q_smem = gl.allocate_shared_memory(q_desc.dtype, [BLOCK_M, HEAD_D], q_desc.layout)
    k_bufs = gl.allocate_shared_memory(k_desc.dtype, [STAGES, BLOCK_N, HEAD_D], k_desc.layout)
    v_bufs = gl.allocate_shared_memory(v_desc.dtype, [STAGES, BLOCK_N, HEAD_D], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)

    mbarrier.expect(q_bar, q_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(q_desc, [q_row, 0], q_bar, q_smem)
    for i in gl.static_range(STAGES - 1):
        pred = i < n_blocks
        mbarrier.expect(ready.index(i), k_desc.block_type.nbytes + v_desc.block_type.nbytes, pred=pred)
        tma.async_copy_global_to_shared(k_desc, [kv_row + i * BLOCK_N, 0], ready.index(i), k_bufs.index(i), pred)
        tma.async_copy_global_to_shared(v_desc, [kv_row + i * BLOCK_N, 0], ready.index(i), v_bufs.index(i), pred)

    m_i = gl.full([BLOCK_M], float("-inf"), gl.float32, gl.SliceLayout(1, s_layout))
    l_i = gl.zeros([BLOCK_M], gl.float32, gl.SliceLayout(1, s_layout))
    acc = gl.zeros([BLOCK_M, HEAD_D], gl.float32, o_layout)
    mbarrier.wait(q_bar, 0)
    for j in range(0, n_blocks - 1):  # blocks wholly below the diagonal: no mask
        m_i, l_i, acc = _attend(q_smem, k_desc, v_desc, k_bufs, v_bufs, ready, kv_row, j, n_blocks, start_m, m_i,
                                l_i, acc, qk_scale, False, s_layout, o_layout)
    m_i, l_i, acc = _attend(q_smem, k_desc, v_desc, k_bufs, v_bufs, ready, kv_row, n_blocks - 1, n_blocks,
                            start_m, m_i, l_i, acc, qk_scale, True, s_layout, o_layout)

    out = acc / gl.expand_dims(gl.convert_layout(l_i, gl.SliceLayout(1, o_layout)), 1)
    mbarrier.invalidate(q_bar)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(i))
    q_smem.store(out.to(o_desc.dtype))  # every wgmma that read Q has completed
    fence_async_shared()
    tma.async_copy_shared_to_global(o_desc, [q_row, 0], q_smem)
    tma.store_wait(pendings=0)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    batches, heads, seq_len, head_d = q.shape
    out = torch.empty_like(q)
    block_m, block_n, stages, num_warps = 128, 128, 2, 8
    rows = batches * heads * seq_len
    tile = gl.NVMMASharedLayout.get_default_for([block_m, head_d], gl.bfloat16)
    q_desc = TensorDescriptor.from_tensor(q.view(rows, head_d), [block_m, head_d], tile)
    k_desc = TensorDescriptor.from_tensor(k.view(rows, head_d), [block_n, head_d], tile)
    v_desc = TensorDescriptor.from_tensor(v.view(rows, head_d), [block_n, head_d], tile)
    o_desc = TensorDescriptor.from_tensor(out.view(rows, head_d), [block_m, head_d], tile)
    qk_scale = 1.4426950408889634 / head_d ** 0.5
    grid = (seq_len // block_m, batches * heads)
    _attention_kernel[grid](q_desc, k_desc, v_desc, o_desc, seq_len, qk_scale, STAGES=stages, num_warps=num_warps)
    return out
