import torch

FP8_MAX = 448.0  # largest finite torch.float8_e4m3fn


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Normal matrices quantized per tensor into the fp8 range: value = fp8 * scale."""
    M, N, K = dims["M"], dims["N"], dims["K"]
    a = torch.randn(M, K, generator=generator)
    b = torch.randn(N, K, generator=generator) * K ** -0.5
    a_scale = (a.abs().amax() / FP8_MAX).reshape(1)
    b_scale = (b.abs().amax() / FP8_MAX).reshape(1)
    a8 = (a / a_scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    b8 = (b / b_scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return [a8, b8, a_scale.float(), b_scale.float()]


def reference(a: torch.Tensor, b: torch.Tensor, a_scale: torch.Tensor, b_scale: torch.Tensor) -> torch.Tensor:
    return ((a.float() @ b.float().T) * a_scale * b_scale).to(torch.bfloat16)
