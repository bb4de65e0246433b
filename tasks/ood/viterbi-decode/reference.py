import torch

_SHIFT = 3.5   # keeps the best score's drift per step near zero, so scores stay within a few hundred
_MARGIN = 0.25  # the best path beats every other path by at least this much


def _viterbi(emissions: torch.Tensor, transitions: torch.Tensor, initial: torch.Tensor):
    """The best path (B, T) and its score (B,), in the dtype of the inputs, argmax ties to the lowest index."""
    steps = emissions.shape[1]
    delta = initial[None, :] + emissions[:, 0, :]                       # (B, S)
    back = []
    for t in range(1, steps):
        best, arg = (delta[:, :, None] + transitions[None, :, :]).max(dim=1)  # over the previous state
        delta = best + emissions[:, t, :]
        back.append(arg)
    score, last = delta.max(dim=1)
    path = [last]
    for arg in reversed(back):
        path.append(arg.gather(1, path[-1][:, None])[:, 0])
    return torch.stack(path[::-1], dim=1), score


def make_inputs(dims: dict, dtype: torch.dtype, generator: torch.Generator) -> list:
    """Normal emissions (shifted by -3.5), transitions and initial scores; then the Viterbi path of that draw,
    found in float64, gets +0.25 on each of its emissions. That path stays the best, and every decision along it
    (the final argmax and each step's choice of predecessor) now wins by at least 0.25, so every other path
    scores at least 0.25 less: the answer is unique whatever the order of float32 additions (scores stay within
    a few hundred, where float32 rounding over a few hundred steps is below 0.01)."""
    b, t, s = dims["B"], dims["T"], dims["S"]
    dev = generator.device
    emissions = torch.randn(b, t, s, generator=generator, device=dev, dtype=torch.float64) - _SHIFT
    transitions = torch.randn(s, s, generator=generator, device=dev, dtype=torch.float64)
    initial = torch.randn(s, generator=generator, device=dev, dtype=torch.float64)
    path, _ = _viterbi(emissions, transitions, initial)
    emissions.scatter_add_(2, path[:, :, None], torch.full((b, t, 1), _MARGIN, device=dev, dtype=torch.float64))
    return [emissions.to(dtype).contiguous(), transitions.to(dtype).contiguous(), initial.to(dtype).contiguous()]


def reference(emissions: torch.Tensor, transitions: torch.Tensor, initial: torch.Tensor):
    # float32 step by step: delta_t[j] = max_i (delta_{t-1}[i] + transitions[i, j]) + emissions[:, t, j]
    return _viterbi(emissions, transitions, initial)
