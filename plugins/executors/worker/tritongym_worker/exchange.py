"""The GPU data plane of triton-cuda: inputs and outputs travel between the reference worker and a
candidate's child as device memory shared through CUDA IPC, never through files.

- The reference worker keeps each case's inputs and expected outputs in its own GPU memory (case_store).
  For one evaluation it copies a case's inputs into a block of their own (`export_values`), and makes an
  empty block, filled with 0xFF (NaN in every float format), for each output the child is to return
  (`receive_block`). Both are single cuMemAlloc blocks, so mapping one shows the child nothing else.
- The child maps those blocks by handle (`import_values`, `write_outputs`), copies its inputs out, and
  copies its outputs in. It never sees an expected output.
- The reference worker maps nothing from the child: it reads the receive blocks it owns, after the child
  has exited, so nothing the candidate left behind can write to them while they are compared.

A descriptor is plain JSON, made by the reference worker and read by the child."""
from __future__ import annotations

from typing import Any

import torch

TRANSPORT = "cuda-ipc"
ALIGN = 256  # bytes: every tensor starts at a multiple (any dtype's alignment, and vector accesses)


def is_descriptor(value: Any) -> bool:
    return isinstance(value, dict) and value.get("transport") == TRANSPORT


def _native() -> Any:
    import tritongym_native

    return tritongym_native


def _dtype(name: str) -> torch.dtype:
    from .inputs import DTYPES

    if name not in DTYPES:
        raise ValueError(f"unknown dtype '{name}' in a data-plane descriptor")
    return DTYPES[name]


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def _aligned(size: int) -> int:
    return (size + ALIGN - 1) // ALIGN * ALIGN


def _raw(block: Any) -> torch.Tensor:
    """The whole block as one uint8 tensor on its device (torch keeps `block` alive while it is used)."""
    return torch.as_tensor(block, device=f"cuda:{block.device}")


def _storage_bytes(tensor: torch.Tensor) -> torch.Tensor:
    storage = tensor.untyped_storage()
    return torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(storage, 0, (storage.nbytes(),), (1,))


