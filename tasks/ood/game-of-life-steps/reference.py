import torch


def reference(board: torch.Tensor, steps: int) -> torch.Tensor:
    # Conway's rule on a torus: with s = the 3x3 sum around a cell (the cell included), the cell is alive next
    # generation iff s == 3, or s == 4 and it is alive now. torch.roll wraps around both edges.
    x = board
    for _ in range(steps):
        h = torch.roll(x, 1, dims=2) + x + torch.roll(x, -1, dims=2)
        s = torch.roll(h, 1, dims=1) + h + torch.roll(h, -1, dims=1)
        x = ((s == 3) | ((s == 4) & (x == 1))).to(torch.uint8)
    return x
