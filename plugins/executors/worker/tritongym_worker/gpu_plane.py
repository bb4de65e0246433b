"""The reference worker's half of triton-cuda's GPU data plane (exchange.py says how data travels).

Per evaluation, on the GPU of the candidate's worker: `prepare` finds or makes each case (inputs drawn on
the GPU, the reference run on them, both kept in the case store), exports a copy of each case's inputs
and makes a receive block for each output the child will return; `compare` reads the receive blocks
after the child has exited; `input_sets` hands the baselines private copies; `release` frees the blocks
and unpins the cases. A `prepare` marked `ahead` comes before its evaluation (the host was told it is
coming, Executor::expect): it only makes the cases the store lacks, pinned by nobody, and exports nothing.
Requests name cases by their key in the executor's plan (the same key the file transport uses as a path)."""
from __future__ import annotations

from typing import Any, Callable

import torch

from . import exchange
from .case_store import Case, CaseStore
from .inputs import make_inputs

DIGEST_CHUNK = 1 << 24  # int64 words per slice of the digest


class GpuPlane:
    def __init__(self, memory_fraction: float) -> None:
        self.store = CaseStore(memory_fraction)
        self._evaluations: dict[str, dict[str, Any]] = {}

    def prepare(self, request: dict[str, Any], module: Any,
                describe: Callable[..., dict[str, Any]]) -> dict[str, Any]:
        task, device = request["task"], int(request["gpu"])
        if request.get("ahead"):  # no evaluation yet (Executor::expect): only make what the store lacks
            with torch.cuda.device(device):
                made = sum(self._find_or_make(device, case, task, module, describe, None)[1]
                           for case in request["cases"])
            return {"ok": True, "made": made}
        evaluation = str(request["evaluation"])
        self.release(evaluation)  # a retried request starts clean
        held: dict[str, Any] = {"device": device, "inputs": {}, "receive": {}}
        self._evaluations[evaluation] = held
        prepared = []
        with torch.cuda.device(device):
            for case in request["cases"]:
                key = case["reference"]
                found, made = self._find_or_make(device, case, task, module, describe, evaluation)
                if key not in held["inputs"]:
                    held["inputs"][key] = exchange.export_values(found.inputs, device)
                prepared.append({"key": case["key"], "outputs": found.description,
                                 "inputs": held["inputs"][key].descriptor, "made": made})
            receive = {}
            for wanted in request.get("receive", []):
                case = self.store.get(device, wanted["reference"])
                if case is None:
                    raise ValueError(f"receive block for a case not prepared: {wanted['reference']}")
                block = exchange.receive_block(case.expected, device)
                held["receive"][wanted["id"]] = block
                receive[wanted["id"]] = block.descriptor
        return {"ok": True, "cases": prepared, "receive": receive}

    def _find_or_make(self, device: int, case: dict[str, Any], task: dict[str, Any], module: Any,
                      describe: Callable[..., dict[str, Any]], evaluation: str | None) -> tuple[Case, bool]:
        """The stored case, or a new one (inputs drawn on the GPU, the reference run on copies of them), pinned
        for `evaluation` (unpinned without one); and whether it was made now."""
        key = case["reference"]
        found = self.store.get(device, key)
        if found is not None:
            if evaluation is not None:
                self.store.pin(device, key, evaluation)
            return found, False
        values = make_inputs(task.get("inputs", []), getattr(module, "make_inputs", None), case["dims"], case["dtype"],
                             int(case["seed"]), f"cuda:{device}", draw_on_device=True)
        with torch.no_grad():  # on copies: a reference that writes to its arguments changes nothing kept
            expected = module.reference(*[v.clone() if isinstance(v, torch.Tensor) else v for v in values])
        outputs = list(expected) if isinstance(expected, (tuple, list)) else [expected]
        for number, output in enumerate(outputs):
            if not isinstance(output, torch.Tensor):
                raise ValueError(f"reference output {number} is {type(output).__name__}, not a tensor")
        outputs = [o.detach() for o in outputs]
        found = Case(values, outputs, [describe(o, digest=device_digest(o)) for o in outputs])
        self.store.put(device, key, found, evaluation)
        return found, True

    def compare(self, case: dict[str, Any], result: dict[str, Any], atol: float, rtol: float,
                compare_outputs: Callable[..., dict[str, Any]]) -> dict[str, Any]:
        held = self._evaluations.get(str(case["evaluation"]))
        if held is None or case["received"] not in held["receive"]:
            raise ValueError(f"no receive block '{case.get('received')}' for evaluation {case.get('evaluation')}")
        device = held["device"]
        stored = self.store.get(device, case["reference"])
        if stored is None:
            raise ValueError(f"case {case['key']} left the store while it was pinned")
        with torch.cuda.device(device):
            exported = held["inputs"].get(case["reference"])
            tampered = exchange.changed_inputs(exported, stored.inputs) if exported else []
            if tampered:  # written through the child's mapping of the block: the candidate reached for the harness
                result["problem"] = (f"input {tampered[0]} was modified in the harness's copy the candidate was given; "
                                     "inputs must stay unchanged")
                return result
            if case.get("child_problem"):
                result["problem"] = case["child_problem"]
                return result
            changed = case.get("changed_inputs")
            if changed is None:
                result["problem"] = "the candidate's process did not report whether its inputs stayed unchanged"
                return result
            if changed:
                result["problem"] = f"input {changed[0]} was modified by the candidate; inputs must stay unchanged"
                return result
            return compare_outputs(result, exchange.received(held["receive"][case["received"]]), stored.expected,
                                   atol, rtol)

    def input_sets(self, device: int, keys: list[str]) -> list[list[Any]]:
        """Copies of the stored inputs of `keys` (pinned by the evaluation), for the baselines to time."""
        sets = []
        for key in keys:
            stored = self.store.get(device, key)
            if stored is None:
                raise ValueError(f"baseline input set {key} is not in the store")
            sets.append([v.clone() if isinstance(v, torch.Tensor) else v for v in stored.inputs])
        return sets

    def release(self, evaluation: str) -> dict[str, Any]:
        held = self._evaluations.pop(evaluation, None)
        if held is not None:
            with torch.cuda.device(held["device"]):
                torch.cuda.synchronize()
                for block in list(held["inputs"].values()) + list(held["receive"].values()):
                    block.free()
        self.store.unpin(evaluation)
        return {"ok": True}


