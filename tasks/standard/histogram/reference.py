import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x = floor(B * u^2) for u uniform in [0, 1): every bin can occur, low bins far more often."""
    n, b = dims["N"], dims["B"]
    u = torch.rand(n, generator=generator, device=generator.device)
    x = torch.clamp((b * u * u).floor(), max=b - 1).to(torch.int32)
    return [x, int(b)]


def reference(x: torch.Tensor, num_bins: int) -> torch.Tensor:
    return torch.bincount(x, minlength=num_bins).to(torch.int32)
