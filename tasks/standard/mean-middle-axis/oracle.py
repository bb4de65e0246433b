import torch
import triton
import triton.language as tl


# Split the reduced axis: program (b, j, s) sums rows [s * rows_per, (s + 1) * rows_per) of batch b's
# (L, D) slab over a BLOCK_D-wide column stripe into a (BLOCK_L, BLOCK_D) float32 register tile (coalesced
# row segments, x read once) and writes a partial; a second kernel adds the n_split partials of each output
# in a fixed order (deterministic), scales by 1 / L and rounds once. With one split there is no second pass.
@triton.jit
def _mean_partial_kernel(x_ptr, part_ptr, out_ptr, L, D, rows_per, n_split, inv_l, BLOCK_L: tl.constexpr,
                         BLOCK_D: tl.constexpr, DIRECT: tl.constexpr):
    pid_bd = tl.program_id(0)
    pid_s = tl.program_id(1)
    n_db = tl.cdiv(D, BLOCK_D)
    b = pid_bd // n_db
    cols = (pid_bd % n_db) * BLOCK_D + tl.arange(0, BLOCK_D)
    c_mask = cols < D
    acc = tl.zeros((BLOCK_L, BLOCK_D), tl.float32)
    r_start = pid_s * rows_per
    r_end = tl.minimum(r_start + rows_per, L)
    base = x_ptr + b.to(tl.int64) * L * D
    for r0 in range(r_start, r_end, BLOCK_L):
        rows = r0 + tl.arange(0, BLOCK_L)
        mask = (rows < r_end)[:, None] & c_mask[None, :]
        x = tl.load(base + rows.to(tl.int64)[:, None] * D + cols[None, :], mask=mask, other=0.0,
                    eviction_policy="evict_first")
        acc += x.to(tl.float32)
    s = tl.sum(acc, axis=0)
    if DIRECT:
        tl.store(out_ptr + b * D + cols, (s * inv_l).to(out_ptr.dtype.element_ty), mask=c_mask)
    else:
        tl.store(part_ptr + (pid_s * tl.num_programs(0) + pid_bd) * BLOCK_D + tl.arange(0, BLOCK_D), s)


@triton.jit
def _mean_finish_kernel(part_ptr, out_ptr, D, n_split, inv_l, BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_bd = tl.program_id(0)
    n_bd = tl.num_programs(0)
    n_db = tl.cdiv(D, BLOCK_D)
    b = pid_bd // n_db
    offs = tl.arange(0, BLOCK_D)
    cols = (pid_bd % n_db) * BLOCK_D + offs
    acc = tl.zeros((BLOCK_S, BLOCK_D), tl.float32)
    for s0 in range(0, n_split, BLOCK_S):
        s = s0 + tl.arange(0, BLOCK_S)
        acc += tl.load(part_ptr + (s[:, None] * n_bd + pid_bd) * BLOCK_D + offs[None, :],
                       mask=(s < n_split)[:, None], other=0.0)
    tl.store(out_ptr + b * D + cols, (tl.sum(acc, axis=0) * inv_l).to(out_ptr.dtype.element_ty), mask=cols < D)


def _num_sms(device):
    return torch.cuda.get_device_properties(device).multi_processor_count if device.type == "cuda" else 4


def mean_middle_axis(x: torch.Tensor) -> torch.Tensor:
    b, l, d = x.shape
    block_d = min(256, triton.next_power_of_2(d))
    block_l = 32 if x.element_size() == 2 else 16
    n_bd = b * triton.cdiv(d, block_d)
    n_split = max(1, min(triton.cdiv(l, block_l), triton.cdiv(8 * _num_sms(x.device), n_bd)))
    rows_per = triton.cdiv(triton.cdiv(l, n_split), block_l) * block_l
    n_split = triton.cdiv(l, rows_per)
    out = torch.empty((b, d), dtype=x.dtype, device=x.device)
    part = torch.empty((n_split * n_bd * block_d,), dtype=torch.float32, device=x.device)
    _mean_partial_kernel[(n_bd, n_split)](x, part, out, l, d, rows_per, n_split, 1.0 / l, BLOCK_L=block_l,
                                          BLOCK_D=block_d, DIRECT=n_split == 1, num_warps=8)
    if n_split > 1:
        _mean_finish_kernel[(n_bd,)](part, out, d, n_split, 1.0 / l, BLOCK_S=16, BLOCK_D=block_d, num_warps=4)
    return out
