import torch


def reference(g, u, dout):
    gf, uf, df = g.float(), u.float(), dout.float()
    sig = torch.sigmoid(gf)
    du = df * gf * sig
    dg = df * uf * sig * (1.0 + gf * (1.0 - sig))
    return dg.to(g.dtype), du.to(g.dtype)
