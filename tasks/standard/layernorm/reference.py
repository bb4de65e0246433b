import torch


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    n = x.shape[-1]
    out = torch.nn.functional.layer_norm(x.float(), (n,), weight.float(), bias.float(), eps)
    return out.to(x.dtype)
