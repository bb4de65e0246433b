import math

import torch


def reference(param, grad, m, v, lr, beta1, beta2, eps, weight_decay, step):
    p = param * (1 - lr * weight_decay)
    m_new = beta1 * m + (1 - beta1) * grad
    v_new = beta2 * v + (1 - beta2) * grad * grad
    bias1 = 1 - beta1 ** step
    bias2 = 1 - beta2 ** step
    p_new = p - (lr / bias1) * m_new / (v_new.sqrt() / math.sqrt(bias2) + eps)
    return p_new, m_new, v_new
