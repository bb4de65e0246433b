import torch
import torch.nn.functional as F


def reference(x, weight, bias, eps):
    out = F.instance_norm(x.float(), weight=weight.float(), bias=bias.float(), eps=eps)
    return out.to(x.dtype)
