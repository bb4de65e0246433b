import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Costs uniform in [0, 1); marginals positive (uniform in [0.5, 1.5), then normalised to sum 1)."""
    batch, n, m = dims["B"], dims["N"], dims["M"]
    device = generator.device
    cost = torch.rand(batch, n, m, generator=generator, device=device).to(dtype)
    a = torch.rand(batch, n, generator=generator, device=device) + 0.5
    b = torch.rand(batch, m, generator=generator, device=device) + 0.5
    a = (a / a.sum(dim=1, keepdim=True)).to(dtype)
    b = (b / b.sum(dim=1, keepdim=True)).to(dtype)
    return [cost, a, b, 0.1, int(dims["T"])]


def reference(cost: torch.Tensor, a: torch.Tensor, b: torch.Tensor, eps: float, iters: int) -> torch.Tensor:
    # Sinkhorn-Knopp in float32: K = exp(-C / eps), v = 1, then `iters` times u = a / (K v), v = b / (K^T u);
    # the plan is diag(u) K diag(v).
    k = torch.exp(-cost / eps)
    v = torch.ones_like(b)
    u = torch.ones_like(a)
    for _ in range(iters):
        u = a / torch.bmm(k, v.unsqueeze(2)).squeeze(2)
        v = b / torch.bmm(k.transpose(1, 2), u.unsqueeze(2)).squeeze(2)
    return u[:, :, None] * k * v[:, None, :]
