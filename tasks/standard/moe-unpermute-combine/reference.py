import torch


def _align(ids: torch.Tensor, e: int, bs: int) -> torch.Tensor:
    """sorted_token_ids as standard/moe-align-block-size defines it (pad value T * K)."""
    m = ids.numel()
    flat = ids.reshape(-1).long()
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=e)
    padded = (counts + bs - 1) // bs * bs
    starts = torch.cumsum(padded, 0) - padded
    first = torch.cumsum(counts, 0) - counts
    se = flat[order]
    dest = starts[se] + torch.arange(m, device=ids.device) - first[se]
    out = torch.full((m + e * (bs - 1),), m, dtype=torch.int32, device=ids.device)
    out[dest] = order.to(torch.int32)
    return out



def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    t, h, e, k, bs = dims["T"], dims["H"], dims["E"], dims["K"], dims["BS"]
    dev = generator.device
    bias = 2.0 * torch.randn(e, generator=generator, device=dev)
    scores = torch.rand(t, e, generator=generator, device=dev).log().neg().log().neg() + bias
    top = torch.topk(scores, k, dim=1)
    ids = top.indices.to(torch.int32)
    weights = torch.softmax(top.values, dim=1).float().contiguous()
    sorted_ids = _align(ids, e, bs)
    m = t * k
    valid = sorted_ids < m
    inverse = torch.empty(m, dtype=torch.int32, device=dev)
    inverse[sorted_ids[valid].long()] = torch.nonzero(valid).squeeze(1).to(torch.int32)
    expert_out = torch.randn(sorted_ids.numel(), h, generator=generator, device=dev).to(dtype)
    return [expert_out, inverse, weights]


def reference(expert_out: torch.Tensor, inverse: torch.Tensor, weights: torch.Tensor):
    t, k = weights.shape
    rows = expert_out[inverse.long()].float().view(t, k, -1)
    acc = torch.zeros(t, rows.shape[2], dtype=torch.float32, device=rows.device)
    for j in range(k):
        acc = acc + weights[:, j:j + 1] * rows[:, j, :]
    return acc.to(expert_out.dtype)
