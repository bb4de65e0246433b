import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    # channels-last views: cuDNN runs the strided 1-D convolution in float16
    out = F.conv1d(x.permute(0, 2, 1), weight.permute(0, 2, 1), stride=2, padding=1)
    return out.permute(0, 2, 1).contiguous()
