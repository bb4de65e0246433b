"""How a candidate's child gets a call's inputs and gives back its outputs, through either transport:
files (the interpreter, and triton-cuda with `data_plane: files`) or device memory shared with the
reference worker (triton-cuda's GPU data plane, exchange.py)."""
from __future__ import annotations

from typing import Any

from . import exchange, integrity


def load_inputs(source: Any) -> tuple[list[Any], Any]:
    """A call's inputs as the reference worker made them, and what to close once they are no longer
    needed: mapped device memory (a descriptor), or a file's tensors on the CPU (nothing to close)."""
    import torch

    if exchange.is_descriptor(source):
        imported = exchange.Imported(source)
        return imported.values, imported
    return torch.load(source, weights_only=True)["inputs"], None


def close_quietly(imported: Any) -> None:
    try:
        imported.close()
    except Exception:  # after a CUDA fault the driver refuses everything; the child exits anyway
        pass


def give_outputs(destination: Any, outputs: list[Any], inputs: list[Any], originals: list[Any]) -> dict[str, Any]:
    """Gives a call's outputs to the reference worker. Into its receive block, returning which inputs the
    call changed and, when the outputs cannot be compared, why (`output_problem`); or as a file, which
    carries the same facts, returning {}."""
    import torch

    if exchange.is_descriptor(destination):
        told: dict[str, Any] = {"changed_inputs": integrity.changed_positions(inputs, originals)}
        problem = exchange.write_outputs(destination, outputs)
        if problem:
            told["output_problem"] = problem
        return told
    torch.save(integrity.output_payload(outputs, inputs, originals), destination)
    return {}
