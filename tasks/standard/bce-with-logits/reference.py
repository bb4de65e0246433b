import torch
import torch.nn.functional as F


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """logits ~ normal(0, 2); labels 0/1 with about 30% ones; pos_weight uniform in [0.5, 3]."""
    m, c = dims["M"], dims["C"]
    dev = generator.device
    logits = (2.0 * torch.randn(m, c, generator=generator, device=dev)).to(dtype)
    labels = (torch.rand(m, c, generator=generator, device=dev) < 0.3).to(dtype)
    pos_weight = (0.5 + 2.5 * torch.rand(c, generator=generator, device=dev)).to(dtype)
    return [logits, labels, pos_weight]


def reference(logits: torch.Tensor, labels: torch.Tensor, pos_weight: torch.Tensor) -> torch.Tensor:
    return F.binary_cross_entropy_with_logits(logits, labels, pos_weight=pos_weight)
