import torch
import triton
import triton.language as tl


def _prune(configs, named_args, **kwargs):
    # A whole row in registers only while it fits: past 32768 float32 per row the row spills.
    kept = [c for c in configs if not c.kwargs["RESIDENT"] or kwargs["ROW_BLOCK"] <= 32768]
    return kept or configs


# The best plain Triton can do without shared memory of its own: either the whole row in registers
# (one read; 32 warps hold 32 float32 per thread at N = 32768), or two streaming passes over the
# row, the second re-reading x and residual (from L2 when the rows in flight fit it). The autotuner
# picks per N.
@triton.autotune(
    configs=[
        triton.Config({"RESIDENT": True, "BLOCK": 0}, num_warps=32),
        triton.Config({"RESIDENT": True, "BLOCK": 0}, num_warps=16),
        triton.Config({"RESIDENT": False, "BLOCK": 4096}, num_warps=8),
        triton.Config({"RESIDENT": False, "BLOCK": 8192}, num_warps=16),
        triton.Config({"RESIDENT": False, "BLOCK": 2048}, num_warps=4),
    ],
    key=["N"],
    prune_configs_by={"early_config_prune": _prune},
)
@triton.jit
def _add_layernorm_kernel(x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, N, eps, ROW_BLOCK: tl.constexpr,
                          RESIDENT: tl.constexpr, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * N
    if RESIDENT:
        cols = tl.arange(0, ROW_BLOCK)
        ok = cols < N
        h = tl.load(x_ptr + base + cols, mask=ok, other=0.0).to(tl.float32) + \
            tl.load(r_ptr + base + cols, mask=ok, other=0.0).to(tl.float32)
        mean = tl.sum(h, axis=0) / N
        d = tl.where(ok, h - mean, 0.0)
        rstd = tl.rsqrt(tl.sum(d * d, axis=0) / N + eps)
        w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + cols, (d * rstd * w + b).to(y_ptr.dtype.element_ty), mask=ok)
    else:
        # Pass 1: shifted sums (around the row's first element) keep the one-pass variance accurate.
        shift = tl.load(x_ptr + base).to(tl.float32) + tl.load(r_ptr + base).to(tl.float32)
        s1 = tl.zeros([BLOCK], dtype=tl.float32)
        s2 = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, N, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            ok = cols < N
            h = tl.load(x_ptr + base + cols, mask=ok, other=0.0).to(tl.float32) + \
                tl.load(r_ptr + base + cols, mask=ok, other=0.0).to(tl.float32)
            d = tl.where(ok, h - shift, 0.0)
            s1 += d
            s2 += d * d
        m1 = tl.sum(s1, axis=0) / N
        mean = shift + m1
        rstd = tl.rsqrt(tl.maximum(tl.sum(s2, axis=0) / N - m1 * m1, 0.0) + eps)
        # Pass 2: re-read, normalize, write.
        for start in range(0, N, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            ok = cols < N
            h = tl.load(x_ptr + base + cols, mask=ok, other=0.0).to(tl.float32) + \
                tl.load(r_ptr + base + cols, mask=ok, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
            b = tl.load(b_ptr + cols, mask=ok, other=0.0).to(tl.float32)
            tl.store(y_ptr + base + cols, ((h - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=ok)


def add_layernorm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                  eps: float) -> torch.Tensor:
    m, n = x.shape
    y = torch.empty_like(x)
    _add_layernorm_kernel[(m, )](x, residual, weight, bias, y, n, eps, ROW_BLOCK=triton.next_power_of_2(n))
    return y
