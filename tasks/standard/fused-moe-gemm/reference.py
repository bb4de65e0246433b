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
    """a ~ normal(0, 1), each expert's weight ~ normal(0, 1/sqrt(D)) (outputs of unit scale); routing with a
    skewed expert popularity, aligned as standard/moe-align-block-size does."""
    t, k, e, n, d, bs = dims["T"], dims["K"], dims["E"], dims["N"], dims["D"], dims["BS"]
    dev = generator.device
    a = torch.randn(t, d, generator=generator, device=dev).to(dtype)
    w = (torch.randn(e, n, d, generator=generator, device=dev) * d ** -0.5).to(dtype)
    bias = torch.randn(e, generator=generator, device=dev)
    scores = torch.rand(t, e, generator=generator, device=dev).log().neg().log().neg() + bias
    ids = torch.topk(scores, k, dim=1).indices.to(torch.int32)
    sorted_ids = _align(ids, e, bs)
    m = t * k
    blocks = torch.bincount(ids.reshape(-1).long(), minlength=e)
    blocks = (blocks + bs - 1) // bs
    expert_ids = torch.full(((sorted_ids.numel() + bs - 1) // bs,), -1, dtype=torch.int32, device=dev)
    used = torch.repeat_interleave(torch.arange(e, device=dev), blocks)
    expert_ids[:used.numel()] = used.to(torch.int32)
    return [a, w, sorted_ids, expert_ids, k, bs]


def reference(a: torch.Tensor, w: torch.Tensor, sorted_token_ids: torch.Tensor, expert_ids: torch.Tensor,
              top_k: int, block_size: int):
    t = a.shape[0]
    m = t * top_k
    n = w.shape[1]
    out = torch.empty((m, n), dtype=a.dtype, device=a.device)
    ids = sorted_token_ids.long()
    # the expert of every slot: its block's expert
    slot_expert = torch.repeat_interleave(expert_ids.long(), block_size)[:ids.numel()]
    valid = ids < m
    f = ids[valid]
    fe = slot_expert[valid]
    for e in torch.unique(fe).tolist():
        rows = f[fe == e]
        out[rows] = torch.matmul(a[rows // top_k], w[e].t())   # bfloat16 GEMM (cuBLAS, float32 accumulation)
    return out
