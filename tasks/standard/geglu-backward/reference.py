import math

import torch

C = math.sqrt(2.0 / math.pi)
A = 0.044715


def reference(g, u, dout):
    gf, uf, df = g.float(), u.float(), dout.float()
    t = torch.tanh(C * (gf + A * gf * gf * gf))
    du = df * 0.5 * gf * (1.0 + t)
    dgelu = 0.5 * (1.0 + t) + 0.5 * gf * (1.0 - t * t) * C * (1.0 + 3.0 * A * gf * gf)
    dg = df * uf * dgelu
    return dg.to(g.dtype), du.to(g.dtype)
