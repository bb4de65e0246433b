import math

import torch
import torch.nn.functional as F


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x normal(0, 1); grid = affine_grid of a random rotation (|angle| <= 15 degrees), scale in [0.9, 1.1]
    and shift in [-0.05, 0.05]^2 per batch (align_corners=False)."""
    n, c, h, w, hg, wg = (dims[k] for k in ("N", "C", "H", "W", "HG", "WG"))
    dev = generator.device
    x = torch.randn(n, c, h, w, generator=generator, device=dev, dtype=torch.float32).to(dtype)
    u = torch.rand(n, 4, generator=generator, device=dev, dtype=torch.float32)
    ang = (u[:, 0] * 2 - 1) * (15 * math.pi / 180)
    s = 0.9 + 0.2 * u[:, 1]
    theta = torch.stack([
        torch.stack([s * torch.cos(ang), -s * torch.sin(ang), (u[:, 2] * 2 - 1) * 0.05], dim=1),
        torch.stack([s * torch.sin(ang), s * torch.cos(ang), (u[:, 3] * 2 - 1) * 0.05], dim=1),
    ], dim=1)
    grid = F.affine_grid(theta, [n, c, hg, wg], align_corners=False).to(dtype).contiguous()
    return [x, grid]


def reference(x: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
