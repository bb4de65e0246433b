import torch


def reference(x: torch.Tensor, threshold: float):
    kept = x[x > threshold]
    out = torch.zeros_like(x)
    out[: kept.numel()] = kept
    count = torch.tensor(kept.numel(), dtype=torch.int64, device=x.device)
    return out, count
