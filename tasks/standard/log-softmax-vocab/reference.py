import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x ~ normal(0, 2) plus a per-row offset uniform in [-100, 100], rounded to bfloat16."""
    m, v = dims["M"], dims["V"]
    dev = generator.device
    offset = torch.rand(m, 1, generator=generator, device=dev) * 200.0 - 100.0
    x = (torch.randn(m, v, generator=generator, device=dev) * 2.0 + offset).to(dtype)
    return [x]


def reference(x):
    return torch.log_softmax(x.float(), dim=1)
