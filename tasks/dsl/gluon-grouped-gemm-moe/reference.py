import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Tokens already sorted by expert: E groups cut at uniform random points, so group sizes vary widely and a
    group may be empty; each expert's weight normal with std K^-0.5."""
    E, T, N, K = dims["E"], dims["T"], dims["N"], dims["K"]
    dev = generator.device
    x = torch.randn(T, K, generator=generator, device=dev).to(dtype)
    w = (torch.randn(E, N, K, generator=generator, device=dev) * K ** -0.5).to(dtype)
    cuts = torch.randint(0, T + 1, (E - 1,), generator=generator, device=dev).sort().values
    offsets = torch.cat([torch.zeros(1, device=dev, dtype=torch.int64), cuts,
                         torch.full((1,), T, device=dev, dtype=torch.int64)])
    return [x, w, offsets.to(torch.int32)]


def reference(x: torch.Tensor, weight: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    out = torch.empty((x.shape[0], weight.shape[1]), device=x.device, dtype=x.dtype)
    bounds = offsets.tolist()
    for e in range(weight.shape[0]):
        rows = slice(bounds[e], bounds[e + 1])
        out[rows] = (x[rows].float() @ weight[e].float().t()).to(x.dtype)
    return out
