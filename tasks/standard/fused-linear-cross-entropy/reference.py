import torch
import torch.nn.functional as F

IGNORE = -100


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """hidden ~ normal(0, 1), weight ~ normal(0, 0.02) (logits of std about 1.3 at H = 4096), targets
    uniform in [0, V) with about 10% set to -100 (token 0 is always kept)."""
    t, h, v = dims["T"], dims["H"], dims["V"]
    dev = generator.device
    hidden = torch.randn(t, h, generator=generator, device=dev).to(dtype)
    weight = (0.02 * torch.randn(v, h, generator=generator, device=dev)).to(dtype)
    targets = torch.randint(0, v, (t,), generator=generator, device=dev, dtype=torch.int64)
    ignored = torch.rand(t, generator=generator, device=dev) < 0.1
    ignored[0] = False
    targets = torch.where(ignored, torch.full_like(targets, IGNORE), targets)
    return [hidden, weight, targets]


def reference(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    logits = hidden @ weight.t()
    return F.cross_entropy(logits.float(), targets, ignore_index=IGNORE)
