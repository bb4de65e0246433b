import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)


# Persistent: program p takes rows p, p + G, ... Pass 1 streams the row in BLOCK chunks with a per-lane
# online (max, sum of exp2), merged across lanes once per row; pass 2 re-reads the chunks in reverse order
# (the last ones read are the likeliest still in L2; at most G rows of bf16 are in flight) and writes
# x - lse in float32 once.
@triton.autotune(
    configs=[
        triton.Config({"PPS": 1, "BLOCK": 4096}, num_warps=16),
        triton.Config({"PPS": 2, "BLOCK": 2048}, num_warps=8),
        triton.Config({"PPS": 1, "BLOCK": 8192}, num_warps=32),
        triton.Config({"PPS": 4, "BLOCK": 1024}, num_warps=4),
    ],
    key=["V"],
)
@triton.jit
def _log_softmax_kernel(x_ptr, out_ptr, M, V, PPS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n_prog = tl.num_programs(0)
    offs = tl.arange(0, BLOCK)
    n_chunks = tl.cdiv(V, BLOCK)
    for row in range(pid, M, n_prog):
        base = (row + tl.zeros((), tl.int64)) * V
        m = tl.full((BLOCK,), -float("inf"), tl.float32)
        s = tl.zeros((BLOCK,), tl.float32)
        for c in range(0, n_chunks):
            cols = c * BLOCK + offs
            x = tl.load(x_ptr + base + cols, mask=cols < V, other=-float("inf"),
                        eviction_policy="evict_last").to(tl.float32) * _LOG2E
            m_new = tl.maximum(m, x)
            m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
            s = s * tl.exp2(m - m_safe) + tl.exp2(x - m_safe)
            m = m_new
        row_max = tl.max(m, axis=0)
        total = tl.sum(s * tl.exp2(m - row_max), axis=0)
        lse = (row_max + tl.log2(total)) * _LN2
        for k in range(0, n_chunks):
            cols = (n_chunks - 1 - k) * BLOCK + offs
            mask = cols < V
            x = tl.load(x_ptr + base + cols, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
            tl.store(out_ptr + base + cols, x - lse, mask=mask)


def _num_sms(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 2


def log_softmax_vocab(x):
    m, v = x.shape
    out = torch.empty((m, v), dtype=torch.float32, device=x.device)
    sms = _num_sms(x.device)
    _log_softmax_kernel[lambda meta: (min(m, meta["PPS"] * sms),)](x, out, m, v)
    return out
