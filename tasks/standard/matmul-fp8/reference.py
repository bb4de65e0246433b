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
    M, K = a.shape
    N = b.shape[0]
    if K % 16 == 0 and N % 16 == 0:
        # cuBLAS's fp8 GEMM (fp32 accumulation, scales applied to the fp32 result, one rounding to bf16); it
        # needs 16-byte aligned rows, which these sizes give.
        return torch._scaled_mm(a, b.t(), scale_a=a_scale.reshape(()), scale_b=b_scale.reshape(()),
                                out_dtype=torch.bfloat16)
    # Sizes cuBLAS's fp8 GEMM refuses: the same math, exact fp8 values widened to float32.
    return ((a.float() @ b.float().T) * a_scale * b_scale).to(torch.bfloat16)
