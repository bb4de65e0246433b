import torch


def reference(x: torch.Tensor, num_groups: int, weight: torch.Tensor, bias: torch.Tensor,
              eps: float) -> torch.Tensor:
    out = torch.nn.functional.group_norm(x.float(), num_groups, weight.float(), bias.float(), eps)
    return out.to(x.dtype)
