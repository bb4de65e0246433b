import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Gradients ~ normal(0, 1e-3) (a norm of about 1e-3 * sqrt(N), several times max_norm = 1)."""
    n = dims["N"]
    grads = 1e-3 * torch.randn(n, generator=generator, device=generator.device)
    return [grads, 1.0]


def reference(grads, max_norm):
    norm = torch.linalg.vector_norm(grads.float())
    coef = torch.clamp(max_norm / (norm + 1e-6), max=1.0)
    return grads * coef, norm.reshape(1)
