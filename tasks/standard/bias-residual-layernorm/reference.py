import torch
import torch.nn.functional as F


def reference(x, bias, residual, weight, ln_bias, eps):
    h = x.float() + bias.float() + residual.float()
    out = F.layer_norm(h, (h.shape[-1],), weight.float(), ln_bias.float(), eps)
    return out.to(x.dtype)
