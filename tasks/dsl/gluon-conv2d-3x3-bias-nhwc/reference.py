import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    # In float32 on the channels-last views, the bias added in float32 and the sum rounded to bfloat16 once.
    # Not in bfloat16: on the GPU, torch adds the bias after cuDNN's convolution (output.add_), so the
    # convolution is rounded to bfloat16 before the bias and again after it, off by up to half a bfloat16 step
    # of |conv| (0.0078 at |conv| near 2) where the bias cancels it. The bfloat16 values are exact in float32
    # (and in TF32, should cuDNN use it), so every product is exact and the sum is accumulated in float32.
    out = F.conv2d(x.float().permute(0, 3, 1, 2), weight.float().permute(0, 3, 1, 2), bias.float(), padding=1)
    return out.permute(0, 2, 3, 1).to(torch.bfloat16).contiguous()
