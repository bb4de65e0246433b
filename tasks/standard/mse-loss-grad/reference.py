import torch


def reference(pred: torch.Tensor, target: torch.Tensor):
    d = pred - target
    loss = (d * d).mean()
    grad = 2 * d / pred.numel()
    return loss, grad
