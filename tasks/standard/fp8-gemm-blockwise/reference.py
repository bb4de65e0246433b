import torch

FP8_MAX = 448.0  # largest finite torch.float8_e4m3fn


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Activations quantized per 1x128 block and weights per 128x128 block, as DeepSeek-V3 stores them; the
    blocks differ in magnitude, so the scales matter."""
    M, N, K = dims["M"], dims["N"], dims["K"]
    dev = generator.device
    kb, nb = K // 128, N // 128
    a = torch.randn(M, kb, 128, generator=generator, device=dev)
    a = a * (0.25 + torch.rand(M, kb, 1, generator=generator, device=dev))
    a_scale = a.abs().amax(dim=2, keepdim=True).clamp(min=1e-12) / FP8_MAX
    a8 = (a / a_scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn).reshape(M, K)
    b = torch.randn(nb, 128, kb, 128, generator=generator, device=dev) * K ** -0.5
    b = b * (0.25 + torch.rand(nb, 1, kb, 1, generator=generator, device=dev))
    b_scale = b.abs().amax(dim=(1, 3), keepdim=True).clamp(min=1e-12) / FP8_MAX
    b8 = (b / b_scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn).reshape(N, K)
    return [a8, a_scale.reshape(M, kb).contiguous(), b8, b_scale.reshape(nb, kb).contiguous()]


def reference(a: torch.Tensor, a_scale: torch.Tensor, b: torch.Tensor, b_scale: torch.Tensor) -> torch.Tensor:
    av = a.float() * a_scale.repeat_interleave(128, dim=1)
    bv = b.float() * b_scale.repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)
    return torch.matmul(av, bv.t()).to(torch.bfloat16)
