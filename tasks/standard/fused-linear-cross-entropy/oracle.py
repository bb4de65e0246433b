import os

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

_LOG2E = tl.constexpr(1.4426950408889634)
_LN2 = tl.constexpr(0.6931471805599453)

# Stage 1 is a bf16 GEMM (128x256x64 wgmma tiles fed by TMA through a 3-stage pipeline, fp32 accumulators)
# whose epilogue reduces its (tokens x vocab) tile on chip: per token the tile's max, sum of exp and, where
# the target falls in the tile, the target logit. Only these partials (3 floats per token per 256-wide vocab
# tile) reach DRAM. Programs are ordered token-tile fastest, so the few programs sharing a weight tile run
# together and the weight is read from DRAM once; hidden (a few MB) stays in L2.
# Stage 2 merges the partials per token into its loss, stage 3 averages the kept tokens (deterministic).
BLOCK_T, BLOCK_V, BLOCK_K = 128, 256, 64
NUM_WARPS, NUM_STAGES = 8, 3
# The CPU interpreter multiplies bf16 tiles as raw bits in the bare interpreter: widen there only.
UPCAST = os.environ.get("TRITON_INTERPRET") == "1"


@triton.jit
def _flce_tile_kernel(h_desc, w_desc, targets_ptr, pmax_ptr, psum_ptr, ptgt_ptr, T, V, H,
                      BLOCK_T: tl.constexpr, BLOCK_V: tl.constexpr, BLOCK_K: tl.constexpr,
                      UPCAST: tl.constexpr):
    pid = tl.program_id(0)
    n_t = tl.cdiv(T, BLOCK_T)
    pid_t = pid % n_t
    pid_v = pid // n_t
    off_t = pid_t * BLOCK_T
    off_v = pid_v * BLOCK_V
    acc = tl.zeros((BLOCK_T, BLOCK_V), dtype=tl.float32)
    for k in range(0, tl.cdiv(H, BLOCK_K)):
        a = h_desc.load([off_t, k * BLOCK_K])
        b = w_desc.load([off_v, k * BLOCK_K])
        if UPCAST:
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, tl.trans(b), acc)
    rows = off_t + tl.arange(0, BLOCK_T)
    cols = off_v + tl.arange(0, BLOCK_V)
    row_mask = rows < T
    tgt = tl.load(targets_ptr + rows, mask=row_mask, other=-100)
    x = tl.where((cols < V)[None, :], acc * _LOG2E, -float("inf"))
    m = tl.max(x, axis=1)
    s = tl.sum(tl.exp2(x - m[:, None]), axis=1)
    xt = tl.sum(tl.where(cols[None, :] == tgt[:, None], acc, 0.0), axis=1)
    p = pid_v * T + rows
    tl.store(pmax_ptr + p, m, mask=row_mask)
    tl.store(psum_ptr + p, s, mask=row_mask)
    tl.store(ptgt_ptr + p, xt, mask=row_mask)


@triton.jit
def _flce_row_kernel(targets_ptr, pmax_ptr, psum_ptr, ptgt_ptr, loss_ptr, T, n_vt,
                     BLOCK_R: tl.constexpr, BLOCK_S: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_mask = rows < T
    gm = tl.full((BLOCK_R,), -float("inf"), tl.float32)
    gs = tl.zeros((BLOCK_R,), tl.float32)
    xt = tl.zeros((BLOCK_R,), tl.float32)
    for s0 in range(0, n_vt, BLOCK_S):
        sp = s0 + tl.arange(0, BLOCK_S)
        mask = (sp < n_vt)[:, None] & row_mask[None, :]
        p = sp[:, None] * T + rows[None, :]
        pm = tl.load(pmax_ptr + p, mask=mask, other=-float("inf"))
        ps = tl.load(psum_ptr + p, mask=mask, other=0.0)
        xt += tl.sum(tl.load(ptgt_ptr + p, mask=mask, other=0.0), axis=0)
        bm = tl.maximum(gm, tl.max(pm, axis=0))
        bm_safe = tl.where(bm == -float("inf"), 0.0, bm)
        gs = gs * tl.exp2(gm - bm_safe) + tl.sum(ps * tl.exp2(pm - bm_safe[None, :]), axis=0)
        gm = bm
    lse = (gm + tl.log2(tl.where(row_mask, gs, 1.0))) * _LN2
    tgt = tl.load(targets_ptr + rows, mask=row_mask, other=-100)
    loss = tl.where(tgt != -100, lse - xt, 0.0)
    tl.store(loss_ptr + rows, loss, mask=row_mask)


@triton.jit
def _flce_mean_kernel(targets_ptr, loss_ptr, out_ptr, T, BLOCK: tl.constexpr):
    tot = tl.zeros((BLOCK,), tl.float32)
    cnt = tl.zeros((BLOCK,), tl.int32)
    for r0 in range(0, T, BLOCK):
        rows = r0 + tl.arange(0, BLOCK)
        mask = rows < T
        tot += tl.load(loss_ptr + rows, mask=mask, other=0.0)
        cnt += (tl.load(targets_ptr + rows, mask=mask, other=-100) != -100).to(tl.int32)
    tl.store(out_ptr, tl.sum(tot, axis=0) / tl.sum(cnt, axis=0).to(tl.float32))


def fused_linear_cross_entropy(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor):
    t, h = hidden.shape
    v = weight.shape[0]
    dev = hidden.device
    n_t = triton.cdiv(t, BLOCK_T)
    n_vt = triton.cdiv(v, BLOCK_V)
    pmax = torch.empty((n_vt * t,), dtype=torch.float32, device=dev)
    psum = torch.empty_like(pmax)
    ptgt = torch.empty_like(pmax)
    loss_rows = torch.empty((t,), dtype=torch.float32, device=dev)
    out = torch.empty((), dtype=torch.float32, device=dev)
    h_desc = TensorDescriptor.from_tensor(hidden, [BLOCK_T, BLOCK_K])
    w_desc = TensorDescriptor.from_tensor(weight, [BLOCK_V, BLOCK_K])
    _flce_tile_kernel[(n_t * n_vt,)](h_desc, w_desc, targets, pmax, psum, ptgt, t, v, h, BLOCK_T=BLOCK_T,
                                     BLOCK_V=BLOCK_V, BLOCK_K=BLOCK_K, UPCAST=UPCAST, num_warps=NUM_WARPS,
                                     num_stages=NUM_STAGES)
    _flce_row_kernel[(triton.cdiv(t, 32),)](targets, pmax, psum, ptgt, loss_rows, t, n_vt, BLOCK_R=32,
                                            BLOCK_S=64, num_warps=4)
    _flce_mean_kernel[(1,)](targets, loss_rows, out, t, BLOCK=1024, num_warps=4)
    return out
