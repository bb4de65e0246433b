import torch
import triton
import triton.language as tl

# Four-step NTT in two passes over memory, n = n1 * n2 (n1 = 2**ceil(k/2)):
#   pass 1: for every column i2 of the (n1, n2) row-major view, an n1-point NTT along i1, times w**(i2 * k1),
#           written as uint32 residues to a scratch (n1, n2) array;
#   pass 2: for every row k1 of the scratch, an n2-point NTT along i2, written to y[k1 + n1 * k2] as int64.
# Each L-point NTT (L = LA * LB <= 1024) runs inside one program on a (LA, LB, C) tile of C vectors: a
# radix-2 decimation-in-frequency network along LA held entirely in each thread's registers (reshape/split/join
# only rename registers; the stage twiddles are compile-time constants that fold), the inner four-step twiddle
# w_L**(b * ka) from a small precomputed table, one register transpose through shared memory, then the same
# network along LB. Residues are uint32: butterflies keep them in [0, 2p) (Harvey's lazy reduction, Shoup
# multiplication, 4p < 2**32). The outer twiddle w_n**(i2 * k1) differs for every element: per thread it is
# s * g**kb, built from two gathered bases by repeated doubling and applied with Montgomery multiplication
# (32-bit umulhi; no 64-bit multiply or divide in the passes). A tiny first kernel fills the tables.
# DRAM: 8 B read + 4 B written (pass 1), 4 B read + 8 B written (pass 2) per element; about 120 integer
# instructions per element in all.

