import math

import torch


def reference(x, dy):
    xf, dyf = x.float(), dy.float()
    cdf = 0.5 * (1.0 + torch.erf(xf / math.sqrt(2.0)))
    pdf = torch.exp(-0.5 * xf * xf) / math.sqrt(2.0 * math.pi)
    return (dyf * (cdf + xf * pdf)).to(x.dtype)
