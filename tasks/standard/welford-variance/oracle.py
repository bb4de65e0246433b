import torch
import triton
import triton.language as tl


# One pass, one program per row: each lane accumulates d = x - K and d^2, with the shift K = x[row, 0]
# (within a few standard deviations of the mean, so the sums carry no large common part and
# S2 - S1^2 / N cancels only mildly); lanes are reduced once at the end. mean = K + S1 / N and
# var = (S2 - S1^2 / N) / (N - 1). x is read once with 16-byte loads.
@triton.jit
def _var_mean_kernel(x_ptr, mean_ptr, var_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row.to(tl.int64) * N
    k = tl.load(base)
    s1 = tl.zeros((BLOCK,), tl.float32)
    s2 = tl.zeros((BLOCK,), tl.float32)
    offs = tl.arange(0, BLOCK)
    for c0 in range(0, N, BLOCK):
        cols = c0 + offs
        mask = cols < N
        x = tl.load(base + cols, mask=mask, other=0.0, eviction_policy="evict_first")
        d = tl.where(mask, x - k, 0.0)
        s1 += d
        s2 += d * d
    t1 = tl.sum(s1, axis=0)
    t2 = tl.sum(s2, axis=0)
    n = N.to(tl.float32)
    tl.store(mean_ptr + row, k + t1 / n)
    tl.store(var_ptr + row, (t2 - t1 * t1 / n) / (n - 1.0))


def welford_variance(x: torch.Tensor):
    m, n = x.shape
    mean = torch.empty((m,), dtype=torch.float32, device=x.device)
    var = torch.empty((m,), dtype=torch.float32, device=x.device)
    block = min(4096, triton.next_power_of_2(n))
    _var_mean_kernel[(m,)](x, mean, var, n, BLOCK=block, num_warps=8)
    return mean, var
