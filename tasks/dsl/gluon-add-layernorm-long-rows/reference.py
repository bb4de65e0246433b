import torch
import torch.nn.functional as F


def reference(x, residual, weight, bias, eps):
    h = x.float() + residual.float()
    out = F.layer_norm(h, (h.shape[-1],), weight.float(), bias.float(), eps)
    return out.to(x.dtype)
