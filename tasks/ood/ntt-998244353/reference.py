import torch

P = 998244353  # 119 * 2**23 + 1, primitive root 3


def reference(x: torch.Tensor) -> torch.Tensor:
    """Forward NTT of every row: y[b, j] = sum_i x[b, i] * w**(i * j) mod P, w = 3**((P - 1) / n) mod P.

    Iterative radix-2 Cooley-Tukey (decimation in time): bit-reverse the input, then log2(n) butterfly stages,
    each vectorised over the batch. int64 throughout: every product of two residues is below 2**60."""
    batch, n = x.shape
    log_n = n.bit_length() - 1
    device = x.device
    j = torch.arange(n, device=device)
    rev = torch.zeros_like(j)
    for bit in range(log_n):
        rev |= ((j >> bit) & 1) << (log_n - 1 - bit)
    a = x[:, rev]
    # table[t] = w**t for t < n/2 by square-and-multiply over the bits of t
    half = max(1, n // 2)
    t = torch.arange(half, device=device)
    table = torch.ones(half, dtype=torch.int64, device=device)
    base = pow(3, (P - 1) // n, P)
    for bit in range(max(1, log_n - 1)):
        table = torch.where(((t >> bit) & 1) == 1, table * base % P, table)
        base = base * base % P
    h = 1
    while h < n:
        tw = table[:: n // (2 * h)][:h]  # (w**(n / 2h))**j for j < h
        a = a.view(batch, n // (2 * h), 2, h)
        u = a[:, :, 0, :]
        v = a[:, :, 1, :] * tw % P
        a = torch.stack(((u + v) % P, (u - v) % P), dim=2).reshape(batch, n)
        h *= 2
    return a
