import torch

LR, BETA2, EPS1, CLIP = 1.0e-2, 0.999, 1.0e-30, 1.0


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """param, grad ~ normal(0, 1); the factored second-moment states uniform in [0.5, 1.5]."""
    r, c = dims["R"], dims["C"]
    dev = generator.device
    param = torch.randn(r, c, generator=generator, device=dev)
    grad = torch.randn(r, c, generator=generator, device=dev)
    row = 0.5 + torch.rand(r, generator=generator, device=dev)
    col = 0.5 + torch.rand(c, generator=generator, device=dev)
    return [param, grad, row, col, LR, BETA2, EPS1, CLIP]


def reference(param, grad, row, col, lr, beta2, eps1, clip_threshold):
    sq = grad * grad + eps1
    row_new = beta2 * row + (1 - beta2) * sq.mean(dim=1)
    col_new = beta2 * col + (1 - beta2) * sq.mean(dim=0)
    r_factor = (row_new / row_new.mean()).rsqrt()
    c_factor = col_new.rsqrt()
    u = grad * r_factor[:, None] * c_factor[None, :]
    rms = u.pow(2).mean().sqrt()
    u = u / torch.clamp(rms / clip_threshold, min=1.0)
    return param - lr * u, row_new, col_new
