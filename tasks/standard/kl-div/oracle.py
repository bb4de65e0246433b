import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)


# One streaming pass: a fixed grid of programs strides over the flat tensors, each keeping a per-lane float32
# partial sum of exp(lp) * (lp - lq); a second one-program kernel adds the partials in a fixed order
# (deterministic) and divides by B.
@triton.jit
def _kl_partial_kernel(lq_ptr, lp_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n_prog = tl.num_programs(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    offs = tl.arange(0, BLOCK)
    for start in range(pid * BLOCK, n, n_prog * BLOCK):
        o = start + offs
        mask = o < n
        lq = tl.load(lq_ptr + o, mask=mask, other=0.0, eviction_policy="evict_first")
        lp = tl.load(lp_ptr + o, mask=mask, other=0.0, eviction_policy="evict_first")
        acc += tl.where(mask, tl.exp2(lp * _LOG2E) * (lp - lq), 0.0)
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _finish_kernel(part_ptr, out_ptr, n_part, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(part_ptr + offs, mask=offs < n_part, other=0.0)
    tl.store(out_ptr, tl.sum(p, axis=0) * scale)


def _num_sms(device):
    return torch.cuda.get_device_properties(device).multi_processor_count if device.type == "cuda" else 4


def kl_div(log_q: torch.Tensor, log_p: torch.Tensor) -> torch.Tensor:
    b = log_q.shape[0]
    n = log_q.numel()
    block = 4096
    n_prog = max(1, min(triton.cdiv(n, block), 8 * _num_sms(log_q.device)))
    part = torch.empty((n_prog,), dtype=torch.float32, device=log_q.device)
    out = torch.empty((), dtype=torch.float32, device=log_q.device)
    _kl_partial_kernel[(n_prog,)](log_q, log_p, part, n, BLOCK=block, num_warps=8)
    _finish_kernel[(1,)](part, out, n_prog, 1.0 / b, BLOCK=triton.next_power_of_2(n_prog), num_warps=4)
    return out
