import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.ampere import async_copy

LOG2E = gl.constexpr(1.4426950408889634)
NEG_BIG = gl.constexpr(-1.0e30)  # finite: a thread with no element yet never computes inf - inf
SHARED_BYTES_PER_CTA = 232448 - 1024  # 227 KiB less the reductions' scratch (64 B)


# One DRAM read and one write per element, and the SM never stops reading: a persistent CTA holds a whole
# row in shared memory, which doubles as the copy ring. As the normalising pass writes chunk c of row i out,
# it refills that chunk's slot at once with chunk c of row i + grid (cp.async, one commit group per chunk),
# so a whole row of reads is in flight when the next row begins. The max and the sum of exponentials are
# taken in one pass as the chunks land (per-thread online softmax: a thread owns ROWS x 8 elements of a
# chunk, reduces them in registers and rescales its running sum once a chunk), so no pass over shared
# memory runs with no copy in flight. (The compiler adds a CTA barrier per chunk between the copies and the
# reads of the buffer.)
@gluon.jit
def _chunk_offsets(ROWS: gl.constexpr, THREADS: gl.constexpr, VEC: gl.constexpr, layout: gl.constexpr):
    r = gl.arange(0, ROWS, layout=gl.SliceLayout(1, gl.SliceLayout(2, layout)))
    t = gl.arange(0, THREADS, layout=gl.SliceLayout(0, gl.SliceLayout(2, layout)))
    v = gl.arange(0, VEC, layout=gl.SliceLayout(0, gl.SliceLayout(1, layout)))
    r3 = gl.expand_dims(gl.expand_dims(r, 1), 2)
    t3 = gl.expand_dims(gl.expand_dims(t, 0), 2)
    v3 = gl.expand_dims(gl.expand_dims(v, 0), 1)
    return r3 * (THREADS * VEC) + t3 * VEC + v3  # [ROWS, THREADS, VEC]: 16-byte runs, warps contiguous


@gluon.jit
def _per_thread(value, op: gl.constexpr):
    """Reduces a [ROWS, THREADS, VEC] tensor to one value per thread: registers only, no shuffle."""
    if op == "max":
        return gl.max(gl.max(value, axis=2), axis=0)
    else:
        return gl.sum(gl.sum(value, axis=2), axis=0)


@gluon.jit
def _broadcast(per_thread):
    return gl.expand_dims(gl.expand_dims(per_thread, 0), 2)


@gluon.jit
def _softmax_ring_kernel(x_ptr, out_ptr, M, N: gl.constexpr, NUM_CHUNKS: gl.constexpr, ROWS: gl.constexpr,
                         num_warps: gl.constexpr):
    dtype: gl.constexpr = x_ptr.dtype.element_ty
    VEC: gl.constexpr = 8  # 16 bytes of bf16
    THREADS: gl.constexpr = 32 * num_warps
    CHUNK: gl.constexpr = ROWS * THREADS * VEC
    TAIL: gl.constexpr = N % CHUNK != 0  # only the last chunk is ragged
    layout: gl.constexpr = gl.BlockedLayout(size_per_thread=[ROWS, 1, VEC], threads_per_warp=[1, 32, 1],
                                            warps_per_cta=[1, num_warps, 1], order=[2, 1, 0])
    flat: gl.constexpr = gl.SwizzledSharedLayout(vec=1, per_phase=1, max_phase=1, order=[2, 1, 0])  # per slot
    row_buf = gl.allocate_shared_memory(dtype, [NUM_CHUNKS, ROWS, THREADS, VEC], flat)
    offs = _chunk_offsets(ROWS, THREADS, VEC, layout)
    pid = gl.program_id(0)
    nprog = gl.num_programs(0)

    base = pid.to(gl.int64) * N
    for c in gl.static_range(NUM_CHUNKS):
        cols = c * CHUNK + offs
        async_copy.async_copy_global_to_shared(row_buf.index(c), x_ptr + base + cols, mask=(cols < N) & (pid < M),
                                               eviction_policy="evict_first")
        async_copy.commit_group()

    for row in range(pid, M, nprog):
        base = row.to(gl.int64) * N
        # Pass 1, as the chunks land: per-thread running max and rescaled sum, in log2 units.
        m_t = gl.full([THREADS], NEG_BIG, gl.float32, gl.SliceLayout(0, gl.SliceLayout(2, layout)))
        s_t = gl.zeros([THREADS], gl.float32, gl.SliceLayout(0, gl.SliceLayout(2, layout)))
        for c in gl.static_range(NUM_CHUNKS):
            async_copy.wait_group(NUM_CHUNKS - 1 - c)  # groups complete in order: chunk c has landed
            x = row_buf.index(c).load(layout).to(gl.float32) * LOG2E
            if TAIL and c == NUM_CHUNKS - 1:
                valid = c * CHUNK + offs < N
                x = gl.where(valid, x, NEG_BIG)
                m_new = gl.maximum(m_t, _per_thread(x, "max"))
                p = gl.where(valid, gl.exp2(x - _broadcast(m_new)), 0.0)
            else:
                m_new = gl.maximum(m_t, _per_thread(x, "max"))
                p = gl.exp2(x - _broadcast(m_new))
            s_t = s_t * gl.exp2(m_t - m_new) + _per_thread(p, "sum")
            m_t = m_new
        m_row = gl.max(m_t, axis=0)
        inv = 1.0 / gl.sum(s_t * gl.exp2(m_t - m_row), axis=0)

        # Pass 2: normalise chunk c, write it, and refill its slot with chunk c of this CTA's next row.
        next_row = row + nprog
        next_base = next_row.to(gl.int64) * N
        for c in gl.static_range(NUM_CHUNKS):
            cols = c * CHUNK + offs
            y = gl.exp2(row_buf.index(c).load(layout).to(gl.float32) * LOG2E - m_row) * inv
            if TAIL and c == NUM_CHUNKS - 1:
                gl.store(out_ptr + base + cols, y.to(dtype), mask=cols < N)
            else:
                gl.store(out_ptr + base + cols, y.to(dtype))
            async_copy.async_copy_global_to_shared(row_buf.index(c), x_ptr + next_base + cols,
                                                   mask=(cols < N) & (next_row < M), eviction_policy="evict_first")
            async_copy.commit_group()
    async_copy.wait_group(0)


def launch(x: torch.Tensor, num_warps: int = 16, rows: int = 1, ctas_per_sm: int = 2) -> torch.Tensor:
    """The kernel with its knobs: warps per CTA, 16-byte vectors per thread per chunk, the most CTAs per SM
    (fewer where the row does not fit twice)."""
    m, n = x.shape
    out = torch.empty_like(x)
    chunk = rows * 32 * num_warps * 8
    num_chunks = triton.cdiv(n, chunk)
    smem_bytes = num_chunks * chunk * x.element_size()
    if smem_bytes > SHARED_BYTES_PER_CTA:
        raise ValueError(f"a row of {n} elements needs {smem_bytes} B of shared memory, more than one CTA has")
    per_sm = max(1, min(ctas_per_sm, SHARED_BYTES_PER_CTA // smem_bytes))
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 132
    grid = (min(m, sms * per_sm),)
    _softmax_ring_kernel[grid](x, out, m, N=n, NUM_CHUNKS=num_chunks, ROWS=rows, num_warps=num_warps)
    return out


def softmax_long_rows(x: torch.Tensor) -> torch.Tensor:
    return launch(x)
