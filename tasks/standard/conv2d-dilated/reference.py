import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    # channels-last views: cuDNN runs the dilated NHWC convolution in float16
    out = F.conv2d(x.permute(0, 3, 1, 2), weight.permute(0, 3, 1, 2), padding=2, dilation=2)
    return out.permute(0, 2, 3, 1).contiguous()
