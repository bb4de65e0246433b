import torch


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """logits ~ normal(0, 3); each row saw a prompt of up to 2048 tokens and generated up to 1024 (drawn
    from the first V/4 ids, so some repeat): prompt_mask and output_counts are those; penalties per row as
    in vLLM's ranges (repetition in [1, 2], frequency and presence in [-0.5, 1])."""
    b, v = dims["B"], dims["V"]
    dev = generator.device
    logits = 3.0 * torch.randn(b, v, generator=generator, device=dev)
    lp, lo = min(2048, v), min(1024, v)
    prompt = torch.randint(0, v, (b, lp), generator=generator, device=dev)
    n_prompt = torch.randint(1, lp + 1, (b, 1), generator=generator, device=dev)
    prompt_mask = torch.zeros(b, v, dtype=torch.int32, device=dev)
    prompt_mask.scatter_add_(1, prompt, (torch.arange(lp, device=dev)[None, :] < n_prompt).int())
    out_tok = torch.randint(0, max(1, v // 4), (b, lo), generator=generator, device=dev)
    n_out = torch.randint(1, lo + 1, (b, 1), generator=generator, device=dev)
    counts = torch.zeros(b, v, dtype=torch.int32, device=dev)
    counts.scatter_add_(1, out_tok, (torch.arange(lo, device=dev)[None, :] < n_out).int())
    rep = 1.0 + torch.rand(b, generator=generator, device=dev)
    freq = -0.5 + 1.5 * torch.rand(b, generator=generator, device=dev)
    pres = -0.5 + 1.5 * torch.rand(b, generator=generator, device=dev)
    return [logits, prompt_mask > 0, counts, rep, freq, pres]


def reference(logits, prompt_mask, output_counts, repetition_penalty, frequency_penalty, presence_penalty):
    output_mask = output_counts > 0
    seen = prompt_mask | output_mask
    pen = torch.where(seen, repetition_penalty[:, None], torch.ones_like(logits))
    out = torch.where(logits > 0, logits / pen, logits * pen)
    out = out - frequency_penalty[:, None] * output_counts.float()
    out = out - presence_penalty[:, None] * output_mask.float()
    return out
