import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)


# Persistent: each program takes rows r = pid, pid + G, ... For a row it makes two passes over the logits:
# the first keeps a per-lane online (max, sum of exp2) and the sum of x (no cross-warp reduction inside the
# loop), the second re-reads the row from its end (the chunks read last are the likeliest still in L2;
# at most G rows are in flight) and writes the gradient once in bf16. Every program counts the non-ignored targets itself (M int64 values from L2).
@triton.jit
def _ce_fwd_bwd_kernel(logits_ptr, targets_ptr, loss_ptr, grad_ptr, M, V, eps_over_v, one_minus_eps,
                       BLOCK: tl.constexpr, BLOCK_T: tl.constexpr):
    pid = tl.program_id(0)
    n_prog = tl.num_programs(0)
    # n = number of targets != -100
    cnt = tl.zeros((BLOCK_T,), tl.int32)
    for t0 in range(0, M, BLOCK_T):
        offs_t = t0 + tl.arange(0, BLOCK_T)
        tt = tl.load(targets_ptr + offs_t, mask=offs_t < M, other=-100)
        cnt += (tt != -100).to(tl.int32)
    inv_n = 1.0 / tl.sum(cnt, axis=0).to(tl.float32)
    offs = tl.arange(0, BLOCK)
    for row in range(pid, M, n_prog):
        tgt = tl.load(targets_ptr + row)
        base = (row + tl.zeros((), tl.int64)) * V
        g_row = grad_ptr + base
        if tgt == -100:
            tl.store(loss_ptr + row, 0.0)
            for c0 in range(0, V, BLOCK):
                cols = c0 + offs
                tl.store(g_row + cols, tl.zeros((BLOCK,), tl.float32).to(grad_ptr.dtype.element_ty),
                         mask=cols < V)
        else:
            x_row = logits_ptr + base
            m = tl.full((BLOCK,), -float("inf"), tl.float32)
            s = tl.zeros((BLOCK,), tl.float32)
            sx = tl.zeros((BLOCK,), tl.float32)
            for c0 in range(0, V, BLOCK):
                cols = c0 + offs
                x = tl.load(x_row + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
                sx += tl.where(cols < V, x, 0.0)
                x2 = x * _LOG2E
                m_new = tl.maximum(m, x2)
                m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
                s = s * tl.exp2(m - m_safe) + tl.exp2(x2 - m_safe)
                m = m_new
            row_max = tl.max(m, axis=0)
            total = tl.sum(s * tl.exp2(m - row_max), axis=0)
            lse2 = row_max + tl.log2(total)  # log2 units
            x_t = tl.load(x_row + tgt).to(tl.float32)
            loss = lse2 * _LN2 - one_minus_eps * x_t - eps_over_v * tl.sum(sx, axis=0)
            tl.store(loss_ptr + row, loss)
            n_chunks = tl.cdiv(V, BLOCK)
            for c in range(0, n_chunks):  # last chunk first: the most recently read chunks are still in L2
                cols = (n_chunks - 1 - c) * BLOCK + offs
                x = tl.load(x_row + cols, mask=cols < V, other=0.0, eviction_policy="evict_first").to(tl.float32)
                p = tl.exp2(x * _LOG2E - lse2)
                g = p - eps_over_v - tl.where(cols == tgt, one_minus_eps, 0.0)
                tl.store(g_row + cols, (g * inv_n).to(grad_ptr.dtype.element_ty), mask=cols < V)


def _num_sms(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4


def cross_entropy_fwd_bwd(logits: torch.Tensor, targets: torch.Tensor):
    m, v = logits.shape
    eps = 0.1
    loss = torch.empty((m,), dtype=torch.float32, device=logits.device)
    grad = torch.empty_like(logits)
    block = min(8192, triton.next_power_of_2(v))
    grid = (min(m, 2 * _num_sms(logits.device)),)
    _ce_fwd_bwd_kernel[grid](logits, targets, loss, grad, m, v, eps / v, 1.0 - eps, BLOCK=block, BLOCK_T=1024,
                             num_warps=16)
    return loss, grad
