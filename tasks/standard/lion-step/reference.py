import torch

LR, BETA1, BETA2, WD = 1.0e-4, 0.9, 0.99, 0.1


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """param, grad ~ normal(0, 1), m ~ normal(0, 0.1). Where beta1 * m + (1 - beta1) * grad is within 1e-4 of
    its terms' size of zero, grad is moved by 1e-3 away from the cancellation, so the sign of the update does
    not depend on how the sum is rounded."""
    n = dims["N"]
    dev = generator.device
    param = torch.randn(n, generator=generator, device=dev)
    grad = torch.randn(n, generator=generator, device=dev)
    m = 0.1 * torch.randn(n, generator=generator, device=dev)
    c = BETA1 * m.double() + (1 - BETA1) * grad.double()
    size = BETA1 * m.double().abs() + (1 - BETA1) * grad.double().abs()
    near = c.abs() < 1e-4 * size + 1e-30
    grad = torch.where(near, grad + torch.where(c >= 0, 1e-3, -1e-3).float(), grad)
    return [param, grad, m, LR, BETA1, BETA2, WD]


def reference(param, grad, m, lr, beta1, beta2, weight_decay):
    update = torch.sign(beta1 * m + (1 - beta1) * grad)
    p_new = param * (1 - lr * weight_decay) - lr * update
    m_new = beta2 * m + (1 - beta2) * grad
    return p_new, m_new
