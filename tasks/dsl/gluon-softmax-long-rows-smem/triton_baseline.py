import os

import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)
NEG_BIG = tl.constexpr(-1.0e30)  # finite stand-in for -inf past the row end: no inf - inf in the update

# The best plain Triton for bf16 rows of 64K..112K elements, past what a program's registers hold. The
# autotuner chooses, per N, between
#  - two streaming passes: an online max/sum pass (each 8-element group reduced in registers, so one
#    exponential an element plus one rescale a group) loading with evict_last, and a normalising pass that
#    re-reads the row with evict_first, from L2 when few rows are in flight: a persistent grid of 1, 2 or 4
#    programs per SM bounds them (one program per row is tried too);
#  - the whole row resident in registers (up to three power-of-two pieces that cover N, 32 warps), spilling
#    what does not fit to local memory, which the L1 caches.
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
def _load_scaled(x_ptr, base, cols, n, EVICT: tl.constexpr):
    """x * log2(e) in float32, NEG_BIG past the row end."""
    x = tl.load(x_ptr + base + cols, mask=cols < n, other=0.0, eviction_policy=EVICT).to(tl.float32)
    return tl.where(cols < n, x * LOG2E, NEG_BIG)


@triton.jit
def _store_piece(out_ptr, base, cols, n, xs, m, inv):
    y = tl.exp2(xs - m) * inv
    tl.store(out_ptr + base + cols, y.to(out_ptr.dtype.element_ty), mask=cols < n)


@triton.jit
def _resident_row(x_ptr, out_ptr, base, n, P1: tl.constexpr, P2: tl.constexpr, P3: tl.constexpr):
    c1 = tl.arange(0, P1)
    x1 = _load_scaled(x_ptr, base, c1, n, "evict_first")
    m = tl.max(x1, axis=0)
    if P2 > 0:
        c2 = P1 + tl.arange(0, P2)
        x2 = _load_scaled(x_ptr, base, c2, n, "evict_first")
        m = tl.maximum(m, tl.max(x2, axis=0))
    if P3 > 0:
        c3 = P1 + P2 + tl.arange(0, P3)
        x3 = _load_scaled(x_ptr, base, c3, n, "evict_first")
        m = tl.maximum(m, tl.max(x3, axis=0))
    s = tl.sum(tl.exp2(x1 - m), axis=0)
    if P2 > 0:
        s += tl.sum(tl.exp2(x2 - m), axis=0)
    if P3 > 0:
        s += tl.sum(tl.exp2(x3 - m), axis=0)
    inv = 1.0 / s
    _store_piece(out_ptr, base, c1, n, x1, m, inv)
    if P2 > 0:
        _store_piece(out_ptr, base, c2, n, x2, m, inv)
    if P3 > 0:
        _store_piece(out_ptr, base, c3, n, x3, m, inv)


@triton.jit
def _streaming_row(x_ptr, out_ptr, base, n, BLOCK: tl.constexpr):
    GROUPS: tl.constexpr = BLOCK // 8
    m_g = tl.full([GROUPS], NEG_BIG, tl.float32)
    s_g = tl.zeros([GROUPS], tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        xs = tl.reshape(_load_scaled(x_ptr, base, cols, n, "evict_last"), [GROUPS, 8])
        m_new = tl.maximum(m_g, tl.max(xs, axis=1))
        s_g = s_g * tl.exp2(m_g - m_new) + tl.sum(tl.exp2(xs - m_new[:, None]), axis=1)
        m_g = m_new
    m = tl.max(m_g, axis=0)
    inv = 1.0 / tl.sum(s_g * tl.exp2(m_g - m), axis=0)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        _store_piece(out_ptr, base, cols, n, _load_scaled(x_ptr, base, cols, n, "evict_first"), m, inv)


@triton.autotune(configs=CONFIGS, key=["n_vec"])
@triton.jit
def _softmax_kernel(x_ptr, out_ptr, M, n_vec, P1: tl.constexpr, P2: tl.constexpr, P3: tl.constexpr,
                    RESIDENT: tl.constexpr, BLOCK: tl.constexpr, PER_SM: tl.constexpr):
    n = n_vec * 8  # a multiple of 8: rows start 16-byte aligned
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    for i in range(0, tl.cdiv(M - pid, nprog)):  # rows pid, pid + nprog, ...
        base = (pid + i * nprog).to(tl.int64) * n
        if RESIDENT:
            _resident_row(x_ptr, out_ptr, base, n, P1, P2, P3)
        else:
            _streaming_row(x_ptr, out_ptr, base, n, BLOCK)


def _pieces(n: int) -> tuple[int, int, int]:
    """Up to three powers of two, largest first, whose sum covers n."""
    p1 = 1 << (n.bit_length() - 1)
    rest = n - p1
    p2 = 1 << (rest.bit_length() - 1) if rest else 0
    rest -= p2
    p3 = triton.next_power_of_2(rest) if rest else 0
    return p1, p2, p3


def softmax_long_rows(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 132

    def grid(meta):
        return (m if meta["PER_SM"] == 0 else min(m, sms * meta["PER_SM"]), )

    p1, p2, p3 = _pieces(n)
    _softmax_kernel[grid](x, out, m, n // 8, P1=p1, P2=p2, P3=p3)
    return out
