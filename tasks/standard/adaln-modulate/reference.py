import torch
import torch.nn.functional as F


def reference(x, shift, scale, eps):
    d = x.shape[-1]
    xn = F.layer_norm(x.float(), (d,), eps=eps)
    out = xn * (1.0 + scale.float()[:, None, :]) + shift.float()[:, None, :]
    return out.to(x.dtype)
