import torch
import triton
import triton.language as tl

# Shared sorting, then a pruned selection network, all in registers. A thread owns 8 vertically adjacent outputs
# of one column: it loads the 12 input rows they need at the 5 column offsets (coalesced along the columns,
# replicate padding by clamping the indices), sorts each row's 5 values once (9 comparators; every sorted row
# serves up to 5 of the 8 outputs), and gets each median from the five sorted rows of its window with a
# comparator network of 124 min/max (sorting the rows' equal ranks, then the 13 values that can still be the
# median). The network is Batcher's odd-even merge sort, pruned to the comparators that reach the median and
# to those whose order the sorted rows do not already fix; checked on all 2^25 0/1 inputs (the 0-1 principle).
_ROWS = 8       # outputs a thread owns, one above the other
# columns a program owns at 4 warps: one a thread in float32, two in float16 (paired into packed f16x2 min/max)
_BC = {torch.float32: 128, torch.float16: 256}


@triton.jit
def _cas(a, b):
    return tl.minimum(a, b), tl.maximum(a, b)


@triton.jit
def _sorted_row(row_ptr, c0, c1, c2, c3, c4):
    # the 5 values of a window row, sorted ascending (Batcher's network for 5 inputs)
    a = tl.load(row_ptr + c0)
    b = tl.load(row_ptr + c1)
    c = tl.load(row_ptr + c2)
    d = tl.load(row_ptr + c3)
    e = tl.load(row_ptr + c4)
    a, b = _cas(a, b)
    c, d = _cas(c, d)
    a, c = _cas(a, c)
    b, d = _cas(b, d)
    b, c = _cas(b, c)
    a, e = _cas(a, e)
    c, e = _cas(c, e)
    b, c = _cas(b, c)
    d, e = _cas(d, e)
    return a, b, c, d, e


