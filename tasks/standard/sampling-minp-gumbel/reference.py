import math

import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """logits ~ normal(0, 3); temperature in [0.5, 1.5], min_p in [0.02, 0.2]; gumbel = -log(-log(u)).
    Nudged so the answer is stable in float32: a logit whose (l - max) / T lies within 1e-3 of log(min_p)
    is lowered by 2e-3 * T, and the best kept score gets 2e-3 added to its noise (a margin over the next)."""
    b, v = dims["B"], dims["V"]
    dev = generator.device
    logits = 3.0 * torch.randn(b, v, generator=generator, device=dev)
    temp = 0.5 + torch.rand(b, generator=generator, device=dev)
    min_p = 0.02 + 0.18 * torch.rand(b, generator=generator, device=dev)
    u = torch.rand(b, v, generator=generator, device=dev).clamp_(1e-10, 1 - 1e-7)
    gumbel = -torch.log(-torch.log(u))
    rel = (logits - logits.max(dim=1, keepdim=True).values) / temp[:, None]
    near = (rel - torch.log(min_p)[:, None]).abs() < 1e-3
    logits = torch.where(near, logits - 2e-3 * temp[:, None], logits)
    rel = (logits - logits.max(dim=1, keepdim=True).values) / temp[:, None]
    kept = rel >= torch.log(min_p)[:, None]
    score = torch.where(kept, logits / temp[:, None] + gumbel, torch.full_like(logits, -math.inf))
    best = score.argmax(dim=1)
    gumbel[torch.arange(b, device=dev), best] += 2e-3
    return [logits.contiguous(), temp, min_p, gumbel.contiguous()]


def reference(logits, temperature, min_p, gumbel):
    scaled = logits / temperature[:, None]
    probs = torch.softmax(scaled, dim=1)
    kept = probs >= min_p[:, None] * probs.max(dim=1, keepdim=True).values
    score = torch.where(kept, scaled + gumbel, torch.full_like(scaled, -math.inf))
    return score.argmax(dim=1)
