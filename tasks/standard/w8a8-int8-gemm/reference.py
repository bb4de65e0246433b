import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Normal activations and weights quantized symmetrically to int8: per token and per output channel."""
    M, N, K = dims["M"], dims["N"], dims["K"]
    dev = generator.device
    x = torch.randn(M, K, generator=generator, device=dev) * (0.5 + torch.rand(M, 1, generator=generator, device=dev))
    w = torch.randn(N, K, generator=generator, device=dev) * K ** -0.5
    x_scale = x.abs().amax(dim=1, keepdim=True) / 127.0
    w_scale = w.abs().amax(dim=1, keepdim=True) / 127.0
    xq = (x / x_scale).round().clamp(-127, 127).to(torch.int8)
    wq = (w / w_scale).round().clamp(-127, 127).to(torch.int8)
    return [xq, wq, x_scale.float().contiguous(), w_scale.float().reshape(1, N).contiguous()]


def reference(xq: torch.Tensor, wq: torch.Tensor, x_scale: torch.Tensor, w_scale: torch.Tensor) -> torch.Tensor:
    acc = torch._int_mm(xq, wq.t())
    return (acc.float() * x_scale * w_scale).to(torch.bfloat16)
