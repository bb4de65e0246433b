import torch
import triton
import triton.language as tl

# Whole systems in registers, solved with chunked associative scans instead of a sequential sweep.
# Why not Thomas: one thread per system walks N rows in a dependent chain, and its forward sweep must keep
# c'_j and d'_j for the backward one (8 more bytes per element to DRAM and back: 16384 x 1024 of them do not
# fit on chip); with the rows of a system contiguous, per-thread walks are also uncoalesced.
# Here each program loads ROWS whole systems once (coalesced rows). The forward elimination, a Mobius
# recurrence c'_j = c_j / (b_j - a_j c'_{j-1}) with d'_j = (d_j - a_j d'_{j-1}) / (b_j - a_j c'_{j-1}), is
# linear in projective coordinates v = q * (c', 1, d'):
#     p_j = c_j q_{j-1},  q_j = b_j q_{j-1} - a_j p_{j-1},  r_j = d_j q_{j-1} - a_j r_{j-1},
# i.e. v_j = T_j v_{j-1}, T_j = [[0, c, 0], [-a, b, 0], [0, d, -a]]: a prefix product of 3x3 matrices of the
# form [[X, 0], [y, z]] (7 numbers). A system is cut into chunks of 16 consecutive rows, each held by one
# thread (four 16-byte loads per array, split into 16 registers): (1) each thread multiplies its chunk's 16
# sparse T_j (11 flops each); (2) the chunk totals are scanned across threads (tl.associative_scan) and shifted
# by one chunk through a tiny scratch row, giving each chunk the product E of all earlier chunks; (3) each thread
# runs v_j = T_j v_{j-1} from v = E (0, 1, 0)^T through its chunk (5 flops and a reciprocal per row). Scanned
# products are rescaled by an exact power of two taken from their q-q entry (a positive product of pivots under
# diagonal dominance): the ratios are unchanged and nothing overflows. Back substitution x_j = d'_j - c'_j x_{j+1}
# is the same three steps on affine maps in reverse. One read of a, b, c, d and one write of x (20 B per row),
# about 60 instructions per row (N % 4 == 0; other N load without 16-byte vectors and cost a layout shuffle).


@triton.jit
def _mobius_combine(e00, e01, e10, e11, e20, e21, e22, l00, l01, l10, l11, l20, l21, l22):
    # (later) @ (earlier) for matrices [[m00, m01, 0], [m10, m11, 0], [m20, m21, m22]]
    r00 = l00 * e00 + l01 * e10
    r01 = l00 * e01 + l01 * e11
    r10 = l10 * e00 + l11 * e10
    r11 = l10 * e01 + l11 * e11
    r20 = l20 * e00 + l21 * e10 + l22 * e20
    r21 = l20 * e01 + l21 * e11 + l22 * e21
    r22 = l22 * e22
    s = _pow2_scale(r11)
    return r00 * s, r01 * s, r10 * s, r11 * s, r20 * s, r21 * s, r22 * s


@triton.jit
def _pow2_scale(v):
    # 2**-exponent(v) for v > 0: multiplying by it is exact and brings v into [1, 2)
    return ((254 - ((v.to(tl.int32, bitcast=True) >> 23) & 0xFF)) << 23).to(tl.float32, bitcast=True)


@triton.jit
def _affine_combine(m_later, k_later, m_cur, k_cur):
    # reverse scan: (cur o later)(x) = k_cur + m_cur * (k_later + m_later * x)
    return m_cur * m_later, k_cur + m_cur * k_later


@triton.jit
def _quarters(t):
    # (R, G, 4) -> its four (R, G) slices along the last axis (held in-thread: the splits only rename registers)
    u0, u1 = tl.split(tl.reshape(t, [t.shape[0], t.shape[1], 2, 2]))
    x0, x2 = tl.split(u0)
    x1, x3 = tl.split(u1)
    return x0, x1, x2, x3


@triton.jit
def _load16(ptr, offs, row_ok, j4, n, other):
    # one chunk of 16 consecutive rows per (R, G) position: four (R, G, 4) vector loads, split in registers into
    # a tuple of 16 (R, G) tensors
    out = ()
    for v in tl.static_range(4):
        out = out + _quarters(tl.load(ptr + offs + 4 * v, mask=row_ok & (j4 < n - 4 * v), other=other))
    return out


@triton.jit
def _store16(ptr, offs, row_ok, j4, n, xs):
    for v in tl.static_range(4):
        t = tl.join(tl.join(xs[4 * v], xs[4 * v + 2]), tl.join(xs[4 * v + 1], xs[4 * v + 3]))
        t = tl.reshape(t, [t.shape[0], t.shape[1], 4])
        tl.store(ptr + offs + 4 * v, t, mask=row_ok & (j4 < n - 4 * v))