P_INT = 998244353
R_MOD_P = (1 << 32) % P_INT  # Montgomery form of 1
PC = tl.constexpr(P_INT)
TWO_P = tl.constexpr(2 * P_INT)
P_INV = tl.constexpr(pow(P_INT, -1, 1 << 32))  # p**-1 mod 2**32
ONE_M = tl.constexpr(R_MOD_P)
_W32 = pow(3, (P_INT - 1) // 32, P_INT)
W32 = tl.constexpr(tuple(pow(_W32, j, P_INT) for j in range(16)))  # w_32**j
W32P = tl.constexpr(tuple((pow(_W32, j, P_INT) << 32) // P_INT for j in range(16)))  # Shoup companions


@triton.jit
def _add_mod2p(x, y):
    t = x + y
    return tl.where(t >= TWO_P, t - TWO_P, t)


@triton.jit
def _mul_shoup(x, w, wp):
    # x * w mod p in [0, 2p) for x < 2**32, w < p, wp = floor(w * 2**32 / p)
    q = tl.umulhi(x, wp)
    return x * w - q * PC


@triton.jit
def _mont(a, b):
    # a * b * 2**-32 mod p in [0, p), for a * b < p * 2**32
    lo = a * b
    hi = tl.umulhi(a, b)
    u = tl.umulhi(lo * P_INV, PC)
    r = hi - u
    return tl.where(hi < u, r + PC, r)


@triton.jit
def _stage_twiddles(H: tl.constexpr):
    # w_{2H}**j and its Shoup companion for j < H: constants (the axis is in-thread, so they fold)
    j = tl.arange(0, H)
    w = tl.zeros([H], dtype=tl.uint32)
    wp = tl.zeros([H], dtype=tl.uint32)
    for t in tl.static_range(H):
        w = tl.where(j == t, W32[t * (16 // H)], w)
        wp = tl.where(j == t, W32P[t * (16 // H)], wp)
    return w, wp


@triton.jit
def _dif_stage(x, H: tl.constexpr, G: tl.constexpr, M: tl.constexpr):
    y = tl.permute(tl.reshape(x, [G, 2, H, M]), (0, 2, 3, 1))
    top, bot = tl.split(y)
    w, wp = _stage_twiddles(H)
    t = _add_mod2p(top, bot)
    u = _mul_shoup(top - bot + TWO_P, w[None, :, None], wp[None, :, None])
    y = tl.permute(tl.join(t, u), (0, 3, 1, 2))
    return tl.reshape(y, [2 * G * H, M])


@triton.jit
def _dif(x, L: tl.constexpr, LOG: tl.constexpr, M: tl.constexpr):
    # L-point NTT along axis 0 of an (L, M) tile, values in [0, 2p); output position r holds index bitrev(r)
    for s in tl.static_range(LOG):
        x = _dif_stage(x, L >> (s + 1), 1 << s, M)
    return x


@triton.jit
def _double(pw, e, M: tl.constexpr, S: tl.constexpr):
    nxt = _mont(pw, e[:, None])
    return tl.reshape(tl.join(pw, nxt), [M, 2 * S])


@triton.jit
def _powers_from(s, e, LOG: tl.constexpr, M: tl.constexpr):
    # s, e: (M,) Montgomery form; returns (2**LOG, M) with row r = s * e**bitrev(r), Montgomery form
    pw = tl.reshape(s, [M, 1])
    for l in tl.static_range(LOG):
        pw = _double(pw, e, M, 1 << l)
        e = _mont(e, e)
    return tl.permute(pw, (1, 0))


@triton.jit
def _omega_pow(tlo_ptr, thi_ptr, e, TL: tl.constexpr):
    # w_n**e in Montgomery form, from w**(e mod 2**TL) and w**(2**TL * (e >> TL))
    lo = tl.load(tlo_ptr + (e & ((1 << TL) - 1)))
    hi = tl.load(thi_ptr + (e >> TL))
    return _mont(lo, hi)


@triton.jit
def _bitrev(r, LOG: tl.constexpr):
    out = r * 0
    for i in tl.static_range(LOG):
        out = out | (((r >> i) & 1) << (LOG - 1 - i))
    return out


@triton.jit
def _table_kernel(tab_ptr, base_m, n_lo, n_hi, off_hi, mul1, off1, mul2, off2, n_mask,
                  LOGA1: tl.constexpr, LB1: tl.constexpr, LOGA2: tl.constexpr, LB2: tl.constexpr,
                  BITS: tl.constexpr, BLOCK: tl.constexpr):
    # Table 0: w**i (i < n_lo) and table 1: w**(i * n_lo) (i < n_hi), Montgomery form, for gathered bases.
    # Tables 2 and 3: the inner four-step twiddles of pass 1 and 2, entry r * LB + b = w_L**(b * bitrev(r)) with
    # w_L = w**mul, in normal form followed by their Shoup companions. Square-and-multiply over the exponent bits.
    t = tl.program_id(1)
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    e1 = mul1 * (i % LB1) * _bitrev(i // LB1, LOGA1)
    e2 = mul2 * (i % LB2) * _bitrev(i // LB2, LOGA2)
    e = tl.where(t == 0, i, tl.where(t == 1, i * n_lo, tl.where(t == 2, e1, e2))) & n_mask
    size = tl.where(t == 0, n_lo, tl.where(t == 1, n_hi, tl.where(t == 2, LB1 << LOGA1, LB2 << LOGA2)))
    offset = tl.where(t == 0, 0, tl.where(t == 1, off_hi, tl.where(t == 2, off1, off2)))
    acc = tl.full([BLOCK], ONE_M, dtype=tl.uint32)
    base = tl.full([BLOCK], 0, dtype=tl.uint32) + base_m.to(tl.uint32)
    for bit in tl.static_range(BITS):
        acc = tl.where(((e >> bit) & 1) == 1, _mont(acc, base), acc)
        base = _mont(base, base)
    normal = _mont(acc, tl.full([BLOCK], 1, dtype=tl.uint32))
    companion = ((normal.to(tl.uint64) << 32) // PC).to(tl.uint32)
    ok = i < size
    tl.store(tab_ptr + offset + i, tl.where(t < 2, acc, normal), mask=ok)
    tl.store(tab_ptr + offset + size + i, companion, mask=ok & (t >= 2))


@triton.jit
def _ntt_pass_kernel(src_ptr, dst_ptr, tlo_ptr, thi_ptr, twi_ptr, twip_ptr, n_vec, src_e, src_v, src_b, dst_e,
                     dst_v, dst_b, outer_mul, n_mask,
                     LA: tl.constexpr, LOGA: tl.constexpr, LB: tl.constexpr, LOGB: tl.constexpr,
                     C: tl.constexpr, TL: tl.constexpr, FIRST: tl.constexpr):
    pid = tl.program_id(0)
    blocks = n_vec // C
    batch = pid // blocks
    v = (pid % blocks) * C + tl.arange(0, C)
    a = tl.arange(0, LA)
    b = tl.arange(0, LB)
    src = src_ptr + batch.to(tl.int64) * src_b
    offs = (a[:, None, None] * LB + b[None, :, None]) * src_e + v[None, None, :] * src_v
    x = tl.load(src + offs).to(tl.uint32)  # residues < p
    # round 1: LA-point NTTs along a
    x = tl.reshape(_dif(tl.reshape(x, [LA, LB * C]), LA, LOGA, LB * C), [LA, LB, C])
    # inner four-step twiddle w_L**(b * ka) from the (LA, LB) table (position r along LA holds ka = bitrev(r))
    t_offs = (a[:, None] * LB + b[None, :])[:, :, None]
    x = _mul_shoup(x, tl.load(twi_ptr + t_offs), tl.load(twip_ptr + t_offs))
    # round 2: LB-point NTTs along b, on the transposed tile
    x = tl.reshape(tl.permute(x, (1, 0, 2)), [LB, LA * C])
    x = _dif(x, LB, LOGB, LA * C)
    ka = _bitrev(a, LOGA)
    if FIRST:
        # outer twiddle w_n**(i2 * k1), k1 = ka + LA * kb: s * g**kb with s = w_n**(i2 * ka), g = w_n**(LA * i2)
        s = _omega_pow(tlo_ptr, thi_ptr, (ka[:, None] * v[None, :]) & n_mask, TL)
        g = _omega_pow(tlo_ptr, thi_ptr, (v * outer_mul) & n_mask, TL)
        g = tl.reshape(tl.broadcast_to(g[None, :], [LA, C]), [LA * C])
        x = _mont(x, _powers_from(tl.reshape(s, [LA * C]), g, LOGB, LA * C))
        out = x
    else:
        out = tl.where(x >= PC, x - PC, x).to(tl.int64)
    # output index k = ka + LA * kb, kb = bitrev(position along LB)
    k = ka[None, :, None] + LA * _bitrev(b, LOGB)[:, None, None]
    dst = dst_ptr + batch.to(tl.int64) * dst_b
    tl.store(dst + k * dst_e + v[None, None, :] * dst_v, tl.reshape(out, [LB, LA, C]).to(dst_ptr.dtype.element_ty))


def _split(log_len):
    loga = (log_len + 1) // 2
    return 1 << loga, loga, 1 << (log_len - loga), log_len - loga


def _launch_pass(src, dst, tab, offs, batch, n_vec, log_len, strides, outer_mul, n_mask, tl_bits, first):
    la, loga, lb, logb = _split(log_len)
    length = la * lb
    c = min(n_vec, max(8, 4096 // length))
    warps = max(1, min(8, length * c // 1024))
    tlo, thi, twi, twip = (tab[o:] for o in offs)
    _ntt_pass_kernel[(batch * (n_vec // c),)](src, dst, tlo, thi, twi, twip, n_vec, *strides, outer_mul, n_mask,
                                              LA=la, LOGA=loga, LB=lb, LOGB=logb, C=c, TL=tl_bits, FIRST=first,
                                              num_warps=warps)


def ntt_998244353(x: torch.Tensor) -> torch.Tensor:
    batch, n = x.shape
    log_n = n.bit_length() - 1
    assert n == 1 << log_n and 2 <= log_n <= 20
    log1 = (log_n + 1) // 2
    log2 = log_n - log1
    n1, n2 = 1 << log1, 1 << log2
    w = pow(3, (P_INT - 1) // n, P_INT)
    # twiddle tables (one uint32 buffer): w**i, w**(i * n1), then per pass the (LA, LB) inner table + companions
    off_hi, off1 = n1, n1 + n2
    off2 = off1 + 2 * n1
    tab = torch.empty(off2 + 2 * n2, dtype=torch.uint32, device=x.device)
    la1, loga1, lb1, _ = _split(log1)
    la2, loga2, lb2, _ = _split(log2)
    block = 256
    _table_kernel[(triton.cdiv(n1, block), 4)](tab, w * R_MOD_P % P_INT, n1, n2, off_hi, n2, off1, n1, off2, n - 1,
                                               LOGA1=loga1, LB1=lb1, LOGA2=loga2, LB2=lb2, BITS=log_n,
                                               BLOCK=block, num_warps=4)
    scratch = torch.empty((batch, n1, n2), dtype=torch.uint32, device=x.device)
    out = torch.empty((batch, n), dtype=torch.int64, device=x.device)
    # pass 1: vectors are the n2 columns (stride 1), elements the n1 rows (stride n2); outer twiddle g = w**(LA1 * i2)
    _launch_pass(x, scratch, tab, (0, off_hi, off1, off1 + n1), batch, n2, log1, (n2, 1, n, n2, 1, n), la1, n - 1,
                 log1, True)
    # pass 2: vectors are the n1 scratch rows (stride n2), elements along a row; y[k1 + n1 * k2]
    _launch_pass(scratch, out, tab, (0, off_hi, off2, off2 + n2), batch, n1, log2, (1, n2, n, n1, 1, n), 0, n - 1,
                 log1, False)
    return out
