import math

import torch
import triton
import triton.language as tl


# Two passes. 1: NP programs each update the moments of a slice (writing m_new, v_new) and sum param^2 and
# update^2 into float32 partials. 2: every program adds the partials in the same order (all agree on the
# trust ratio), rereads param, m_new and v_new for its slice (last slice first: L2 hits), recomputes the
# update and writes p_new.
@triton.jit
def _lamb_pass1(p_ptr, g_ptr, m_ptr, v_ptr, m_out, v_out, pw_ptr, pu_ptr, n, beta1, omb1, beta2, omb2, inv_b1,
                inv_sqrt_b2, eps, wd, SLICE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    start = pid.to(tl.int64) * SLICE
    sw = tl.zeros((BLOCK,), tl.float32)
    su = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, SLICE, BLOCK):
        offs = start + off + tl.arange(0, BLOCK)
        mask = offs < n
        p = tl.load(p_ptr + offs, mask=mask, other=0.0)
        g = tl.load(g_ptr + offs, mask=mask, other=0.0)
        m = beta1 * tl.load(m_ptr + offs, mask=mask, other=0.0) + omb1 * g
        v = beta2 * tl.load(v_ptr + offs, mask=mask, other=0.0) + omb2 * g * g
        tl.store(m_out + offs, m, mask=mask)
        tl.store(v_out + offs, v, mask=mask)
        u = (m * inv_b1) / (tl.sqrt(v) * inv_sqrt_b2 + eps) + wd * p
        sw += p * p
        su += u * u
    tl.store(pw_ptr + pid, tl.sum(sw, 0))
    tl.store(pu_ptr + pid, tl.sum(su, 0))


@triton.jit
def _lamb_pass2(p_ptr, m_ptr, v_ptr, pw_ptr, pu_ptr, p_out, n, NP, lr, inv_b1, inv_sqrt_b2, eps, wd,
                SLICE: tl.constexpr, BLOCK: tl.constexpr, NPP: tl.constexpr):
    pid = tl.program_id(0)
    po = tl.arange(0, NPP)
    w_norm = tl.sqrt(tl.sum(tl.load(pw_ptr + po, mask=po < NP, other=0.0), 0))
    u_norm = tl.sqrt(tl.sum(tl.load(pu_ptr + po, mask=po < NP, other=0.0), 0))
    trust = tl.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, 1.0)
    step = lr * trust
    start = (NP - 1 - pid).to(tl.int64) * SLICE
    for off in range(0, SLICE, BLOCK):
        offs = start + off + tl.arange(0, BLOCK)
        mask = offs < n
        p = tl.load(p_ptr + offs, mask=mask, other=0.0)
        m = tl.load(m_ptr + offs, mask=mask, other=0.0)
        v = tl.load(v_ptr + offs, mask=mask, other=0.0)
        u = (m * inv_b1) / (tl.sqrt(v) * inv_sqrt_b2 + eps) + wd * p
        tl.store(p_out + offs, p - step * u, mask=mask)


def lamb_step(param, grad, m, v, lr, beta1, beta2, eps, weight_decay, step):
    n = param.numel()
    dev = param.device
    block = 2048
    np_ = min(2048, triton.cdiv(n, block))
    slice_ = triton.cdiv(triton.cdiv(n, np_), block) * block
    np_ = triton.cdiv(n, slice_)
    p_new = torch.empty_like(param)
    m_new = torch.empty_like(m)
    v_new = torch.empty_like(v)
    pw = torch.empty(np_, dtype=torch.float32, device=dev)
    pu = torch.empty(np_, dtype=torch.float32, device=dev)
    inv_b1 = 1 / (1 - beta1 ** step)
    inv_sqrt_b2 = 1 / math.sqrt(1 - beta2 ** step)
    _lamb_pass1[(np_,)](param, grad, m, v, m_new, v_new, pw, pu, n, beta1, 1 - beta1, beta2, 1 - beta2, inv_b1,
                        inv_sqrt_b2, eps, weight_decay, SLICE=slice_, BLOCK=block, num_warps=8)
    _lamb_pass2[(np_,)](param, m_new, v_new, pw, pu, p_new, n, np_, lr, inv_b1, inv_sqrt_b2, eps, weight_decay,
                        SLICE=slice_, BLOCK=block, NPP=triton.next_power_of_2(np_), num_warps=8)
    return p_new, m_new, v_new
