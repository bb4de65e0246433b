import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """normal(0, 1) values rounded to bfloat16 and stored as float32, so equal values occur in the top k
    and the tie rule (lower column first) matters."""
    m, n = dims["M"], dims["N"]
    x = torch.randn(m, n, generator=generator, device=generator.device).to(torch.bfloat16).to(dtype)
    return [x, int(dims["K"])]


def reference(x: torch.Tensor, k: int):
    values, indices = torch.sort(x, dim=1, descending=True, stable=True)
    return values[:, :k].contiguous(), indices[:, :k].contiguous()
