import torch

SCALE = 2.5  # DeepSeek-V3's routed_scaling_factor


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Biased scores s = sigmoid(logit) + bias are a per-row random permutation of well-spaced values
    (spacing 0.4 / E, jitter below a quarter of it), so no two are within ~1e-3. Where the 4th and 5th best
    group scores are within 2e-4, the best expert of each chosen group is raised by 2e-4: the group choice
    has a margin too. logits = logit(s - bias)."""
    t, e, g, tg = dims["T"], dims["E"], dims["G"], dims["TG"]
    dev = generator.device
    gs = e // g
    bias = (torch.rand(e, generator=generator, device=dev, dtype=torch.float64) - 0.5) * 0.2
    perm = torch.argsort(torch.rand(t, e, generator=generator, device=dev), dim=1).double()
    jitter = torch.rand(t, e, generator=generator, device=dev, dtype=torch.float64) * (0.1 / e)
    s = 0.3 + 0.4 * perm / e + jitter
    grouped = s.view(t, g, gs)
    gscore = grouped.topk(2, dim=2).values.sum(2)
    ranked = gscore.sort(dim=1, descending=True)
    close = (ranked.values[:, tg - 1] - ranked.values[:, tg]) < 2e-4
    top_groups = ranked.indices[:, :tg]
    best_in_group = grouped.argmax(dim=2)                                # (T, G)
    cols = top_groups * gs + best_in_group.gather(1, top_groups)          # (T, TG)
    s.scatter_add_(1, cols, close[:, None].double().expand(-1, tg) * 2e-4)
    p = s - bias
    logits = torch.log(p / (1 - p)).float()
    return [logits.contiguous(), bias.float(), g, tg, dims["K"], SCALE]


def reference(logits, bias, n_group, topk_group, top_k, routed_scaling_factor):
    t, e = logits.shape
    scores = torch.sigmoid(logits.float())
    biased = scores + bias
    group_scores = biased.view(t, n_group, -1).topk(2, dim=-1).values.sum(-1)
    group_idx = torch.topk(group_scores, topk_group, dim=-1).indices
    group_mask = torch.zeros_like(group_scores).scatter_(1, group_idx, 1.0)
    expert_mask = group_mask[:, :, None].expand(-1, -1, e // n_group).reshape(t, e)
    masked = biased.masked_fill(expert_mask == 0, float("-inf"))
    ids = torch.topk(masked, top_k, dim=-1, sorted=True).indices
    w = scores.gather(1, ids)
    w = w / w.sum(dim=-1, keepdim=True) * routed_scaling_factor
    return w, ids.to(torch.int32)
