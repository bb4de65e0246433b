import torch

MARGIN = 2e-3  # no y / scale within this distance of a rounding midpoint


def _near_midpoint(v: torch.Tensor) -> torch.Tensor:
    return ((v.abs() % 1.0) - 0.5).abs() < MARGIN  # float32 is ample: its error is far below MARGIN


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """x ~ normal(0, 1) in bfloat16; then every element whose scaled value y / scale lies within MARGIN
    of a rounding midpoint gets its a and b redrawn, until none does (a row whose max |y| changes is
    checked again in full)."""
    t, d = dims["T"], dims["D"]
    x = torch.randn(t, 2 * d, generator=generator).to(dtype)
    silu = torch.nn.functional.silu
    y = silu(x[:, :d].float()) * x[:, d:].float()
    amax = y.abs().amax(dim=1, keepdim=True)
    rows, cols = _near_midpoint(y / amax * 127.0).nonzero(as_tuple=True)
    for _ in range(100):
        if rows.numel() == 0:
            return [x]
        x[rows, cols] = torch.randn(rows.numel(), generator=generator).to(dtype)
        x[rows, cols + d] = torch.randn(rows.numel(), generator=generator).to(dtype)
        y[rows, cols] = silu(x[rows, cols].float()) * x[rows, cols + d].float()
        new_amax = y.abs().amax(dim=1, keepdim=True)
        changed = (new_amax != amax).squeeze(1).nonzero().squeeze(1)
        amax = new_amax
        still = _near_midpoint(y[rows, cols] / amax[rows, 0] * 127.0)
        rows, cols = rows[still], cols[still]
        if changed.numel():
            sub_rows, sub_cols = _near_midpoint(y[changed] / amax[changed] * 127.0).nonzero(as_tuple=True)
            pairs = torch.cat([torch.stack([rows, cols]), torch.stack([changed[sub_rows], sub_cols])], dim=1)
            rows, cols = pairs.unique(dim=1)
    raise RuntimeError("could not move every value away from a rounding midpoint")


def reference(x: torch.Tensor):
    d = x.shape[1] // 2
    xf = x.float()
    y = torch.nn.functional.silu(xf[:, :d]) * xf[:, d:]
    scale = y.abs().amax(dim=1, keepdim=True) / 127.0
    q = torch.clamp(torch.round(y / scale), -127, 127).to(torch.int8)
    return q, scale
