import torch
import torch.nn.functional as F


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Two independent log_softmax outputs of normal(0, 2) logits, so every row is a distribution."""
    b, v = dims["B"], dims["V"]
    dev = generator.device
    log_q = torch.log_softmax(2.0 * torch.randn(b, v, generator=generator, device=dev), dim=1).to(dtype)
    log_p = torch.log_softmax(2.0 * torch.randn(b, v, generator=generator, device=dev), dim=1).to(dtype)
    return [log_q, log_p]


def reference(log_q: torch.Tensor, log_p: torch.Tensor) -> torch.Tensor:
    return F.kl_div(log_q, log_p, reduction="batchmean", log_target=True)
