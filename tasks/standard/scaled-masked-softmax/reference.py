import math

import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x ~ normal(0, 10) (raw q.k scores at head_dim 128); mask = causal or key padding, each batch
    element's length uniform in [Sk/2, Sk]; scale = 1/sqrt(128)."""
    b, h, sq, sk = dims["B"], dims["H"], dims["Sq"], dims["Sk"]
    dev = generator.device
    x = (torch.randn(b, h, sq, sk, generator=generator, device=dev) * 10.0).to(dtype)
    lengths = torch.randint(max(1, sk // 2), sk + 1, (b,), generator=generator, device=dev)
    i = torch.arange(sq, device=dev)[:, None]
    j = torch.arange(sk, device=dev)[None, :]
    mask = (j > i)[None, :, :] | (j[None, :, :] >= lengths[:, None, None])
    mask = mask[:, None, :, :].contiguous()
    return [x, mask, 1.0 / math.sqrt(128.0)]


def reference(x, mask, scale):
    s = (x.float() * scale).masked_fill(mask, -10000.0)
    return torch.softmax(s, dim=-1).to(x.dtype)
