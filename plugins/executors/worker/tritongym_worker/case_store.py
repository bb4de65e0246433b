"""The reference worker's cases on the GPU (triton-cuda's data plane): per device, each case's inputs and
expected outputs, kept between evaluations, least recently used first out.

A case drawn once is reused by every later evaluation of its task on that device, and costs nothing to
make again when it was evicted (its inputs are drawn on the GPU). Cases an evaluation uses are pinned
until it releases them, so that another evaluation's cases cannot push them out in between."""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

import torch


@dataclass
class Case:
    inputs: list[Any]                  # positional arguments; tensors on the case's device
    expected: list[torch.Tensor]       # the reference's outputs
    description: list[dict[str, Any]]  # reference.describe_output of each
    nbytes: int = 0
    pins: set[str] = field(default_factory=set)  # evaluations using it now


def _bytes(values: list[Any]) -> int:
    return sum(v.untyped_storage().nbytes() for v in values if isinstance(v, torch.Tensor))


def _device_memory(device: int) -> int:
    return torch.cuda.get_device_properties(device).total_memory


class CaseStore:
    def __init__(self, memory_fraction: float, device_memory: Callable[[int], int] = _device_memory) -> None:
        self.memory_fraction = memory_fraction
        self._device_memory = device_memory  # bytes of a device's memory
        self._cases: dict[int, OrderedDict[str, Case]] = {}

    def get(self, device: int, key: str) -> Case | None:
        cases = self._cases.get(device)
        if cases is None or key not in cases:
            return None
        cases.move_to_end(key)
        return cases[key]

    def put(self, device: int, key: str, case: Case, evaluation: str | None) -> None:
        """Keeps `case`, pinned for `evaluation` (a case made ahead of its evaluation has none), then evicts
        unpinned cases while over the budget (the cases one evaluation pins may exceed it alone: they stay
        until it is released)."""
        case.nbytes = _bytes(case.inputs) + _bytes(case.expected)
        if evaluation is not None:
            case.pins.add(evaluation)
        cases = self._cases.setdefault(device, OrderedDict())
        cases[key] = case
        self._evict(device)

    def pin(self, device: int, key: str, evaluation: str) -> None:
        self._cases[device][key].pins.add(evaluation)

    def unpin(self, evaluation: str) -> None:
        for device, cases in self._cases.items():
            for case in cases.values():
                case.pins.discard(evaluation)
            self._evict(device)

    def held_bytes(self, device: int) -> int:
        return sum(case.nbytes for case in self._cases.get(device, {}).values())

    def _evict(self, device: int) -> None:
        budget = self.memory_fraction * self._device_memory(device)
        cases = self._cases.get(device, OrderedDict())
        held = self.held_bytes(device)
        evicted = False
        for key in list(cases):
            if held <= budget:
                break
            if not cases[key].pins:
                held -= cases.pop(key).nbytes
                evicted = True
        if evicted and torch.cuda.is_available():  # give the memory back: the candidate's child on this GPU needs it
            with torch.cuda.device(device):
                torch.cuda.empty_cache()
