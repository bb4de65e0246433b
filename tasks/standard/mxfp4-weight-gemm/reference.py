import math

import torch

# float4 e2m1 (OCP MX): code bit 3 is the sign, bits 2..1 the exponent (bias 1), bit 0 the mantissa.
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Random fp4 codes packed two per byte and e8m0 block scales around the value that gives W std ~ K^-0.5."""
    M, N, K = dims["M"], dims["N"], dims["K"]
    dev = generator.device
    x = torch.randn(M, K, generator=generator, device=dev).to(dtype)
    wq = torch.randint(0, 256, (N, K // 2), generator=generator, device=dev, dtype=torch.int32).to(torch.uint8)
    center = 127 + round(math.log2(K ** -0.5 / 3.0))
    scales = torch.randint(center - 2, center + 3, (N, K // 32), generator=generator, device=dev,
                           dtype=torch.int32).to(torch.uint8)
    return [x, wq, scales]


def dequantize(wq: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    n = wq.shape[0]
    codes = torch.stack((wq & 0xF, wq >> 4), dim=-1).reshape(n, -1).long()  # low nibble first
    lut = torch.tensor(E2M1, device=wq.device)
    s = torch.exp2(scales.float() - 127.0).repeat_interleave(32, dim=1)
    return lut[codes] * s  # exact in bfloat16


def reference(x: torch.Tensor, wq: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    return x @ dequantize(wq, scales).to(x.dtype).t()
