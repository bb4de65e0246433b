import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    x = torch.randn(dims["M"], dims["N"], generator=generator, dtype=torch.float32, device=generator.device).to(dtype)
    slope = 0.05 + 0.25 * float(torch.rand((), generator=generator, device=generator.device))
    scale = 0.5 + 1.5 * float(torch.rand((), generator=generator, device=generator.device))
    return [x, slope, scale]


def reference(x: torch.Tensor, slope: float, scale: float) -> torch.Tensor:
    xf = x.float()
    return (torch.where(xf > 0, xf, xf * slope) * scale).to(x.dtype)
