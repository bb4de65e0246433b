import torch
import triton
import triton.language as tl


# One streaming pass: 4 + 1 + 4 bytes read and 4 written per element, the per-row scalars loaded once per
# program. Programs cover BLOCK columns of one row; V is a compile-time constant so row starts are known
# aligned (16-byte accesses).
@triton.jit
def _penalty_kernel(x_ptr, pm_ptr, cnt_ptr, rep_ptr, freq_ptr, pres_ptr, out_ptr, V: tl.constexpr,
                    BLOCK: tl.constexpr):
    b = tl.program_id(1)
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < V
    offs = b.to(tl.int64) * V + cols
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    pm = tl.load(pm_ptr + offs, mask=mask, other=0).to(tl.int1)
    c = tl.load(cnt_ptr + offs, mask=mask, other=0)
    rep = tl.load(rep_ptr + b)
    freq = tl.load(freq_ptr + b)
    pres = tl.load(pres_ptr + b)
    seen_out = c > 0
    r = tl.where(pm | seen_out, rep, 1.0)
    y = tl.where(x > 0, x / r, x * r)
    y = y - freq * c.to(tl.float32)
    y = y - pres * seen_out.to(tl.float32)
    tl.store(out_ptr + offs, y, mask=mask)


def apply_penalties(logits, prompt_mask, output_counts, repetition_penalty, frequency_penalty, presence_penalty):
    b, v = logits.shape
    out = torch.empty_like(logits)
    block = 4096
    _penalty_kernel[(triton.cdiv(v, block), b)](logits, prompt_mask.view(torch.uint8), output_counts,
                                                repetition_penalty, frequency_penalty, presence_penalty, out,
                                                V=v, BLOCK=block, num_warps=8)
    return out
