import torch
import torch.nn.functional as F


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """q, k, v normal in bfloat16 (k scaled by K^-0.5 / 2 to keep the state of unit scale); the log gates
    g = logsigmoid(normal) / 16, as flash-linear-attention's GLA layer normalises them (values in about
    [-0.5, 0])."""
    b, t, h, kd, vd = dims["B"], dims["T"], dims["H"], dims["K"], dims["V"]
    dev = generator.device
    q = torch.randn(b, t, h, kd, generator=generator, device=dev).to(dtype)
    k = (torch.randn(b, t, h, kd, generator=generator, device=dev) * (0.5 * kd ** -0.5)).to(dtype)
    v = torch.randn(b, t, h, vd, generator=generator, device=dev).to(dtype)
    g = (F.logsigmoid(torch.randn(b, t, h, kd, generator=generator, device=dev)) / 16).contiguous()
    return [q, k, v, g, kd ** -0.5]


def reference(q, k, v, g, scale):
    # The recurrence step by step in float32 (flash-linear-attention's naive recurrent GLA)
    b, t, h, kd = q.shape
    vd = v.shape[-1]
    qf, kf, vf, gf = q.float() * scale, k.float(), v.float(), g.float()
    s = torch.zeros(b, h, kd, vd, dtype=torch.float32, device=q.device)
    out = torch.empty(b, t, h, vd, dtype=torch.float32, device=q.device)
    for i in range(t):
        s = s * torch.exp(gf[:, i])[..., None] + kf[:, i, :, :, None] * vf[:, i, :, None, :]
        out[:, i] = torch.einsum("bhk,bhkv->bhv", qf[:, i], s)
    return out.to(q.dtype)
