import torch
import torch.nn.functional as F


def reference(indices: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return F.embedding(indices, weight)
