import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Top-k expert ids per token (distinct within a row), drawn from a skewed popularity so that expert
    loads differ (some experts may get no token at the small shapes)."""
    t, e, k, bs = dims["T"], dims["E"], dims["K"], dims["BS"]
    dev = generator.device
    bias = 3.0 * torch.randn(e, generator=generator, device=dev)
    scores = torch.rand(t, e, generator=generator, device=dev).log().neg().log().neg() + bias
    ids = torch.topk(scores, k, dim=1).indices.to(torch.int32)
    return [ids.contiguous(), bs, e]


def reference(topk_ids: torch.Tensor, block_size: int, num_experts: int):
    t, k = topk_ids.shape
    m = t * k
    dev = topk_ids.device
    flat = topk_ids.reshape(-1).long()
    order = torch.argsort(flat, stable=True)                    # flat indices grouped by expert, stable
    counts = torch.bincount(flat, minlength=num_experts)
    padded = (counts + block_size - 1) // block_size * block_size
    starts = torch.cumsum(padded, 0) - padded                   # padded start of each expert's segment
    first = torch.cumsum(counts, 0) - counts                    # unpadded start in `order`
    sorted_experts = flat[order]
    dest = starts[sorted_experts] + torch.arange(m, device=dev) - first[sorted_experts]
    max_padded = m + num_experts * (block_size - 1)
    sorted_ids = torch.full((max_padded,), m, dtype=torch.int32, device=dev)
    sorted_ids[dest] = order.to(torch.int32)
    max_blocks = (max_padded + block_size - 1) // block_size
    expert_ids = torch.full((max_blocks,), -1, dtype=torch.int32, device=dev)
    used = torch.repeat_interleave(torch.arange(num_experts, device=dev), padded // block_size)
    expert_ids[:used.numel()] = used.to(torch.int32)
    total = padded.sum().reshape(1).to(torch.int32)
    return sorted_ids, expert_ids, total
