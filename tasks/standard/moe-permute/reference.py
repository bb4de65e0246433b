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
    x = torch.randn(t, h, generator=generator, device=dev).to(dtype)
    bias = 2.0 * torch.randn(e, generator=generator, device=dev)
    scores = torch.rand(t, e, generator=generator, device=dev).log().neg().log().neg() + bias
    ids = torch.topk(scores, k, dim=1).indices.to(torch.int32)
    return [x, _align(ids, e, bs), k]


def reference(x: torch.Tensor, sorted_token_ids: torch.Tensor, top_k: int):
    t, h = x.shape
    m = t * top_k
    ids = sorted_token_ids.long()
    valid = ids < m
    rows = torch.where(valid, ids // top_k, torch.zeros_like(ids))
    permuted = torch.where(valid[:, None], x[rows], torch.zeros((), dtype=x.dtype, device=x.device))
    inverse = torch.empty(m, dtype=torch.int32, device=x.device)
    inverse[ids[valid]] = torch.nonzero(valid).squeeze(1).to(torch.int32)
    return permuted, inverse
