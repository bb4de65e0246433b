import torch

EPS = 1.0e-6


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x ~ normal(0, 1.5), dy ~ normal(0, 1), weight ~ uniform(0.5, 1.5); rstd is the true float32
    statistic of the rounded x (eps 1e-6)."""
    m, n = dims["M"], dims["N"]
    dev = generator.device
    x = (torch.randn(m, n, generator=generator, device=dev) * 1.5).to(dtype)
    weight = (torch.rand(n, generator=generator, device=dev) + 0.5).to(dtype)
    dy = torch.randn(m, n, generator=generator, device=dev).to(dtype)
    rstd = torch.rsqrt(x.float().pow(2).mean(dim=1) + EPS)
    return [x, weight, rstd, dy]


def reference(x, weight, rstd, dy):
    xf, dyf, w = x.float(), dy.float(), weight.float()
    xhat = xf * rstd[:, None]
    g = dyf * w
    c = (xhat * g).mean(dim=1, keepdim=True)
    dx = ((g - xhat * c) * rstd[:, None]).to(x.dtype)
    dweight = (dyf * xhat).sum(dim=0)
    return dx, dweight
