import os

import torch
import triton
import triton.language as tl

# The best plain Triton for rows of 36K..58K fp16 elements, past what a program's registers hold (a 32-warp
# program has 64 registers a thread: 65536 for the whole row, its h and everything else). The autotuner
# chooses, per N, between
#  - two streaming passes over the row, the second re-reading x and residual, which stay in L2 when few rows
#    are in flight: a persistent grid of 1, 2 or 4 programs per SM bounds them (one program per row is tried
#    too), pass 1 loads with evict_last and pass 2 with evict_first;
#  - the whole row resident in registers (h as up to three power-of-two pieces that cover N), spilling what
#    does not fit to local memory, which the L1 caches.
_STREAMING = [
    triton.Config({"RESIDENT": False, "BLOCK": 4096, "PER_SM": 1}, num_warps=16),
    triton.Config({"RESIDENT": False, "BLOCK": 8192, "PER_SM": 1}, num_warps=32),
    triton.Config({"RESIDENT": False, "BLOCK": 4096, "PER_SM": 2}, num_warps=16),
    triton.Config({"RESIDENT": False, "BLOCK": 2048, "PER_SM": 4}, num_warps=8),
    triton.Config({"RESIDENT": False, "BLOCK": 4096, "PER_SM": 4}, num_warps=8),
    triton.Config({"RESIDENT": False, "BLOCK": 4096, "PER_SM": 0}, num_warps=8),
    triton.Config({"RESIDENT": False, "BLOCK": 8192, "PER_SM": 0}, num_warps=16),
]
_RESIDENT = [triton.Config({"RESIDENT": True, "BLOCK": 0, "PER_SM": 0}, num_warps=32)]
CONFIGS = _STREAMING + _RESIDENT
if os.environ.get("TRITON_INTERPRET") == "1":  # the interpreter cannot benchmark: its first config only
    CONFIGS = CONFIGS[:1]


@triton.jit
def _load_h(x_ptr, r_ptr, base, cols, N, EVICT: tl.constexpr):
    ok = cols < N
    x = tl.load(x_ptr + base + cols, mask=ok, other=0.0, eviction_policy=EVICT)
    r = tl.load(r_ptr + base + cols, mask=ok, other=0.0, eviction_policy=EVICT)
    return x.to(tl.float32) + r.to(tl.float32)


@triton.jit
def _write_piece(h, w_ptr, b_ptr, y_ptr, base, cols, N, mean, rstd):
    ok = cols < N
    w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=ok, other=0.0).to(tl.float32)
    tl.store(y_ptr + base + cols, ((h - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=ok)


@triton.jit
def _resident_row(x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, base, N, eps, P1: tl.constexpr, P2: tl.constexpr,
                  P3: tl.constexpr):
    # h over [0, P1), [P1, P1 + P2), [P1 + P2, P1 + P2 + P3): powers of two that cover N with little waste.
    c1 = tl.arange(0, P1)
    h1 = _load_h(x_ptr, r_ptr, base, c1, N, "evict_first")
    total = tl.sum(h1, axis=0)
    if P2 > 0:
        c2 = P1 + tl.arange(0, P2)
        h2 = _load_h(x_ptr, r_ptr, base, c2, N, "evict_first")
        total += tl.sum(h2, axis=0)
    if P3 > 0:
        c3 = P1 + P2 + tl.arange(0, P3)
        h3 = _load_h(x_ptr, r_ptr, base, c3, N, "evict_first")
        total += tl.sum(h3, axis=0)
    mean = total / N
    d1 = tl.where(c1 < N, h1 - mean, 0.0)
    sq = tl.sum(d1 * d1, axis=0)
    if P2 > 0:
        d2 = tl.where(c2 < N, h2 - mean, 0.0)
        sq += tl.sum(d2 * d2, axis=0)
    if P3 > 0:
        d3 = tl.where(c3 < N, h3 - mean, 0.0)
        sq += tl.sum(d3 * d3, axis=0)
    rstd = tl.rsqrt(sq / N + eps)
    _write_piece(h1, w_ptr, b_ptr, y_ptr, base, c1, N, mean, rstd)
    if P2 > 0:
        _write_piece(h2, w_ptr, b_ptr, y_ptr, base, c2, N, mean, rstd)
    if P3 > 0:
        _write_piece(h3, w_ptr, b_ptr, y_ptr, base, c3, N, mean, rstd)


@triton.jit
def _streaming_row(x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, base, N, eps, BLOCK: tl.constexpr):
    # Pass 1: sums shifted by the row's first h keep the one-pass variance accurate.
    shift = tl.load(x_ptr + base).to(tl.float32) + tl.load(r_ptr + base).to(tl.float32)
    s1 = tl.zeros([BLOCK], dtype=tl.float32)
    s2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        d = tl.where(cols < N, _load_h(x_ptr, r_ptr, base, cols, N, "evict_last") - shift, 0.0)
        s1 += d
        s2 += d * d
    m1 = tl.sum(s1, axis=0) / N
    mean = shift + m1
    rstd = tl.rsqrt(tl.maximum(tl.sum(s2, axis=0) / N - m1 * m1, 0.0) + eps)
    # Pass 2: re-read (from L2), normalise, write.
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        h = _load_h(x_ptr, r_ptr, base, cols, N, "evict_first")
        _write_piece(h, w_ptr, b_ptr, y_ptr, base, cols, N, mean, rstd)


@triton.autotune(configs=CONFIGS, key=["N"])
@triton.jit
def _add_layernorm_kernel(x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, M, N, eps, P1: tl.constexpr, P2: tl.constexpr,
                          P3: tl.constexpr, RESIDENT: tl.constexpr, BLOCK: tl.constexpr, PER_SM: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    for i in range(0, tl.cdiv(M - pid, nprog)):  # rows pid, pid + nprog, ...
        base = (pid + i * nprog).to(tl.int64) * N
        if RESIDENT:
            _resident_row(x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, base, N, eps, P1, P2, P3)
        else:
            _streaming_row(x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, base, N, eps, BLOCK)


def _pieces(n: int) -> tuple[int, int, int]:
    """Up to three powers of two, largest first, whose sum covers n."""
    p1 = 1 << (n.bit_length() - 1)
    rest = n - p1
    p2 = 1 << (rest.bit_length() - 1) if rest else 0
    rest -= p2
    p3 = triton.next_power_of_2(rest) if rest else 0
    return p1, p2, p3


def add_layernorm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                  eps: float) -> torch.Tensor:
    m, n = x.shape
    y = torch.empty_like(x)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 132

    def grid(meta):
        return (m if meta["PER_SM"] == 0 else min(m, sms * meta["PER_SM"]), )

    p1, p2, p3 = _pieces(n)
    _add_layernorm_kernel[grid](x, residual, weight, bias, y, m, n, eps, P1=p1, P2=p2, P3=p3)
    return y
