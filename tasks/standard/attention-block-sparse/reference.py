import torch
import torch.nn.functional as F

BLOCK = 128


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Per head, every query block sees exactly K key blocks: its own (the diagonal) and K - 1 others
    drawn at random without repetition."""
    b, h, s, d, kb = dims["B"], dims["H"], dims["S"], dims["D"], dims["K"]
    dev = generator.device
    nb = (s + BLOCK - 1) // BLOCK
    eye = torch.eye(nb, dtype=torch.bool, device=dev)
    noise = torch.rand(h, nb, nb, generator=generator, device=dev).masked_fill(eye, 2.0)  # diagonal first
    chosen = noise.topk(kb, dim=-1).indices
    layout = torch.zeros(h, nb, nb, dtype=torch.int8, device=dev).scatter_(-1, chosen, 1)
    q = (2.5 * torch.randn(b, h, s, d, generator=generator, device=dev)).to(dtype)
    k = torch.randn(b, h, s, d, generator=generator, device=dev).to(dtype)
    v = torch.randn(b, h, s, d, generator=generator, device=dev).to(dtype)
    return [q, k, v, layout]


def reference(q, k, v, layout):
    s = q.shape[-2]
    mask = layout.bool().repeat_interleave(BLOCK, 1).repeat_interleave(BLOCK, 2)[:, :s, :s]  # (H, S, S)
    # bfloat16 SDPA with the expanded mask (a fused kernel on the GPU: fp32 softmax and accumulation inside)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
