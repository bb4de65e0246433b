import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x ~ normal(0, 1); mask True with probability 0.6, independently per element."""
    m, n = dims["M"], dims["N"]
    dev = generator.device
    x = torch.randn(m, n, generator=generator, device=dev).to(dtype)
    mask = torch.rand(m, n, generator=generator, device=dev) < 0.6
    return [x, mask]


def reference(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(torch.where(mask, x, torch.zeros_like(x)), dim=1)
