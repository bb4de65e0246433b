import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x normal(0, 1); index: an independent random permutation of 0..N-1 in every row (argsort of uniforms)."""
    m, n = dims["M"], dims["N"]
    dev = generator.device
    x = torch.randn(m, n, generator=generator, device=dev, dtype=torch.float32).to(dtype)
    index = torch.rand(m, n, generator=generator, device=dev).argsort(dim=1).to(torch.int64)
    return [x, index.contiguous()]


def reference(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return torch.gather(x, 1, index)
