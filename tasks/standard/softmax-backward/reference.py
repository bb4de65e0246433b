import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """y = softmax(logits) with logits ~ normal(0, 2), rounded to bfloat16; dy ~ normal(0, 1)."""
    m, v = dims["M"], dims["V"]
    dev = generator.device
    logits = torch.randn(m, v, generator=generator, device=dev) * 2.0
    y = torch.softmax(logits, dim=1).to(dtype)
    del logits
    dy = torch.randn(m, v, generator=generator, device=dev).to(dtype)
    return [y, dy]


def reference(y, dy):
    yf, dyf = y.float(), dy.float()
    s = (yf * dyf).sum(dim=1, keepdim=True)
    return (yf * (dyf - s)).to(y.dtype)
