import torch

EPS = 1.0e-5


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x ~ normal(1, 2), dy ~ normal(0, 1), weight ~ uniform(0.5, 1.5); mean and rstd are the true
    float32 statistics of the rounded x (biased variance, eps 1e-5)."""
    m, n = dims["M"], dims["N"]
    dev = generator.device
    x = (torch.randn(m, n, generator=generator, device=dev) * 2.0 + 1.0).to(dtype)
    weight = (torch.rand(n, generator=generator, device=dev) + 0.5).to(dtype)
    dy = torch.randn(m, n, generator=generator, device=dev).to(dtype)
    xf = x.float()
    mean = xf.mean(dim=1)
    var = (xf - mean[:, None]).pow(2).mean(dim=1)
    rstd = torch.rsqrt(var + EPS)
    return [x, weight, mean, rstd, dy]


def reference(x, weight, mean, rstd, dy):
    xf, dyf, w = x.float(), dy.float(), weight.float()
    xhat = (xf - mean[:, None]) * rstd[:, None]
    g = dyf * w
    c1 = (xhat * g).mean(dim=1, keepdim=True)
    c2 = g.mean(dim=1, keepdim=True)
    dx = ((g - xhat * c1 - c2) * rstd[:, None]).to(x.dtype)
    dweight = (dyf * xhat).sum(dim=0)
    dbias = dyf.sum(dim=0)
    return dx, dweight, dbias
