import torch
import triton
import triton.language as tl

# One launch per iteration, each reading the costs once: K = exp(-C / eps) is recomputed from C in registers
# (never stored), and both half-steps are fused. A program owns RPP rows of one matrix; row block by row block it
# forms K v for whole rows (v = b / s from the previous launch's column sums, held on chip), sets u = a / (K v)
# and adds K^T u over its rows into the column sums of the next iteration (one atomic per column a program).
# Three rotating column-sum buffers: launch t reads s[t], accumulates s[t + 1] and clears s[t + 2]. The batch is
# walked in reverse on odd launches so that the matrices read last (still in L2) are read first. A last launch
# writes the plan u K v.
_LOG2E = 1.4426950408889634
_RPP = 32        # rows a program: 1024 programs at B = 64, N = 512


@triton.jit
def _sinkhorn_step(cost, a, b, u_out, s_in, s_out, s_clear, N, M, NPB, scale, FIRST: tl.constexpr,
                   REVERSE: tl.constexpr, RPP: tl.constexpr, BR: tl.constexpr, MP: tl.constexpr):
    pid = tl.program_id(0)
    bi = pid // NPB
    if REVERSE:
        bi = tl.num_programs(0) // NPB - 1 - bi
    rb = pid % NPB
    cols = tl.arange(0, MP)
    col_ok = cols < M
    if FIRST:
        v = tl.where(col_ok, 1.0, 0.0)
    else:
        s = tl.load(s_in + bi * M + cols, mask=col_ok, other=1.0)
        v = tl.where(col_ok, tl.load(b + bi * M + cols, mask=col_ok, other=0.0) / s, 0.0)
    if rb == 0:
        tl.store(s_clear + bi * M + cols, tl.zeros((MP,), dtype=tl.float32), mask=col_ok)
    colsum = tl.zeros((MP,), dtype=tl.float32)
    base = cost + bi.to(tl.int64) * N * M
    for r0 in range(rb * RPP, tl.minimum(rb * RPP + RPP, N), BR):
        rows = r0 + tl.arange(0, BR)
        row_ok = rows < N
        mask = row_ok[:, None] & col_ok[None, :]
        c = tl.load(base + rows.to(tl.int64)[:, None] * M + cols[None, :], mask=mask, other=0.0)
        k = tl.where(mask, tl.exp2(c * scale), 0.0)
        kv = tl.sum(k * v[None, :], axis=1)
        u = tl.load(a + bi * N + rows, mask=row_ok, other=0.0) / tl.where(row_ok, kv, 1.0)
        tl.store(u_out + bi * N + rows, u, mask=row_ok)
        colsum += tl.sum(k * u[:, None], axis=0)
    tl.atomic_add(s_out + bi * M + cols, colsum, mask=col_ok, sem="relaxed")


@triton.jit
def _sinkhorn_plan(cost, b, u_in, s_in, plan, N, M, NPB, scale, RPP: tl.constexpr, BR: tl.constexpr,
                   MP: tl.constexpr):
    pid = tl.program_id(0)
    bi = pid // NPB
    rb = pid % NPB
    cols = tl.arange(0, MP)
    col_ok = cols < M
    v = tl.load(b + bi * M + cols, mask=col_ok, other=0.0) / tl.load(s_in + bi * M + cols, mask=col_ok, other=1.0)
    base = bi.to(tl.int64) * N * M
    for r0 in range(rb * RPP, tl.minimum(rb * RPP + RPP, N), BR):
        rows = r0 + tl.arange(0, BR)
        row_ok = rows < N
        mask = row_ok[:, None] & col_ok[None, :]
        at = base + rows.to(tl.int64)[:, None] * M + cols[None, :]
        k = tl.exp2(tl.load(cost + at, mask=mask, other=0.0) * scale)
        u = tl.load(u_in + bi * N + rows, mask=row_ok, other=0.0)
        tl.store(plan + at, u[:, None] * k * v[None, :], mask=mask)


@triton.jit
def _zero(ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < n)


def sinkhorn_plan(cost: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, iters: int) -> torch.Tensor:
    batch, n, m = cost.shape
    mp = triton.next_power_of_2(m)
    warps = 4 if mp <= 512 else 8          # a row block of 1024 elements a warp in registers
    br = max(1, min(_RPP, 1024 * warps // mp))
    npb = triton.cdiv(n, _RPP)
    grid = (batch * npb,)
    scale = -_LOG2E / eps
    sums = torch.empty((3, batch, m), dtype=torch.float32, device=cost.device)
    u = torch.empty((batch, n), dtype=torch.float32, device=cost.device)
    plan = torch.empty_like(cost)
    _zero[(triton.cdiv(batch * m, 1024),)](sums[1], batch * m, BLOCK=1024, num_warps=4)
    for t in range(iters):
        _sinkhorn_step[grid](cost, a, b, u, sums[t % 3], sums[(t + 1) % 3], sums[(t + 2) % 3], n, m, npb, scale,
                             FIRST=t == 0, REVERSE=t % 2 == 1, RPP=_RPP, BR=br, MP=mp, num_warps=warps)
    _sinkhorn_plan[grid](cost, b, u, sums[iters % 3], plan, n, m, npb, scale, RPP=_RPP, BR=br, MP=mp,
                         num_warps=warps)
    return plan
