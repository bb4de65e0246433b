import torch


def reference(x: torch.Tensor, running_mean: torch.Tensor, running_var: torch.Tensor, weight: torch.Tensor,
              bias: torch.Tensor, eps: float) -> torch.Tensor:
    out = torch.nn.functional.batch_norm(x.float(), running_mean.float(), running_var.float(), weight.float(),
                                         bias.float(), training=False, eps=eps)
    return out.to(x.dtype)
