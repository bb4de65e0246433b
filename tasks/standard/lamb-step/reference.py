import torch


def reference(param, grad, m, v, lr, beta1, beta2, eps, weight_decay, step):
    m_new = beta1 * m + (1 - beta1) * grad
    v_new = beta2 * v + (1 - beta2) * grad * grad
    m_hat = m_new / (1 - beta1 ** step)
    v_hat = v_new / (1 - beta2 ** step)
    update = m_hat / (v_hat.sqrt() + eps) + weight_decay * param
    w_norm = torch.linalg.vector_norm(param)
    u_norm = torch.linalg.vector_norm(update)
    trust = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
    p_new = param - lr * trust * update
    return p_new, m_new, v_new
