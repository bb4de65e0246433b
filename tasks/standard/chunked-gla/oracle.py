import torch
import triton
import triton.language as tl


# One program per (batch, head, BV value columns) walks the sequence in chunks of Q steps with the state
# S (K, BV) in float32 registers. Per chunk, with G = the running sum of g inside the chunk (Q, K) and
# G_last its last row:
#   o = [(q e^G) (k e^-G)^T]_{i >= j} @ v  +  (q e^G) @ S          (times scale)
#   S = e^G_last * S + (k e^(G_last - G))^T @ v
# e^-G stays in float32 range for any chunk of 64 gates of the sizes here (|G| < 88). The gated operands are
# float32, so those products run as TF32; v is exact in TF32.
@triton.jit
def _gla_kernel(q_ptr, k_ptr, v_ptr, g_ptr, o_ptr, T, scale, H: tl.constexpr, K: tl.constexpr, V: tl.constexpr,
                BV: tl.constexpr, Q: tl.constexpr):
    pid_bh = tl.program_id(0)
    bidx = pid_bh // H
    h = pid_bh % H
    vc = tl.program_id(1) * BV + tl.arange(0, BV)
    kc = tl.arange(0, K)
    qi = tl.arange(0, Q)
    tri = qi[:, None] >= qi[None, :]
    S = tl.zeros((K, BV), tl.float32)
    for t0 in range(0, T, Q):
        t = t0 + qi
        tm = t < T
        row = ((bidx * T + t) * H + h).to(tl.int64)
        q = tl.load(q_ptr + row[:, None] * K + kc[None, :], mask=tm[:, None], other=0.0).to(tl.float32)
        k = tl.load(k_ptr + row[:, None] * K + kc[None, :], mask=tm[:, None], other=0.0).to(tl.float32)
        g = tl.load(g_ptr + row[:, None] * K + kc[None, :], mask=tm[:, None], other=0.0)
        v = tl.load(v_ptr + row[:, None] * V + vc[None, :], mask=tm[:, None], other=0.0).to(tl.float32)
        G = tl.cumsum(g, 0)
        last = tl.min(G, 0)                                        # g <= 0: G is non-increasing in time
        qg = q * tl.exp(G) * scale
        kg = k * tl.exp(-G)
        a = tl.dot(qg, tl.trans(kg), input_precision="tf32")
        a = tl.where(tri, a, 0.0)
        o = tl.dot(a, v, input_precision="tf32") + tl.dot(qg, S, input_precision="tf32")
        tl.store(o_ptr + row[:, None] * V + vc[None, :], o.to(o_ptr.dtype.element_ty), mask=tm[:, None])
        kd = k * tl.exp(last[None, :] - G)
        S = tl.exp(last)[:, None] * S + tl.dot(tl.trans(kd), v, input_precision="tf32")


def chunked_gla(q, k, v, g, scale):
    b, t, h, kd = q.shape
    vd = v.shape[-1]
    o = torch.empty_like(v)
    bv = min(32, vd)  # (B * H) x 4 programs: about two per SM at the shapes here
    qc = 64 if t >= 64 else 32
    _gla_kernel[(b * h, triton.cdiv(vd, bv))](q, k, v, g, o, t, scale, H=h, K=kd, V=vd, BV=bv, Q=qc,
                                              num_warps=4, num_stages=2)
    return o
