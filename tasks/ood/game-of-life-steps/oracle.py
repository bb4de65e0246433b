import torch
import triton
import triton.language as tl

# Bit-sliced on a packed board: the cells are packed once into int32 words (bit j of word w of a row holds column
# 32 w + j; the last word of a row holds the W mod 32 columns left, its other bits zero), every generation is one
# pass over the packed board, 32 times smaller than the cells and resident in the L2, and the result is unpacked
# once. A generation costs a word about 40 instructions: nine loads (its word and the two beside it, in its row and
# the rows above and below, all L1 hits but the first), the neighbours' bits shifted in, the horizontal 3-sums as
# two bit planes and the vertical full adders in three-input logic. No exchange between threads, no barrier.
_STEP_ROWS, _STEP_WORDS = 8, 64   # a step program: 8 rows of 64 words, 4 words a thread
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
def _row_sums(src, row_base, words, left, right, first, last, LAST_BITS):
    # the horizontal 3-sums of one row's words as two bit planes (h1 h0): the cells to the left and right are the
    # word shifted, with one bit from the neighbouring word; across the torus seam the bit comes from column W - 1
    # (bit LAST_BITS - 1 of the last word) or column 0, and the last word takes column 0 at bit LAST_BITS - 1
    c = tl.load(src + row_base + words)
    lw = tl.load(src + row_base + left)
    rw = tl.load(src + row_base + right)
    carry_left = tl.where(first, lw >> (LAST_BITS - 1), lw >> 31) & 1
    lft = (c << 1) | carry_left
    rgt = ((c >> 1) & 0x7FFFFFFF) | ((rw & 1) << tl.where(last, LAST_BITS - 1, 31))
    h0 = lft ^ c ^ rgt
    h1 = (lft & c) | (rgt & (lft ^ c))
    return c, h0, h1


@triton.jit
def _step_kernel(src, dst, H, NW, LAST_BITS, n_rb, n_wb, BR: tl.constexpr, BW: tl.constexpr):
    pid = tl.program_id(0)
    wb = pid % n_wb
    rb = (pid // n_wb) % n_rb
    b = pid // (n_wb * n_rb)
    rows = rb * BR + tl.arange(0, BR)
    words = wb * BW + tl.arange(0, BW)
    ok = (rows < H)[:, None] & (words < NW)[None, :]
    rows = tl.minimum(rows, H - 1)  # rows and words past the board are computed on a copy and not stored
    words = tl.minimum(words, NW - 1)
    up = tl.where(rows == 0, H - 1, rows - 1)
    down = tl.where(rows == H - 1, 0, rows + 1)
    first = (words == 0)[None, :]
    last = (words == NW - 1)[None, :]
    left = tl.where(words == 0, NW - 1, words - 1)[None, :]
    right = tl.where(words == NW - 1, 0, words + 1)[None, :]
    board = b.to(tl.int64) * H
    w2 = words[None, :]
    _, a0, a1 = _row_sums(src, ((board + up) * NW)[:, None], w2, left, right, first, last, LAST_BITS)
    c, h0, h1 = _row_sums(src, ((board + rows) * NW)[:, None], w2, left, right, first, last, LAST_BITS)
    _, c0, c1 = _row_sums(src, ((board + down) * NW)[:, None], w2, left, right, first, last, LAST_BITS)
    # 3x3 sum (center included) = t0 + 2 (k + x) + 4 y
    t0 = a0 ^ h0 ^ c0
    k = (a0 & h0) | (c0 & (a0 ^ h0))
    x = a1 ^ h1 ^ c1
    y = (a1 & h1) | (c1 & (a1 ^ h1))
    three = t0 & ~y & (k ^ x)                                  # sum == 3
    four = ~t0 & ((y & ~(k | x)) | (~y & k & x))               # sum == 4
    new = three | (four & c)
    keep = tl.where(last, ~(-2 << (LAST_BITS - 1)), -1)  # the low LAST_BITS bits: the last word's spare bits stay 0
    tl.store(dst + ((board + rows) * NW)[:, None] + w2, new & keep, mask=ok)


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
    s_rb, s_wb = triton.cdiv(h, _STEP_ROWS), triton.cdiv(nw, _STEP_WORDS)
    for _ in range(steps):
        _step_kernel[(batch * s_rb * s_wb,)](packed, spare, h, nw, last_bits, s_rb, s_wb, BR=_STEP_ROWS,
                                             BW=_STEP_WORDS, num_warps=4)
        packed, spare = spare, packed
    out = torch.empty_like(board)
    _unpack_kernel[(batch * n_rb * n_wb,)](packed, out, h, w, nw, n_rb, n_wb, BR=_PACK_ROWS, BW=_PACK_WORDS,
                                           num_warps=4)
    return out
