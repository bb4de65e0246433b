import torch

EPS = 1.0e-6


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """r = x + residual with x, residual ~ normal(0, 1), rounded to bfloat16; weight ~ uniform(0.5, 1.5);
    dy, dres ~ normal(0, 1); rstd the true float32 statistic of r (eps 1e-6)."""
    m, n = dims["M"], dims["N"]
    dev = generator.device
    x = torch.randn(m, n, generator=generator, device=dev).to(dtype)
    res = torch.randn(m, n, generator=generator, device=dev).to(dtype)
    r = (x.float() + res.float()).to(dtype)
    del x, res
    weight = (torch.rand(n, generator=generator, device=dev) + 0.5).to(dtype)
    dy = torch.randn(m, n, generator=generator, device=dev).to(dtype)
    dres = torch.randn(m, n, generator=generator, device=dev).to(dtype)
    rstd = torch.rsqrt(r.float().pow(2).mean(dim=1) + EPS)
    return [r, weight, rstd, dy, dres]


def reference(r, weight, rstd, dy, dres):
    rf, dyf, w = r.float(), dy.float(), weight.float()
    rhat = rf * rstd[:, None]
    g = dyf * w
    c = (rhat * g).mean(dim=1, keepdim=True)
    dx = ((g - rhat * c) * rstd[:, None] + dres.float()).to(r.dtype)
    dweight = (dyf * rhat).sum(dim=0)
    return dx, dweight
