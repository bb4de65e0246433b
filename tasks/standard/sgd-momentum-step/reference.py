import torch


def reference(param, grad, momentum_buffer, lr: float, momentum: float, weight_decay: float):
    g = grad + weight_decay * param
    new_buffer = momentum * momentum_buffer + g
    new_param = param - lr * new_buffer
    return new_param, new_buffer
