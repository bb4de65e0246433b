import torch
import torch.nn.functional as F

EPS = 0.1
IGNORE = -100


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """logits ~ normal(0, 2) in bfloat16; targets uniform in [0, V) with about 10% set to -100 (row 0 is
    always kept, so at least one row counts)."""
    m, v = dims["M"], dims["V"]
    dev = generator.device
    logits = (2.0 * torch.randn(m, v, generator=generator, device=dev)).to(dtype)
    targets = torch.randint(0, v, (m,), generator=generator, device=dev, dtype=torch.int64)
    ignored = torch.rand(m, generator=generator, device=dev) < 0.1
    ignored[0] = False
    targets = torch.where(ignored, torch.full_like(targets, IGNORE), targets)
    return [logits, targets]


def reference(logits: torch.Tensor, targets: torch.Tensor):
    x = logits.float()
    v = x.shape[1]
    loss = F.cross_entropy(x, targets, ignore_index=IGNORE, label_smoothing=EPS, reduction="none")
    valid = targets != IGNORE
    n = valid.sum()
    grad = torch.softmax(x, dim=1) - EPS / v
    rows = torch.nonzero(valid).squeeze(1)
    grad[rows, targets[rows]] -= 1.0 - EPS
    grad = grad * (valid.float() / n)[:, None]
    return loss, grad.to(logits.dtype)
