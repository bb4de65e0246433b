import torch
import triton
import triton.language as tl

# Bit-sliced on a packed board: the cells are packed once into int32 words (bit j of word w of a row holds column
# 32 w + j; the last word of a row holds the W mod 32 columns left, its other bits zero), every generation is one
# pass over the packed board, 32 times smaller than the cells and resident in the L2, and the result is unpacked
# once. A program runs down a strip of rows: each row's words are loaded once with the words beside them (two rows
# ahead of their use), its horizontal 3-sums (two bit planes) serve the three output rows around it, and the
# vertical full adders are three-input logic: about 30 instructions a word and generation, three of them loads.
# No exchange between threads, no barrier.
_STEP_ROWS, _STEP_WORDS = 8, 64   # a step program: 8 rows of 64 words, one warp, 2 words a thread
_PACK_ROWS, _PACK_WORDS = 4, 32   # a pack or unpack program: 4 rows of 32 words, 4096 cells


@triton.jit
def _pack_kernel(src, dst, H, W, NW, n_rb, n_wb, BR: tl.constexpr, BW: tl.constexpr):
    pid = tl.program_id(0)
    wb = pid % n_wb
    rb = (pid // n_wb) % n_rb
    b = pid // (n_wb * n_rb)
    rows = rb * BR + tl.arange(0, BR)
    words = wb * BW + tl.arange(0, BW)
    bits = tl.arange(0, 32)
    cols = 32 * words[None, :, None] + bits[None, None, :]
    ok = (rows < H)[:, None, None] & (cols < W)
    cells = tl.load(src + (b.to(tl.int64) * H + rows[:, None, None]) * W + cols, mask=ok, other=0).to(tl.int32)
    packed = tl.sum(cells << bits[None, None, :], axis=2)  # distinct bits: the sum is an or
    tl.store(dst + (b.to(tl.int64) * H + rows[:, None]) * NW + words[None, :], packed,
             mask=(rows < H)[:, None] & (words < NW)[None, :])


@triton.jit
def _row_sums(c, lw, rw, carry_shift, in_shift):
    # the horizontal 3-sums of one row's words as two bit planes (h1 h0): the cells to the left and right are the
    # word shifted, with one bit from the neighbouring word; across the torus seam the bit comes from column W - 1
    # (carry_shift: bit LAST_BITS - 1 of the last word) or column 0 (in_shift: to bit LAST_BITS - 1 of the last word)
    lft = (c << 1) | ((lw >> carry_shift) & 1)
    rgt = ((c >> 1) & 0x7FFFFFFF) | ((rw & 1) << in_shift)
    h0 = lft ^ c ^ rgt
    h1 = (lft & c) | (rgt & (lft ^ c))
    return h0, h1


@triton.jit
def _step_kernel(src, dst, H, NW, LAST_BITS, n_rc, n_wb, RC: tl.constexpr, BW: tl.constexpr):
    # one generation of RC rows of BW words, row after row: each row's words are loaded once (with the words beside
    # them), two rows ahead of their use, and its horizontal sums serve the three output rows around it
    pid = tl.program_id(0)
    wb = pid % n_wb
    rc = (pid // n_wb) % n_rc
    b = pid // (n_wb * n_rc)
    words = wb * BW + tl.arange(0, BW)
    ok = words < NW
    words = tl.minimum(words, NW - 1)  # words past the row are computed on a copy and not stored
    first = words == 0
    last = words == NW - 1
    left = tl.where(first, NW - 1, words - 1)
    right = tl.where(last, 0, words + 1)
    carry_shift = tl.where(first, LAST_BITS - 1, 31)
    in_shift = tl.where(last, LAST_BITS - 1, 31)
    keep = tl.where(last, ~(-2 << (LAST_BITS - 1)), -1)  # the low LAST_BITS bits: the last word's spare bits stay 0
    board = src + b.to(tl.int64) * H * NW
    out = dst + b.to(tl.int64) * H * NW
    r0 = rc * RC
    row = board + ((r0 - 1 + H) % H) * NW
    a0, a1 = _row_sums(tl.load(row + words), tl.load(row + left), tl.load(row + right), carry_shift, in_shift)
    row = board + r0 * NW
    center = tl.load(row + words)
    h0, h1 = _row_sums(center, tl.load(row + left), tl.load(row + right), carry_shift, in_shift)
    row = board + ((r0 + 1) % H) * NW
    n1c, n1l, n1r = tl.load(row + words), tl.load(row + left), tl.load(row + right)
    row = board + ((r0 + 2) % H) * NW
    n2c, n2l, n2r = tl.load(row + words), tl.load(row + left), tl.load(row + right)
    ahead = r0 + 3  # the row loaded next, wrapped (H >= 32 > RC + 3, so one subtraction wraps it)
    for i in range(RC):  # output row r0 + i from the sums of rows r0 + i - 1 .. r0 + i + 1
        row = board + tl.where(ahead >= H, ahead - H, ahead) * NW
        ahead += 1
        n3c, n3l, n3r = tl.load(row + words), tl.load(row + left), tl.load(row + right)
        c0, c1 = _row_sums(n1c, n1l, n1r, carry_shift, in_shift)
        # 3x3 sum (center included) = t0 + 2 (k + x) + 4 y
        t0 = a0 ^ h0 ^ c0
        k = (a0 & h0) | (c0 & (a0 ^ h0))
        x = a1 ^ h1 ^ c1
        y = (a1 & h1) | (c1 & (a1 ^ h1))
        three = t0 & ~y & (k ^ x)                                  # sum == 3
        four = ~t0 & ((y & ~(k | x)) | (~y & k & x))               # sum == 4
        new = three | (four & center)
        tl.store(out + (r0 + i) * NW + words, new & keep, mask=ok & (r0 + i < H))
        a0, a1, h0, h1, center = h0, h1, c0, c1, n1c
        n1c, n1l, n1r, n2c, n2l, n2r = n2c, n2l, n2r, n3c, n3l, n3r


@triton.jit
def _unpack_kernel(src, dst, H, W, NW, n_rb, n_wb, BR: tl.constexpr, BW: tl.constexpr):
    pid = tl.program_id(0)
    wb = pid % n_wb
    rb = (pid // n_wb) % n_rb
    b = pid // (n_wb * n_rb)
    rows = rb * BR + tl.arange(0, BR)
    words = wb * BW + tl.arange(0, BW)
    bits = tl.arange(0, 32)
    packed = tl.load(src + (b.to(tl.int64) * H + rows[:, None]) * NW + words[None, :],
                     mask=(rows < H)[:, None] & (words < NW)[None, :], other=0)
    cells = ((packed[:, :, None] >> bits[None, None, :]) & 1).to(tl.uint8)
    cols = 32 * words[None, :, None] + bits[None, None, :]
    tl.store(dst + (b.to(tl.int64) * H + rows[:, None, None]) * W + cols, cells,
             mask=(rows < H)[:, None, None] & (cols < W))


def game_of_life(board: torch.Tensor, steps: int) -> torch.Tensor:
    batch, h, w = board.shape
    nw = triton.cdiv(w, 32)
    last_bits = w - 32 * (nw - 1)
    packed = torch.empty((batch, h, nw), dtype=torch.int32, device=board.device)
    spare = torch.empty_like(packed) if steps > 0 else packed
    n_rb, n_wb = triton.cdiv(h, _PACK_ROWS), triton.cdiv(nw, _PACK_WORDS)
    _pack_kernel[(batch * n_rb * n_wb,)](board, packed, h, w, nw, n_rb, n_wb, BR=_PACK_ROWS, BW=_PACK_WORDS,
                                         num_warps=4)
    s_rc, s_wb = triton.cdiv(h, _STEP_ROWS), triton.cdiv(nw, _STEP_WORDS)
    for _ in range(steps):
        _step_kernel[(batch * s_rc * s_wb,)](packed, spare, h, nw, last_bits, s_rc, s_wb, RC=_STEP_ROWS,
                                             BW=_STEP_WORDS, num_warps=1)
        packed, spare = spare, packed
    out = torch.empty_like(board)
    _unpack_kernel[(batch * n_rb * n_wb,)](packed, out, h, w, nw, n_rb, n_wb, BR=_PACK_ROWS, BW=_PACK_WORDS,
                                           num_warps=4)
    return out
