import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Normal values, then one planted maximum per row at a random column, 0.5 to 1.0 above the rest of the
    row, so the maximum is unique (no ties) also after rounding to float16."""
    m, n = dims["M"], dims["N"]
    x = torch.randn(m, n, generator=generator, dtype=torch.float32, device=generator.device)
    column = torch.randint(0, n, (m,), generator=generator, device=generator.device)
    bump = 0.5 + 0.5 * torch.rand(m, generator=generator, dtype=torch.float32, device=generator.device)
    x[torch.arange(m, device=x.device), column] = x.max(dim=1).values + bump
    return [x.to(dtype)]


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.argmax(x, dim=-1)
