import torch
import torch.nn.functional as F


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    # In the task's dtype: cuBLAS's fp16 GEMM with its fp32 bias epilogue (h rounded to float16 once), then
    # PyTorch's float16 GELU (computed in float32, rounded once).
    return F.gelu(F.linear(x, weight, bias))
