import torch
import triton
import triton.language as tl


# The whole update in one pass: three loads and two stores per element, nothing materialised between.
# Full blocks take an unmasked path: a mask against an element count that is not a multiple of 16 (the
# held-out shapes) keeps Triton from proving 16-byte alignment, and every access would be a 4-byte one.
@triton.jit
def _sgd_update(param_ptr, grad_ptr, buf_ptr, new_param_ptr, new_buf_ptr, offsets, mask, lr, momentum,
                weight_decay):
    p = tl.load(param_ptr + offsets, mask=mask)
    g = tl.load(grad_ptr + offsets, mask=mask) + weight_decay * p
    b = momentum * tl.load(buf_ptr + offsets, mask=mask) + g
    tl.store(new_buf_ptr + offsets, b, mask=mask)
    tl.store(new_param_ptr + offsets, p - lr * b, mask=mask)


@triton.jit
def _sgd_kernel(param_ptr, grad_ptr, buf_ptr, new_param_ptr, new_buf_ptr, n, lr, momentum, weight_decay,
                BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n:
        _sgd_update(param_ptr, grad_ptr, buf_ptr, new_param_ptr, new_buf_ptr, offsets, None, lr, momentum,
                    weight_decay)
    else:
        _sgd_update(param_ptr, grad_ptr, buf_ptr, new_param_ptr, new_buf_ptr, offsets, offsets < n, lr, momentum,
                    weight_decay)


def sgd_momentum_step(param, grad, momentum_buffer, lr, momentum, weight_decay):
    n = param.numel()
    new_param = torch.empty_like(param)
    new_buffer = torch.empty_like(momentum_buffer)
    block = 2048
    _sgd_kernel[(triton.cdiv(n, block),)](param, grad, momentum_buffer, new_param, new_buffer, n, lr, momentum,
                                          weight_decay, BLOCK=block, num_warps=8)
    return new_param, new_buffer
