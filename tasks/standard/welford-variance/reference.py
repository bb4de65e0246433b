import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Row i: mean_i + std_i * normal(0, 1), with |mean_i| uniform in [1e3, 1e4] (random sign) and std_i
    uniform in [0.5, 2]."""
    m, n = dims["M"], dims["N"]
    dev = generator.device
    sign = torch.where(torch.rand(m, 1, generator=generator, device=dev) < 0.5, -1.0, 1.0)
    mean = sign * (1e3 + 9e3 * torch.rand(m, 1, generator=generator, device=dev))
    std = 0.5 + 1.5 * torch.rand(m, 1, generator=generator, device=dev)
    x = mean + std * torch.randn(m, n, generator=generator, device=dev)
    return [x.to(dtype)]


def reference(x: torch.Tensor):
    var, mean = torch.var_mean(x.double(), dim=1, correction=1)
    return mean.to(x.dtype), var.to(x.dtype)
