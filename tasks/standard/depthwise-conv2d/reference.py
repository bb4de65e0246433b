import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    n, c, h, w = x.shape
    xp = F.pad(x, (1, 1, 1, 1))  # zero-pad H and W by 1 on each side
    out = torch.zeros_like(x)
    for r in range(3):
        for s in range(3):
            out += xp[:, :, r:r + h, s:s + w] * weight[:, r, s].view(1, c, 1, 1)
    return out