@triton.jit
def _tridiag_kernel(a_ptr, b_ptr, c_ptr, d_ptr, x_ptr, sc_ptr, B, N, ROW_STRIDE, ROW_ALIGN: tl.constexpr, ROWS: tl.constexpr,
                    G: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    g = tl.arange(0, G)
    n = ROW_STRIDE * ROW_ALIGN  # = N; rows start at multiples of ROW_ALIGN elements (16-byte loads when 4)
    j4 = g[None, :, None] * 16 + tl.arange(0, 4)[None, None, :]  # (1, G, 4): columns of the first quarter
    offs = rows.to(tl.int64)[:, None, None] * n + j4
    row_ok = (rows < B)[:, None, None]
    # rows past N (and systems past B) load as identity rows: a = c = d = 0, b = 1, decoupled from the system
    a = _load16(a_ptr, offs, row_ok, j4, n, 0.0)
    b = _load16(b_ptr, offs, row_ok, j4, n, 1.0)
    c = _load16(c_ptr, offs, row_ok, j4, n, 0.0)
    d = _load16(d_ptr, offs, row_ok, j4, n, 0.0)
    col0 = _quarters(tl.broadcast_to(j4, [ROWS, G, 4]))[0]  # each chunk's first column, in the data's layout
    # (1) chunk total M = T_15 ... T_0 (sparse T_j times dense M), a[:, 0] and c[:, N - 1] taken as zero
    a0 = tl.where(col0 == 0, 0.0, a[0])
    m00 = tl.zeros_like(a0)
    m01 = tl.where(col0 == n - 1, 0.0, c[0])
    m10 = -a0
    m11 = b[0]
    m20 = m00
    m21 = d[0]
    m22 = -a0
    for k in tl.static_range(1, 16):
        ck = tl.where(col0 + k == n - 1, 0.0, c[k])
        n00 = ck * m10
        n01 = ck * m11
        n10 = b[k] * m10 - a[k] * m00
        n11 = b[k] * m11 - a[k] * m01
        n20 = d[k] * m10 - a[k] * m20
        n21 = d[k] * m11 - a[k] * m21
        m22 = -a[k] * m22
        m00, m01, m10, m11, m20, m21 = n00, n01, n10, n11, n20, n21
    s = _pow2_scale(m11)
    # (2) scan of the chunk totals across chunks, shifted by one chunk: E = product of all earlier chunks. The
    # shift goes through a per-program scratch row (store, block barrier, load at g - 1, read from L2), which
    # keeps the big register tiles in their load layout
    t = tl.associative_scan((m00 * s, m01 * s, m10 * s, m11 * s, m20 * s, m21 * s, m22 * s), 1, _mobius_combine)
    sc = sc_ptr + rows.to(tl.int64)[:, None] * (4 * G)
    tl.store(sc + g[None, :], t[1])
    tl.store(sc + G + g[None, :], t[3])
    tl.store(sc + 2 * G + g[None, :], t[5])
    tl.debug_barrier()
    gd = col0 // 16  # chunk index in the data layout
    sc_d = sc_ptr + _quarters(tl.broadcast_to(rows.to(tl.int64)[:, None, None] * (4 * G), [ROWS, G, 4]))[0]
    has_prev = gd > 0  # E = identity before the first chunk: second column (0, 1, 0)
    p = tl.load(sc_d + gd - 1, mask=has_prev, other=0.0, cache_modifier=".cg")
    q = tl.load(sc_d + G + gd - 1, mask=has_prev, other=1.0, cache_modifier=".cg")
    r = tl.load(sc_d + 2 * G + gd - 1, mask=has_prev, other=0.0, cache_modifier=".cg")
    # (3) v_j = T_j v_{j-1} through the chunk: c'_j = p_j / q_j, d'_j = r_j / q_j
    cps = ()
    dps = ()
    for k in tl.static_range(16):
        ck = tl.where(col0 + k == n - 1, 0.0, c[k])
        ak = tl.where(col0 + k == 0, 0.0, a[k])
        p, q, r = ck * q, b[k] * q - ak * p, d[k] * q - ak * r
        inv = 1.0 / q
        cps = cps + (p * inv,)
        dps = dps + (r * inv,)
    # back substitution x_j = d'_j - c'_j x_{j+1}: chunk composites of the affine maps, a reverse scan across
    # chunks (x at each chunk's first row), shifted by one chunk, then the rows of each chunk
    cm = -cps[15]
    ck_ = dps[15]
    for k in tl.static_range(14, -1, -1):
        cm, ck_ = -cps[k] * cm, dps[k] - cps[k] * ck_
    tm, tk = tl.associative_scan((cm, ck_), 1, _affine_combine, reverse=True)
    tl.store(sc + 3 * G + g[None, :], tk)
    tl.debug_barrier()
    x = tl.load(sc_d + 3 * G + gd + 1, mask=gd + 1 < G, other=0.0, cache_modifier=".cg")  # x at the first row of the next chunk
    xs = ()
    for k in tl.static_range(15, -1, -1):
        x = dps[k] - cps[k] * x
        xs = (x,) + xs
    _store16(x_ptr, offs, row_ok, j4, n, xs)


def tridiagonal_solve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    batch, n = a.shape
    x = torch.empty_like(d)
    chunks = triton.next_power_of_2(triton.cdiv(n, 16))  # chunks of 16 rows per system
    rows = min(triton.next_power_of_2(batch), max(1, 128 // chunks))
    warps = max(1, min(8, rows * chunks // 32))  # one chunk per thread
    align = 4 if n % 4 == 0 else 1
    programs = triton.cdiv(batch, rows)
    scratch = torch.empty((programs * rows, 4 * chunks), dtype=torch.float32, device=d.device)
    _tridiag_kernel[(programs,)](a, b, c, d, x, scratch, batch, n, n // align, ROW_ALIGN=align, ROWS=rows, G=chunks,
                                 num_warps=warps)
    return x
