import torch
import torch.nn.functional as F


def reference(x: torch.Tensor) -> torch.Tensor:
    # Replicate padding by 2 on each side, the 25 window values of every pixel side by side (unfold), their
    # median. One image at a time keeps the 25x unfolded copy small.
    batch, h, w = x.shape
    out = torch.empty_like(x)
    for b in range(batch):
        padded = F.pad(x[b][None, None].float(), (2, 2, 2, 2), mode="replicate")
        windows = F.unfold(padded, kernel_size=5)                      # (1, 25, h * w)
        out[b] = windows.median(dim=1).values.view(h, w).to(x.dtype)   # 25 values: the 13th smallest
    return out
