import torch

FP8_MAX = 448.0  # largest finite torch.float8_e4m3fn


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Normal activations and weights quantized row by row into the fp8 range: value = fp8 * scale."""
    M, N, K = dims["M"], dims["N"], dims["K"]
    dev = generator.device
    a = torch.randn(M, K, generator=generator, device=dev) * (0.5 + torch.rand(M, 1, generator=generator, device=dev))
    b = torch.randn(N, K, generator=generator, device=dev) * K ** -0.5
    a_scale = a.abs().amax(dim=1, keepdim=True) / FP8_MAX
    b_scale = b.abs().amax(dim=1, keepdim=True) / FP8_MAX
    a8 = (a / a_scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    b8 = (b / b_scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return [a8, b8, a_scale.float().contiguous(), b_scale.float().reshape(1, N).contiguous()]


def reference(a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor) -> torch.Tensor:
    # float32 on every device: the fp8 values are exact in float32 (and in TF32), so the products are exact and
    # the sums are float32 sums; the scales are applied in float32 and the result rounded to bfloat16 once.
    return ((a.float() @ b.float().t()) * a_scale * b_scale).to(torch.bfloat16)