@triton.jit
def _median_of_sorted_groups(  # wire 5 g + r: rank r of sorted row g
        w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12,
        w13, w14, w15, w16, w17, w18, w19, w20, w21, w22, w23, w24):
    w0_1 = tl.minimum(w0, w5)
    w5_1 = tl.maximum(w0, w5)
    w10_1 = tl.minimum(w10, w15)
    w15_1 = tl.maximum(w10, w15)
    w0_2 = tl.minimum(w0_1, w10_1)
    w10_2 = tl.maximum(w0_1, w10_1)
    w5_2 = tl.minimum(w5_1, w15_1)
    w15_2 = tl.maximum(w5_1, w15_1)
    w10_3 = tl.maximum(w5_2, w10_2)
    w20_1 = tl.maximum(w0_2, w20)
    w20_2 = tl.maximum(w10_3, w20_1)
    w15_3 = tl.minimum(w15_2, w20_2)
    w20_3 = tl.maximum(w15_2, w20_2)
    w1_1 = tl.minimum(w1, w6)
    w6_1 = tl.maximum(w1, w6)
    w11_1 = tl.minimum(w11, w16)
    w16_1 = tl.maximum(w11, w16)
    w1_2 = tl.minimum(w1_1, w11_1)
    w11_2 = tl.maximum(w1_1, w11_1)
    w6_2 = tl.minimum(w6_1, w16_1)
    w16_2 = tl.maximum(w6_1, w16_1)
    w6_3 = tl.minimum(w6_2, w11_2)
    w11_3 = tl.maximum(w6_2, w11_2)
    w21_1 = tl.maximum(w1_2, w21)
    w11_4 = tl.minimum(w11_3, w21_1)
    w21_2 = tl.maximum(w11_3, w21_1)
    w11_5 = tl.maximum(w6_3, w11_4)
    w16_3 = tl.minimum(w16_2, w21_2)
    w21_3 = tl.maximum(w16_2, w21_2)
    w2_1 = tl.minimum(w2, w7)
    w7_1 = tl.maximum(w2, w7)
    w12_1 = tl.minimum(w12, w17)
    w17_1 = tl.maximum(w12, w17)
    w2_2 = tl.minimum(w2_1, w12_1)
    w12_2 = tl.maximum(w2_1, w12_1)
    w7_2 = tl.minimum(w7_1, w17_1)
    w17_2 = tl.maximum(w7_1, w17_1)
    w7_3 = tl.minimum(w7_2, w12_2)
    w12_3 = tl.maximum(w7_2, w12_2)
    w22_1 = tl.maximum(w2_2, w22)
    w12_4 = tl.minimum(w12_3, w22_1)
    w22_2 = tl.maximum(w12_3, w22_1)
    w7_4 = tl.minimum(w7_3, w12_4)
    w12_5 = tl.maximum(w7_3, w12_4)
    w17_3 = tl.minimum(w17_2, w22_2)
    w3_1 = tl.minimum(w3, w8)
    w8_1 = tl.maximum(w3, w8)
    w13_1 = tl.minimum(w13, w18)
    w18_1 = tl.maximum(w13, w18)
    w3_2 = tl.minimum(w3_1, w13_1)
    w13_2 = tl.maximum(w3_1, w13_1)
    w8_2 = tl.minimum(w8_1, w18_1)
    w8_3 = tl.minimum(w8_2, w13_2)
    w13_3 = tl.maximum(w8_2, w13_2)
    w3_3 = tl.minimum(w3_2, w23)
    w23_1 = tl.maximum(w3_2, w23)
    w13_4 = tl.minimum(w13_3, w23_1)
    w8_4 = tl.minimum(w8_3, w13_4)
    w13_5 = tl.maximum(w8_3, w13_4)
    w4_1 = tl.minimum(w4, w9)
    w9_1 = tl.maximum(w4, w9)
    w14_1 = tl.minimum(w14, w19)
    w19_1 = tl.maximum(w14, w19)
    w4_2 = tl.minimum(w4_1, w14_1)
    w14_2 = tl.maximum(w4_1, w14_1)
    w9_2 = tl.minimum(w9_1, w19_1)
    w9_3 = tl.minimum(w9_2, w14_2)
    w14_3 = tl.maximum(w9_2, w14_2)
    w4_3 = tl.minimum(w4_2, w24)
    w24_1 = tl.maximum(w4_2, w24)
    w14_4 = tl.minimum(w14_3, w24_1)
    w9_4 = tl.minimum(w9_3, w14_4)
    w11_6 = tl.minimum(w11_5, w16_3)
    w16_4 = tl.maximum(w11_5, w16_3)
    w21_4 = tl.minimum(w21_3, w7_4)
    w7_5 = tl.maximum(w21_3, w7_4)
    w12_6 = tl.minimum(w12_5, w17_3)
    w17_4 = tl.maximum(w12_5, w17_3)
    w13_6 = tl.minimum(w13_5, w4_3)
    w4_4 = tl.maximum(w13_5, w4_3)
    w15_4 = tl.minimum(w15_3, w11_6)
    w11_7 = tl.maximum(w15_3, w11_6)
    w20_4 = tl.minimum(w20_3, w16_4)
    w16_5 = tl.maximum(w20_3, w16_4)
    w7_6 = tl.minimum(w7_5, w17_4)
    w17_5 = tl.maximum(w7_5, w17_4)
    w20_5 = tl.minimum(w20_4, w11_7)
    w11_8 = tl.maximum(w20_4, w11_7)
    w7_7 = tl.minimum(w7_6, w12_6)
    w12_7 = tl.maximum(w7_6, w12_6)
    w8_5 = tl.minimum(w8_4, w13_6)
    w13_7 = tl.maximum(w8_4, w13_6)
    w15_5 = tl.minimum(w15_4, w21_4)
    w21_5 = tl.maximum(w15_4, w21_4)
    w20_6 = tl.minimum(w20_5, w7_7)
    w7_8 = tl.maximum(w20_5, w7_7)
    w11_9 = tl.minimum(w11_8, w12_7)
    w12_8 = tl.maximum(w11_8, w12_7)
    w16_6 = tl.minimum(w16_5, w17_5)
    w11_10 = tl.minimum(w11_9, w21_5)
    w21_6 = tl.maximum(w11_9, w21_5)
    w16_7 = tl.minimum(w16_6, w7_8)
    w7_9 = tl.maximum(w16_6, w7_8)
    w13_8 = tl.minimum(w13_7, w9_4)
    w9_5 = tl.maximum(w13_7, w9_4)
    w20_7 = tl.minimum(w20_6, w11_10)
    w11_11 = tl.maximum(w20_6, w11_10)
    w16_8 = tl.minimum(w16_7, w21_6)
    w21_7 = tl.maximum(w16_7, w21_6)
    w7_10 = tl.minimum(w7_9, w12_8)
    w12_9 = tl.maximum(w7_9, w12_8)
    w4_5 = tl.minimum(w4_4, w9_5)
    w9_6 = tl.maximum(w4_4, w9_5)
    w3_4 = tl.maximum(w15_5, w3_3)
    w8_6 = tl.maximum(w20_7, w8_5)
    w13_9 = tl.maximum(w11_11, w13_8)
    w16_9 = tl.minimum(w16_8, w4_5)
    w21_8 = tl.minimum(w21_7, w9_6)
    w3_5 = tl.maximum(w21_8, w3_4)
    w7_11 = tl.minimum(w7_10, w8_6)
    w12_10 = tl.minimum(w12_9, w13_9)
    w7_12 = tl.maximum(w16_9, w7_11)
    w12_11 = tl.minimum(w12_10, w3_5)
    w12_12 = tl.maximum(w7_12, w12_11)
    return w12_12


