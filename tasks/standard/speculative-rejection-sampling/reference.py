import torch


def _first_rejection(draft_probs, target_probs, draft_ids, uniform):
    b, s, _ = draft_probs.shape
    q = draft_probs.gather(2, draft_ids[:, :, None]).squeeze(2)
    p = target_probs[:, :s].gather(2, draft_ids[:, :, None]).squeeze(2)
    accepted = uniform * q < p
    rejected = ~accepted
    pos = torch.arange(s, device=draft_probs.device).expand(b, s)
    return torch.where(rejected, pos, torch.full_like(pos, s)).min(dim=1).values   # S when all accepted


def _residual(draft_probs, target_probs, first):
    b, s, v = draft_probs.shape
    rows = torch.arange(b, device=draft_probs.device)
    j = first.clamp(max=s - 1)
    r = (target_probs[rows, j] - draft_probs[rows, j]).clamp_min(0.0)
    return torch.where((first < s)[:, None], r, target_probs[rows, first])


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Target and draft distributions are softmaxes of correlated normal(0, 4) logits; draft tokens are
    sampled from the draft distribution (Gumbel-max). Acceptance uniforms with u * q / p within 1e-3 of 1
    are moved by 2e-3. The resampling uniform is placed inside the interval of a token whose residual
    (or bonus) probability is at least a tenth of the largest, at 10-90% of its width: the chosen token is
    never within ~1e-5 of a CDF boundary."""
    b, s, v = dims["B"], dims["S"], dims["V"]
    dev = generator.device
    base = 4.0 * torch.randn(b, s + 1, v, generator=generator, device=dev)
    target = torch.softmax(base + 1.0 * torch.randn(b, s + 1, v, generator=generator, device=dev), dim=2)
    draft = torch.softmax(base[:, :s] + 1.0 * torch.randn(b, s, v, generator=generator, device=dev), dim=2)
    del base
    gum = -torch.log(-torch.log(torch.rand(b, s, v, generator=generator, device=dev).clamp_(1e-10, 1 - 1e-7)))
    draft_ids = (draft.log() + gum).argmax(dim=2)
    del gum
    u = torch.rand(b, s, generator=generator, device=dev)
    q = draft.gather(2, draft_ids[:, :, None]).squeeze(2)
    p = target[:, :s].gather(2, draft_ids[:, :, None]).squeeze(2)
    ratio = u * q / p
    u = torch.where((ratio - 1).abs() < 1e-3, (u + 2e-3 * p / q).clamp(max=0.9999), u)
    u = torch.where(((u * q / p) - 1).abs() < 1e-3, (u - 4e-3 * p / q).clamp(min=0.0), u)
    first = _first_rejection(draft, target, draft_ids, u)
    r = _residual(draft, target, first).double()
    total = r.sum(dim=1, keepdim=True)
    big = r >= 0.1 * r.max(dim=1, keepdim=True).values
    pick = (torch.rand(b, v, generator=generator, device=dev).log() - (~big).double() * 1e30).argmax(dim=1)
    cum = torch.cumsum(r, dim=1)
    rows = torch.arange(b, device=dev)
    width = r[rows, pick]
    at = cum[rows, pick] - width + (0.1 + 0.8 * torch.rand(b, generator=generator, device=dev)) * width
    u_res = (at / total.squeeze(1)).float()
    return [draft.contiguous(), target.contiguous(), draft_ids.contiguous(), u.contiguous(), u_res.contiguous()]


def reference(draft_probs, target_probs, draft_token_ids, uniform, uniform_resample):
    b, s, v = draft_probs.shape
    first = _first_rejection(draft_probs, target_probs, draft_token_ids, uniform)
    r = _residual(draft_probs, target_probs, first)
    cum = torch.cumsum(r, dim=1)
    x = (uniform_resample * cum[:, -1])[:, None]
    token = torch.searchsorted(cum, x, right=True).squeeze(1).clamp(max=v - 1)
    out = torch.full((b, s + 1), -1, dtype=torch.int64, device=draft_probs.device)
    pos = torch.arange(s + 1, device=draft_probs.device)[None, :]
    out[:, :s] = torch.where(pos[:, :s] < first[:, None], draft_token_ids, out[:, :s])
    out.scatter_(1, first[:, None], token[:, None])
    return out
