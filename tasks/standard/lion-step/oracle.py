import torch
import triton
import triton.language as tl


# One fused streaming pass: 3 reads + 2 writes per element (20 B). Full blocks take an unmasked path (16-byte
# accesses even when N is not a multiple of 16); only the last block is masked.
@triton.jit
def _lion_update(p, g, m, decay, lr, beta1, one_minus_beta1, beta2, one_minus_beta2):
    c = beta1 * m + one_minus_beta1 * g
    upd = tl.where(c > 0, 1.0, tl.where(c < 0, -1.0, 0.0))
    return p * decay - lr * upd, beta2 * m + one_minus_beta2 * g


@triton.jit
def _lion_kernel(p_ptr, g_ptr, m_ptr, p_out, m_out, n, decay, lr, beta1, one_minus_beta1, beta2, one_minus_beta2,
                 BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n:
        p, m = _lion_update(tl.load(p_ptr + offs), tl.load(g_ptr + offs), tl.load(m_ptr + offs), decay, lr, beta1,
                            one_minus_beta1, beta2, one_minus_beta2)
        tl.store(p_out + offs, p)
        tl.store(m_out + offs, m)
    else:
        mask = offs < n
        p, m = _lion_update(tl.load(p_ptr + offs, mask=mask, other=0.0), tl.load(g_ptr + offs, mask=mask, other=0.0),
                            tl.load(m_ptr + offs, mask=mask, other=0.0), decay, lr, beta1, one_minus_beta1, beta2,
                            one_minus_beta2)
        tl.store(p_out + offs, p, mask=mask)
        tl.store(m_out + offs, m, mask=mask)


def lion_step(param, grad, m, lr, beta1, beta2, weight_decay):
    n = param.numel()
    p_new = torch.empty_like(param)
    m_new = torch.empty_like(m)
    block = 2048
    _lion_kernel[(triton.cdiv(n, block),)](param, grad, m, p_new, m_new, n, 1 - lr * weight_decay, lr, beta1,
                                           1 - beta1, beta2, 1 - beta2, BLOCK=block, num_warps=8)
    return p_new, m_new