def _view(raw: torch.Tensor, spec: dict[str, Any], limit: int) -> torch.Tensor:
    """The tensor `spec` describes inside a block's bytes, checked to lie within its `storage_bytes`."""
    dtype = _dtype(spec["dtype"])
    itemsize = torch.empty(0, dtype=dtype).element_size()
    offset, nbytes = int(spec["offset"]), int(spec["storage_bytes"])
    shape, stride = [int(s) for s in spec["shape"]], [int(s) for s in spec["stride"]]
    first = int(spec.get("storage_offset", 0))
    last = first + sum((size - 1) * step for size, step in zip(shape, stride)) if all(shape) else first - 1
    if offset % ALIGN or nbytes % itemsize or offset + nbytes > limit or first < 0 or (all(shape) and
                                                                                       (last + 1) * itemsize > nbytes):
        raise ValueError(f"a data-plane tensor lies outside its block (offset {offset}, {nbytes} bytes, block {limit})")
    if nbytes == 0:
        return torch.empty(shape, dtype=dtype, device=raw.device)
    elements = raw[offset:offset + nbytes].view(dtype)
    return elements.as_strided(shape, stride, offset // itemsize + first)


# ---------------------------------------------------------------- the reference worker's side

class Exported:
    """A block this worker made for one evaluation, with its descriptor; `free()` when the evaluation ends."""

    def __init__(self, block: Any, descriptor: dict[str, Any]) -> None:
        self.block = block
        self.descriptor = descriptor

    def raw(self) -> torch.Tensor:
        return _raw(self.block)

    def free(self) -> None:
        self.block.free()


def export_values(values: list[Any], device_index: int) -> Exported:
    """The positional arguments of one call, copied into a block of their own. Tensors keep their layout
    (the whole storage is copied, with shape, strides and offset); other values travel in the JSON."""
    specs: list[dict[str, Any]] = []
    offset = 0
    for value in values:
        if isinstance(value, torch.Tensor):
            nbytes = value.untyped_storage().nbytes()
            specs.append({"tensor": {"offset": offset, "storage_bytes": nbytes, "dtype": _dtype_name(value.dtype),
                                     "shape": list(value.shape), "stride": list(value.stride()),
                                     "storage_offset": value.storage_offset()}})
            offset += _aligned(nbytes)
        else:
            specs.append({"value": value})
    block = _native().ExportedBlock(device_index, max(offset, ALIGN))
    raw = _raw(block)
    for value, spec in zip(values, specs):
        if "tensor" in spec and spec["tensor"]["storage_bytes"]:
            start = spec["tensor"]["offset"]
            raw[start:start + spec["tensor"]["storage_bytes"]].copy_(_storage_bytes(value))
    torch.cuda.synchronize(device_index)  # filled before the child maps it
    return Exported(block, {"transport": TRANSPORT, "handle": block.handle.hex(), "bytes": block.bytes,
                            "values": specs})


def changed_inputs(exported: Exported, values: list[Any]) -> list[int]:
    """The positions whose bytes in the exported block no longer equal `values` (the private copies): a
    candidate that wrote through its mapping of the block."""
    raw = exported.raw()
    changed = []
    for index, (value, spec) in enumerate(zip(values, exported.descriptor["values"])):
        if "tensor" in spec and spec["tensor"]["storage_bytes"]:
            start = spec["tensor"]["offset"]
            if not torch.equal(raw[start:start + spec["tensor"]["storage_bytes"]], _storage_bytes(value)):
                changed.append(index)
    return changed


def receive_block(expected: list[torch.Tensor], device_index: int) -> Exported:
    """An empty block for outputs shaped like `expected`, every byte 0xFF: an output the child does not
    write reads as NaN (floats) or -1 (integers), never as a right answer by luck."""
    specs, offset = [], 0
    for tensor in expected:
        nbytes = tensor.numel() * tensor.element_size()
        shape = list(tensor.shape)
        stride = list(torch.empty(shape, dtype=tensor.dtype, device="meta").stride())
        specs.append({"offset": offset, "storage_bytes": nbytes, "dtype": _dtype_name(tensor.dtype),
                      "shape": shape, "stride": stride, "storage_offset": 0})
        offset += _aligned(nbytes)
    block = _native().ExportedBlock(device_index, max(offset, ALIGN), 0xFF)
    return Exported(block, {"transport": TRANSPORT, "handle": block.handle.hex(), "bytes": block.bytes,
                            "outputs": specs})


def received(exported: Exported) -> list[torch.Tensor]:
    """The outputs the child wrote into a receive block (views; read them before the block is freed)."""
    raw = exported.raw()
    return [_view(raw, spec, int(raw.numel())) for spec in exported.descriptor["outputs"]]


# ---------------------------------------------------------------- the candidate's child's side

_runtime_up = False


def _runtime_ready() -> None:
    """torch's CUDA runtime initialised, its context current (once per process): importing a mapped pointer
    into torch before the first CUDA call of the process fails with 'invalid argument' (the context the
    native module opens the handle in is not yet the runtime's)."""
    global _runtime_up
    if not _runtime_up:
        torch.cuda.synchronize()
        _runtime_up = True


class Imported:
    """A block of the reference worker's, mapped into this process, and the values in it."""

    def __init__(self, descriptor: dict[str, Any]) -> None:
        _runtime_ready()
        self.block = _native().MappedBlock(torch.cuda.current_device(), bytes.fromhex(descriptor["handle"]))
        raw = _raw(self.block)
        self.values = [_view(raw, spec["tensor"], self.block.bytes) if "tensor" in spec else spec["value"]
                       for spec in descriptor.get("values", [])]

    def close(self) -> None:
        self.values = []
        self.block.close()


def write_outputs(descriptor: dict[str, Any], outputs: list[Any]) -> str:
    """Copies the candidate's outputs into the receive block; '' or why they cannot be compared (the
    same messages as the reference worker's comparison of output files)."""
    specs = descriptor["outputs"]
    if len(outputs) != len(specs):
        return f"returned {len(outputs)} output tensor(s), expected {len(specs)}"
    for index, (got, spec) in enumerate(zip(outputs, specs)):
        label = "output" if len(specs) == 1 else f"output {index}"
        if not isinstance(got, torch.Tensor):
            return f"{label} is {type(got).__name__}, not a tensor"
        if list(got.shape) != list(spec["shape"]):
            return f"{label} has shape {tuple(got.shape)}, expected {tuple(spec['shape'])}"
        if _dtype_name(got.dtype) != spec["dtype"]:
            return f"{label} has dtype {_dtype_name(got.dtype)}, expected {spec['dtype']}"
    _runtime_ready()
    block = _native().MappedBlock(torch.cuda.current_device(), bytes.fromhex(descriptor["handle"]))
    try:
        raw = _raw(block)
        for got, spec in zip(outputs, specs):
            if got.numel():
                _view(raw, spec, block.bytes).copy_(got)
        torch.cuda.synchronize()
        del raw
    finally:
        block.close()
    return ""
