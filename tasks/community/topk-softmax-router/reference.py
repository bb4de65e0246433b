import torch

GAP = 1e-3


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """normal(0, 1) logits, spread apart so that consecutive values of a row (in sorted order) differ by at
    least GAP: no ties in the logits, hence none in the probabilities."""
    t, e = dims["T"], dims["E"]
    raw = torch.randn(t, e, generator=generator, dtype=torch.float64)
    ranked, order = raw.sort(dim=1)
    ranked += GAP * torch.arange(e, dtype=torch.float64)  # still sorted, now with gaps >= GAP
    logits = torch.empty_like(raw).scatter_(1, order, ranked)
    return [logits.to(dtype), 2]


def reference(logits: torch.Tensor, top_k: int):
    probs = torch.softmax(logits.float(), dim=-1)
    weights, indices = torch.topk(probs, top_k, dim=-1)
    return weights, indices.to(torch.int64)
