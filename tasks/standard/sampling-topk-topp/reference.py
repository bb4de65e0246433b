import torch


def _kept(logits, temperature, top_k, top_p):
    """float64 weights of the sorted top-k tokens (descending), the top-p keep mask, and the sorted ids."""
    kmax = int(top_k.max())
    vals, ids = torch.topk(logits.double(), kmax, dim=1)
    e = torch.exp((vals - vals[:, :1]) / temperature.double()[:, None])
    rank = torch.arange(kmax, device=logits.device)[None, :]
    e = torch.where(rank < top_k[:, None], e, torch.zeros_like(e))
    total = e.sum(dim=1, keepdim=True)
    excl = torch.cumsum(e, dim=1) - e
    keep = (excl < top_p.double()[:, None] * total) & (rank < top_k[:, None])
    return e, excl, total, keep, ids


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """logits ~ normal(0, 3); temperature in [0.5, 1.5], top_k in [5, 64], top_p in [0.5, 0.95]. Nudged for a
    stable answer: top_p is moved 3e-4 up while it is within 2e-4 of a cumulative fraction of the top-k mass;
    a uniform within 2e-5 (of the kept mass) of an interval edge moves to the middle of its interval, or of
    the first token's when the interval is narrower than 1e-4."""
    b, v = dims["B"], dims["V"]
    dev = generator.device
    logits = 3.0 * torch.randn(b, v, generator=generator, device=dev)
    temp = 0.5 + torch.rand(b, generator=generator, device=dev)
    top_k = torch.randint(5, 65, (b,), generator=generator, device=dev, dtype=torch.int32)
    top_p = (0.5 + 0.45 * torch.rand(b, generator=generator, device=dev, dtype=torch.float64))
    u = torch.rand(b, generator=generator, device=dev, dtype=torch.float64)
    e, excl, total, _, _ = _kept(logits, temp, top_k, top_p.float())
    frac = excl / total
    for _ in range(4):
        close = ((frac - top_p[:, None]).abs() < 2e-4).any(dim=1)
        top_p = torch.where(close, top_p + 3e-4, top_p)
    top_p = top_p.float()
    e, excl, total, keep, _ = _kept(logits, temp, top_k, top_p)
    ek = torch.where(keep, e, torch.zeros_like(e))
    mass = ek.sum(dim=1, keepdim=True)
    lo = (torch.cumsum(ek, dim=1) - ek) / mass
    hi = torch.cumsum(ek, dim=1) / mass
    inside = (lo <= u[:, None]) & (u[:, None] < hi) & keep
    tok = inside.int().argmax(dim=1)
    rows = torch.arange(b, device=dev)
    l, h = lo[rows, tok], hi[rows, tok]
    near = ((u - l) < 2e-5) | ((h - u) < 2e-5)
    mid = torch.where(h - l >= 1e-4, (l + h) / 2, hi[:, 0] / 2)
    u = torch.where(near, mid, u).float()
    return [logits, temp, top_k, top_p, u]


def reference(logits, temperature, top_k, top_p, uniform):
    b, v = logits.shape
    probs = torch.softmax(logits / temperature[:, None], dim=1)
    sp, order = probs.sort(dim=1, descending=True)
    rank = torch.arange(v, device=logits.device)[None, :]
    sp = torch.where(rank < top_k[:, None], sp, torch.zeros_like(sp))
    sp = sp / sp.sum(dim=1, keepdim=True)
    excl = torch.cumsum(sp, dim=1) - sp
    sp = torch.where(excl < top_p[:, None], sp, torch.zeros_like(sp))
    cum = torch.cumsum(sp, dim=1)
    point = uniform[:, None] * cum[:, -1:]
    pos = (cum <= point).sum(dim=1, keepdim=True).clamp(max=v - 1)
    return order.gather(1, pos).squeeze(1)
