import torch
import triton
import triton.language as tl


# Four launches (the column factor and the RMS are global dependencies):
#  1. row blocks: each program owns RB full rows: their means of sq give row_new; their column sums go to a
#     (row block, C) table of partials;
#  2. column blocks: col_new from the partials (a fixed order);
#  3. row blocks: mean(row_new) from row_new, the partial sums of u^2 of the block;
#  4. row blocks (last first: L2 hits of pass 3's reads): the RMS from the partials, p_new.
@triton.jit
def _stats_kernel(g_ptr, row_ptr, row_out, colpart_ptr, R, C, beta2, eps1, RB: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * RB + tl.arange(0, RB)
    rmask = rows < R
    acc = tl.zeros((RB,), tl.float32)
    for c0 in range(0, C, BC):
        cols = c0 + tl.arange(0, BC)
        cmask = cols < C
        mask = rmask[:, None] & cmask[None, :]
        g = tl.load(g_ptr + rows.to(tl.int64)[:, None] * C + cols[None, :], mask=mask, other=0.0)
        sq = tl.where(mask, g * g + eps1, 0.0)
        acc += tl.sum(sq, 1)
        tl.store(colpart_ptr + pid.to(tl.int64) * C + cols, tl.sum(sq, 0), mask=cmask)
    old = tl.load(row_ptr + rows, mask=rmask, other=0.0)
    tl.store(row_out + rows, beta2 * old + (1 - beta2) * (acc / C), mask=rmask)


@triton.jit
def _col_kernel(colpart_ptr, col_ptr, col_out, R, C, NRB, beta2, BC: tl.constexpr, BR: tl.constexpr):
    cols = tl.program_id(0) * BC + tl.arange(0, BC)
    cmask = cols < C
    acc = tl.zeros((BR, BC), tl.float32)
    for r0 in range(0, NRB, BR):
        rb = r0 + tl.arange(0, BR)
        acc += tl.load(colpart_ptr + rb.to(tl.int64)[:, None] * C + cols[None, :],
                       mask=(rb < NRB)[:, None] & cmask[None, :], other=0.0)
    old = tl.load(col_ptr + cols, mask=cmask, other=0.0)
    tl.store(col_out + cols, beta2 * old + (1 - beta2) * (tl.sum(acc, 0) / R), mask=cmask)


@triton.jit
def _row_mean(row_ptr, R, BRM: tl.constexpr):
    acc = tl.zeros((BRM,), tl.float32)
    for r0 in range(0, R, BRM):
        ro = r0 + tl.arange(0, BRM)
        acc += tl.load(row_ptr + ro, mask=ro < R, other=0.0)
    return tl.sum(acc, 0) / R


@triton.jit
def _usq_kernel(g_ptr, row_ptr, col_ptr, upart_ptr, R, C, RB: tl.constexpr, BC: tl.constexpr, BRM: tl.constexpr):
    pid = tl.program_id(0)
    mean_row = _row_mean(row_ptr, R, BRM)
    rows = pid * RB + tl.arange(0, RB)
    rmask = rows < R
    rf = tl.rsqrt(tl.load(row_ptr + rows, mask=rmask, other=1.0) / mean_row)
    acc = tl.zeros((RB, BC), tl.float32)
    for c0 in range(0, C, BC):
        cols = c0 + tl.arange(0, BC)
        cmask = cols < C
        mask = rmask[:, None] & cmask[None, :]
        g = tl.load(g_ptr + rows.to(tl.int64)[:, None] * C + cols[None, :], mask=mask, other=0.0)
        cf = tl.rsqrt(tl.load(col_ptr + cols, mask=cmask, other=1.0))
        u = g * rf[:, None] * cf[None, :]
        acc += u * u
    tl.store(upart_ptr + pid, tl.sum(tl.sum(acc, 1), 0))


@triton.jit
def _apply_kernel(p_ptr, g_ptr, row_ptr, col_ptr, upart_ptr, out_ptr, R, C, NRB, lr, clip, RB: tl.constexpr,
                  BC: tl.constexpr, BRM: tl.constexpr, NRBP: tl.constexpr):
    pid = NRB - 1 - tl.program_id(0)
    po = tl.arange(0, NRBP)
    rms = tl.sqrt(tl.sum(tl.load(upart_ptr + po, mask=po < NRB, other=0.0), 0) / (R * C))
    step = lr / tl.maximum(rms / clip, 1.0)
    mean_row = _row_mean(row_ptr, R, BRM)
    rows = pid * RB + tl.arange(0, RB)
    rmask = rows < R
    rf = tl.rsqrt(tl.load(row_ptr + rows, mask=rmask, other=1.0) / mean_row)
    for c0 in range(0, C, BC):
        cols = c0 + tl.arange(0, BC)
        cmask = cols < C
        mask = rmask[:, None] & cmask[None, :]
        offs = rows.to(tl.int64)[:, None] * C + cols[None, :]
        g = tl.load(g_ptr + offs, mask=mask, other=0.0)
        p = tl.load(p_ptr + offs, mask=mask, other=0.0)
        cf = tl.rsqrt(tl.load(col_ptr + cols, mask=cmask, other=1.0))
        tl.store(out_ptr + offs, p - step * (g * rf[:, None] * cf[None, :]), mask=mask)


def adafactor_step(param, grad, row, col, lr, beta2, eps1, clip_threshold):
    r, c = param.shape
    dev = param.device
    rb = 8
    bc = min(1024, triton.next_power_of_2(c))
    nrb = triton.cdiv(r, rb)
    p_new = torch.empty_like(param)
    row_new = torch.empty_like(row)
    col_new = torch.empty_like(col)
    colpart = torch.empty((nrb, c), dtype=torch.float32, device=dev)
    upart = torch.empty(nrb, dtype=torch.float32, device=dev)
    _stats_kernel[(nrb,)](grad, row, row_new, colpart, r, c, beta2, eps1, RB=rb, BC=bc, num_warps=8)
    bcc = min(256, triton.next_power_of_2(c))
    _col_kernel[(triton.cdiv(c, bcc),)](colpart, col, col_new, r, c, nrb, beta2, BC=bcc, BR=16, num_warps=4)
    brm = min(4096, triton.next_power_of_2(r))
    _usq_kernel[(nrb,)](grad, row_new, col_new, upart, r, c, RB=rb, BC=bc, BRM=brm, num_warps=8)
    _apply_kernel[(nrb,)](param, grad, row_new, col_new, upart, p_new, r, c, nrb, lr, clip_threshold, RB=rb, BC=bc,
                          BRM=brm, NRBP=triton.next_power_of_2(nrb), num_warps=8)
    return p_new, row_new, col_new
