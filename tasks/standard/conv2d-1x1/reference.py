import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    k, c = weight.shape
    # channels-last views: cuDNN runs the NHWC 1x1 convolution in float16
    out = F.conv2d(x.permute(0, 3, 1, 2), weight.view(k, c, 1, 1))
    return out.permute(0, 2, 3, 1).contiguous()
