import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x[..., c] ~ normal(mu_c, sd_c) with mu_c ~ uniform(-1, 1), sd_c ~ uniform(0.5, 2); weight ~
    uniform(0.5, 1.5), bias ~ normal(0, 1); eps 1e-5."""
    n, h, w, c = dims["N"], dims["H"], dims["W"], dims["C"]
    dev = generator.device
    mu = torch.rand(c, generator=generator, device=dev) * 2.0 - 1.0
    sd = torch.rand(c, generator=generator, device=dev) * 1.5 + 0.5
    x = (torch.randn(n, h, w, c, generator=generator, device=dev) * sd + mu).to(dtype)
    weight = (torch.rand(c, generator=generator, device=dev) + 0.5).to(dtype)
    bias = torch.randn(c, generator=generator, device=dev).to(dtype)
    return [x, weight, bias, 1.0e-5]


def reference(x, weight, bias, eps):
    c = x.shape[-1]
    xf = x.float().reshape(-1, c)
    mean = xf.mean(dim=0)
    var = (xf - mean).pow(2).mean(dim=0)
    invstd = torch.rsqrt(var + eps)
    out = (xf - mean) * invstd * weight.float() + bias.float()
    return out.reshape(x.shape).to(x.dtype), mean, invstd
