import torch
import triton
import triton.language as tl

_LOG2E = tl.constexpr(1.4426950408889634)


# Pass 1: program (n, k) reads spatial rows k*CHUNK .. of sample n, all channels, in (BLOCK_S, BLOCK_C)
# tiles (each spatial row's C channels are contiguous). Per channel it keeps sums of x - x0 and its square,
# shifted by the chunk's first row so nothing cancels, and writes the chunk's per-channel mean and M2
# (sum of squared deviations) once.
@triton.jit
def _gn_partial(x_ptr, pm_ptr, pq_ptr, HW, C, K, chunk, BLOCK_S: tl.constexpr, BLOCK_C: tl.constexpr):
    n = tl.program_id(0)
    k = tl.program_id(1)
    cols = tl.arange(0, BLOCK_C)
    cmask = cols < C
    s_begin = k * chunk
    s_end = tl.minimum(s_begin + chunk, HW)
    base = (n + tl.zeros((), tl.int64)) * HW * C
    x0 = tl.load(x_ptr + base + s_begin * C + cols, mask=cmask, other=0.0).to(tl.float32)
    s1 = tl.zeros((BLOCK_S, BLOCK_C), tl.float32)
    s2 = tl.zeros((BLOCK_S, BLOCK_C), tl.float32)
    for s0 in range(s_begin, s_end, BLOCK_S):
        rows = s0 + tl.arange(0, BLOCK_S)
        mask = (rows < s_end)[:, None] & cmask[None, :]
        x = tl.load(x_ptr + base + rows.to(tl.int64)[:, None] * C + cols[None, :], mask=mask,
                    other=0.0).to(tl.float32)
        d = tl.where(mask, x - x0[None, :], 0.0)
        s1 += d
        s2 += d * d
    cnt = (s_end - s_begin).to(tl.float32)
    t1 = tl.sum(s1, axis=0)
    t2 = tl.sum(s2, axis=0)
    p = (n * K + k) * C + cols
    tl.store(pm_ptr + p, x0 + t1 / cnt, mask=cmask)
    tl.store(pq_ptr + p, tl.maximum(t2 - t1 * t1 / cnt, 0.0), mask=cmask)


# Pass 2: program (n, g) merges the K chunks x C/G channels of its group (Chan's parallel formula, in a
# fixed order): mean = weighted mean of the parts, M2 = sum M2_i + sum cnt_i (mean_i - mean)^2.
@triton.jit
def _gn_finalize(pm_ptr, pq_ptr, mean_ptr, rstd_ptr, HW, C, K, G, chunk, eps, BLOCK_K: tl.constexpr,
                 BLOCK_CG: tl.constexpr):
    n = tl.program_id(0)
    g = tl.program_id(1)
    cpg = C // G
    ks = tl.arange(0, BLOCK_K)
    cs = tl.arange(0, BLOCK_CG)
    kmask = ks < K
    mask = kmask[:, None] & (cs < cpg)[None, :]
    p = (n * K + ks)[:, None] * C + g * cpg + cs[None, :]
    cnt = tl.where(kmask, tl.minimum(chunk, HW - ks * chunk), 0).to(tl.float32)
    pm = tl.load(pm_ptr + p, mask=mask, other=0.0)
    pq = tl.load(pq_ptr + p, mask=mask, other=0.0)
    total = HW.to(tl.float32) * cpg
    mean = tl.sum(tl.sum(pm * cnt[:, None], axis=1), axis=0) / total
    dev = tl.where(mask, pm - mean, 0.0)
    m2 = tl.sum(tl.sum(pq + cnt[:, None] * dev * dev, axis=1), axis=0)
    tl.store(mean_ptr + n * G + g, mean)
    tl.store(rstd_ptr + n * G + g, 1.0 / tl.sqrt(m2 / total + eps))


# Pass 3: normalize, affine, SiLU over (BLOCK_S, BLOCK_C) tiles, walking the tiles in reverse so the tail
# of x that pass 1 read last (still in L2) is read first.
@triton.jit
def _gn_apply(x_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, out_ptr, HW, C, G, n_tiles_s,
              BLOCK_S: tl.constexpr, BLOCK_C: tl.constexpr):
    t = tl.num_programs(0) - 1 - tl.program_id(0)
    n = t // n_tiles_s
    ts = t % n_tiles_s
    rows = ts * BLOCK_S + tl.arange(0, BLOCK_S)
    cols = tl.arange(0, BLOCK_C)
    cmask = cols < C
    mask = (rows < HW)[:, None] & cmask[None, :]
    grp = cols // (C // G)
    mean = tl.load(mean_ptr + n * G + grp, mask=cmask, other=0.0)
    rstd = tl.load(rstd_ptr + n * G + grp, mask=cmask, other=0.0)
    a = rstd * tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=cmask, other=0.0).to(tl.float32) - mean * a
    offs = (n + tl.zeros((), tl.int64)) * HW * C + rows.to(tl.int64)[:, None] * C + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    y = x * a[None, :] + b[None, :]
    out = y / (1.0 + tl.exp2(-y * _LOG2E))
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _num_sms(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4


def groupnorm_silu_nhwc(x, num_groups, weight, bias, eps):
    n, h, w, c = x.shape
    hw = h * w
    out = torch.empty_like(x)
    block_c = triton.next_power_of_2(c)
    block_s = max(1, 8192 // block_c)
    k_target = max(1, (4 * _num_sms(x.device)) // n)
    chunk = triton.cdiv(triton.cdiv(hw, k_target), block_s) * block_s
    k = triton.cdiv(hw, chunk)
    pm = torch.empty((n, k, c), dtype=torch.float32, device=x.device)
    pq = torch.empty((n, k, c), dtype=torch.float32, device=x.device)
    mean = torch.empty((n, num_groups), dtype=torch.float32, device=x.device)
    rstd = torch.empty((n, num_groups), dtype=torch.float32, device=x.device)
    _gn_partial[(n, k)](x, pm, pq, hw, c, k, chunk, BLOCK_S=block_s, BLOCK_C=block_c, num_warps=8)
    _gn_finalize[(n, num_groups)](pm, pq, mean, rstd, hw, c, k, num_groups, chunk, float(eps),
                                  BLOCK_K=triton.next_power_of_2(k), BLOCK_CG=triton.next_power_of_2(c // num_groups),
                                  num_warps=4)
    block_s3 = max(1, 4096 // block_c)  # 4096-element tiles: 16 per thread at 8 warps
    n_tiles_s = triton.cdiv(hw, block_s3)
    _gn_apply[(n * n_tiles_s,)](x, weight, bias, mean, rstd, out, hw, c, num_groups, n_tiles_s,
                                BLOCK_S=block_s3, BLOCK_C=block_c, num_warps=8)
    return out
