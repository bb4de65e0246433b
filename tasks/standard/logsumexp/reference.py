import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    m, n = dims["M"], dims["N"]
    offset = torch.rand(m, 1, generator=generator, dtype=torch.float32, device=generator.device) * 400.0 - 200.0
    x = torch.randn(m, n, generator=generator, dtype=torch.float32, device=generator.device) * 8.0 + offset
    return [x.to(dtype)]


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.logsumexp(x.float(), dim=-1).to(x.dtype)
