import torch

GROUP = 128


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """A GPTQ-style asymmetric 4-bit weight: random nibbles packed eight per int32 along K, per-group scales
    sized so the dequantized weight has std ~ K^-0.5, zero points drawn in [6, 10]."""
    M, K, N = dims["M"], dims["K"], dims["N"]
    dev = generator.device
    x = torch.randn(M, K, generator=generator, device=dev).to(dtype)
    q = torch.randint(0, 16, (K // 8, 8, N), generator=generator, device=dev, dtype=torch.int32)
    shifts = (4 * torch.arange(8, device=dev, dtype=torch.int32)).reshape(1, 8, 1)
    qweight = (q << shifts).sum(dim=1, dtype=torch.int32)  # disjoint bits: the sum is the bitwise or (wraps)
    scales = (torch.rand(K // GROUP, N, generator=generator, device=dev) * 0.5 + 0.75) * (0.22 * K ** -0.5)
    zeros = torch.randint(6, 11, (K // GROUP, N), generator=generator, device=dev).float()
    return [x, qweight, scales.to(dtype), zeros.to(dtype)]


def dequantize(qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor) -> torch.Tensor:
    shifts = (4 * torch.arange(8, device=qweight.device, dtype=torch.int32)).reshape(1, 8, 1)
    q = ((qweight[:, None, :] >> shifts) & 0xF).reshape(-1, qweight.shape[1])  # (K, N)
    s = scales.float().repeat_interleave(GROUP, dim=0)
    z = zeros.float().repeat_interleave(GROUP, dim=0)
    return ((q.float() - z) * s).to(scales.dtype)


def reference(x: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor) -> torch.Tensor:
    return x @ dequantize(qweight, scales, zeros)
