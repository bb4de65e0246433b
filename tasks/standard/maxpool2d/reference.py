import torch
import torch.nn.functional as F


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.max_pool2d(x, kernel_size=2, stride=2)
