import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Two independent log_softmax outputs of normal(0, 2) logits, so every row is a distribution;
    beta = 0.3."""
    b, v = dims["B"], dims["V"]
    dev = generator.device
    log_q = torch.log_softmax(2.0 * torch.randn(b, v, generator=generator, device=dev), dim=1).to(dtype)
    log_p = torch.log_softmax(2.0 * torch.randn(b, v, generator=generator, device=dev), dim=1).to(dtype)
    return [log_q, log_p, 0.3]


def reference(log_q: torch.Tensor, log_p: torch.Tensor, beta: float) -> torch.Tensor:
    p = log_p.exp()
    q = log_q.exp()
    log_m = torch.log(beta * p + (1 - beta) * q)
    return beta * (p * (log_p - log_m)).sum(dim=1) + (1 - beta) * (q * (log_q - log_m)).sum(dim=1)