@triton.jit
def _median_of_rows(p, q, r, s, t):
    return _median_of_sorted_groups(p[0], p[1], p[2], p[3], p[4], q[0], q[1], q[2], q[3], q[4],
                                    r[0], r[1], r[2], r[3], r[4], s[0], s[1], s[2], s[3], s[4],
                                    t[0], t[1], t[2], t[3], t[4])


@triton.jit
def _store_row(out_ptr, row, H, W, cols, value):
    tl.store(out_ptr + row.to(tl.int64) * W + cols, value, mask=(cols < W) & (row < H))


@triton.jit
def _median5x5_kernel(x_ptr, out_ptr, H, W, n_rb, n_cb, BC: tl.constexpr):
    pid = tl.program_id(0)
    cb = pid % n_cb
    rb = (pid // n_cb) % n_rb
    b = pid // (n_cb * n_rb)
    img = x_ptr + b.to(tl.int64) * H * W
    dst = out_ptr + b.to(tl.int64) * H * W
    cols = cb * BC + tl.arange(0, BC)
    c0 = tl.minimum(tl.maximum(cols - 2, 0), W - 1)
    c1 = tl.minimum(tl.maximum(cols - 1, 0), W - 1)
    c2 = tl.minimum(cols, W - 1)
    c3 = tl.minimum(cols + 1, W - 1)
    c4 = tl.minimum(cols + 2, W - 1)
    r0 = rb * 8
    # the 12 input rows r0 - 2 .. r0 + 9 (clamped), each sorted once
    s0 = _sorted_row(img + tl.minimum(tl.maximum(r0 - 2, 0), H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s1 = _sorted_row(img + tl.minimum(tl.maximum(r0 - 1, 0), H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s2 = _sorted_row(img + tl.minimum(r0, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s3 = _sorted_row(img + tl.minimum(r0 + 1, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s4 = _sorted_row(img + tl.minimum(r0 + 2, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s5 = _sorted_row(img + tl.minimum(r0 + 3, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s6 = _sorted_row(img + tl.minimum(r0 + 4, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s7 = _sorted_row(img + tl.minimum(r0 + 5, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s8 = _sorted_row(img + tl.minimum(r0 + 6, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s9 = _sorted_row(img + tl.minimum(r0 + 7, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s10 = _sorted_row(img + tl.minimum(r0 + 8, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    s11 = _sorted_row(img + tl.minimum(r0 + 9, H - 1).to(tl.int64) * W, c0, c1, c2, c3, c4)
    _store_row(dst, r0, H, W, cols, _median_of_rows(s0, s1, s2, s3, s4))
    _store_row(dst, r0 + 1, H, W, cols, _median_of_rows(s1, s2, s3, s4, s5))
    _store_row(dst, r0 + 2, H, W, cols, _median_of_rows(s2, s3, s4, s5, s6))
    _store_row(dst, r0 + 3, H, W, cols, _median_of_rows(s3, s4, s5, s6, s7))
    _store_row(dst, r0 + 4, H, W, cols, _median_of_rows(s4, s5, s6, s7, s8))
    _store_row(dst, r0 + 5, H, W, cols, _median_of_rows(s5, s6, s7, s8, s9))
    _store_row(dst, r0 + 6, H, W, cols, _median_of_rows(s6, s7, s8, s9, s10))
    _store_row(dst, r0 + 7, H, W, cols, _median_of_rows(s7, s8, s9, s10, s11))


def median_filter_5x5(x: torch.Tensor) -> torch.Tensor:
    batch, h, w = x.shape
    out = torch.empty_like(x)
    n_rb = triton.cdiv(h, _ROWS)
    bc = _BC[x.dtype]
    n_cb = triton.cdiv(w, bc)
    _median5x5_kernel[(batch * n_rb * n_cb,)](x, out, h, w, n_rb, n_cb, BC=bc, num_warps=4)
    return out
