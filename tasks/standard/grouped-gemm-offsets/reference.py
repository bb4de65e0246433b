import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Rows split into E non-empty groups of random sizes (uniform cut points), the weights of each group
    normal with std K^-0.5."""
    E, T, N, K = dims["E"], dims["T"], dims["N"], dims["K"]
    dev = generator.device
    x = torch.randn(T, K, generator=generator, device=dev).to(dtype)
    w = (torch.randn(E, N, K, generator=generator, device=dev) * K ** -0.5).to(dtype)
    cuts = torch.randint(0, T - E + 1, (E - 1,), generator=generator, device=dev).sort().values
    ends = torch.cat([cuts, torch.tensor([T - E], device=dev)])
    offsets = torch.cat([torch.zeros(1, device=dev, dtype=torch.int64),
                         ends + torch.arange(1, E + 1, device=dev)])  # each group gets one extra row
    return [x, w, offsets.to(torch.int32)]


def reference(x: torch.Tensor, weight: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    out = torch.empty((x.shape[0], weight.shape[1]), device=x.device, dtype=x.dtype)
    bounds = offsets.tolist()
    for e in range(weight.shape[0]):
        out[bounds[e]:bounds[e + 1]] = x[bounds[e]:bounds[e + 1]] @ weight[e].t()
    return out
