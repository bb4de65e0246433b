import torch


def reference(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float):
    new_residual = (x.float() + residual.float()).to(x.dtype)
    r = new_residual.float()
    inv_rms = torch.rsqrt(r.pow(2).mean(dim=-1, keepdim=True) + eps)
    out = (r * inv_rms * weight.float()).to(x.dtype)
    return out, new_residual
