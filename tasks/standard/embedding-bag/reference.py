import torch
import torch.nn.functional as F


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """indices uniform in [0, V); offsets: 0 followed by B - 1 sorted uniform cut points in [0, T] (ragged bags,
    some empty); weight normal(0, 1)."""
    v, d, b, t = dims["V"], dims["D"], dims["B"], dims["T"]
    dev = generator.device
    indices = torch.randint(0, v, (t,), generator=generator, device=dev, dtype=torch.int64)
    cuts = torch.randint(0, t + 1, (b - 1,), generator=generator, device=dev, dtype=torch.int64).sort().values
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64, device=dev), cuts]).contiguous()
    weight = torch.randn(v, d, generator=generator, device=dev, dtype=torch.float32).to(dtype)
    return [indices, offsets, weight]


def reference(indices: torch.Tensor, offsets: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return F.embedding_bag(indices, weight, offsets, mode="sum")