def device_digest(tensor: torch.Tensor) -> str:
    """A digest of a tensor's bytes computed on its GPU (the CPU digest would copy gigabytes to the host):
    equal tensors give equal digests, and tasks check only compares digests made by one worker."""
    if tensor.numel() == 0:
        return ""
    raw = tensor.detach().contiguous().reshape(-1).view(torch.uint8)
    pad = (-raw.numel()) % 8
    if pad:
        raw = torch.cat([raw, torch.zeros(pad, dtype=torch.uint8, device=raw.device)])
    words = raw.view(torch.int64)
    total_a = torch.zeros((), dtype=torch.int64, device=raw.device)
    total_b = torch.zeros((), dtype=torch.int64, device=raw.device)
    for begin in range(0, words.numel(), DIGEST_CHUNK):
        chunk = words[begin:begin + DIGEST_CHUNK]
        position = torch.arange(begin, begin + chunk.numel(), dtype=torch.int64, device=raw.device)
        mixed = (chunk ^ (position * -7046029254386353131)) * -4658895280553007687  # wraps: a multiplicative hash
        total_a += (mixed ^ (mixed >> 29)).sum()
        total_b += (mixed * (position | 1)).sum()
    return f"{int(total_a) & (2**64 - 1):016x}{int(total_b) & (2**64 - 1):016x}"[:16]
