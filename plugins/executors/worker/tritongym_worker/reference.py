"""The trusted role: inputs, reference outputs, and the comparison of candidate outputs.

This process never imports candidate code. Candidate outputs reach it as files it loads with
torch.load(weights_only=True), which cannot run code."""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import math
import os
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from collections import deque
from typing import Any, Callable, Iterable, Iterator

import torch

from . import plain_files
from .inputs import make_inputs

DEFAULT_TOLERANCE = {
    "float32": (1e-5, 1e-5), "float64": (1e-8, 1e-8), "float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2),
    "float8_e4m3fn": (1e-1, 1e-1), "float8_e5m2": (1e-1, 1e-1),
}
PREPARE_LOOKAHEAD = 2  # cases whose inputs are drawn while the device works on an earlier one
PREPARE_WRITERS = 3    # threads writing input and reference files
TRITONGYM_MAX_ABS = 0.01  # TritonGym's rule, reported beside the task's own tolerance


class ReferenceRole:
    def __init__(self, device: str) -> None:
        self.device = device
        self._modules: dict[str, Any] = {}
        self.retire = False  # set when this process must exit after its reply (the host starts another)
        self._plane: Any = None  # the GPU data plane (gpu_plane.GpuPlane), made on its first request

    def plane(self, request: dict[str, Any]) -> Any:
        if self._plane is None:
            from .gpu_plane import GpuPlane

            self._plane = GpuPlane(float(request.get("memory_fraction", 0.3)))
        return self._plane

    def release(self, request: dict[str, Any]) -> dict[str, Any]:
        """Frees an evaluation's exported blocks and unpins its cases (the GPU data plane)."""
        return self.plane(request).release(str(request["evaluation"]))

    def _reference_module(self, path: str) -> Any:
        if path not in self._modules:
            spec = importlib.util.spec_from_file_location(f"reference_{len(self._modules)}", path)
            if spec is None or spec.loader is None:
                raise ValueError(f"cannot load reference {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if not hasattr(module, "reference"):
                raise ValueError(f"{path} defines no function `reference`")
            self._modules[path] = module
        return self._modules[path]

    def prepare(self, request: dict[str, Any]) -> dict[str, Any]:
        """Writes inputs/<key>.pt and reference/<key>.pt for each case that has none yet, and describes
        the expected outputs (for `tritongym tasks check`'s degeneracy test).

        Inputs are drawn on the CPU (the same values on every machine), PREPARE_LOOKAHEAD cases ahead of the
        device, and the files are written by PREPARE_WRITERS threads while the next case runs: torch
        releases the GIL in both. On the H200 this phase took a median 21 s of a final score, one case
        after the other (2026-11-30)."""
        task = request["task"]
        module = self._reference_module(task["reference_path"])
        if request.get("gpu") is not None:  # the GPU data plane: nothing goes through files
            return self.plane(request).prepare(request, module, describe_output)
        make_fn = getattr(module, "make_inputs", None)
        cases = request["cases"]
        todo = {i for i, case in enumerate(cases)
                if not (os.path.exists(case["inputs"]) and os.path.exists(case["reference"]))}
        writes: list[Future] = []
        prepared = []
        with ThreadPoolExecutor(PREPARE_LOOKAHEAD, thread_name_prefix="tritongym-draw") as drawing, \
                ThreadPoolExecutor(PREPARE_WRITERS, thread_name_prefix="tritongym-write") as writing:
            def draw(index: int) -> Future:
                case = cases[index]
                return drawing.submit(make_inputs, task.get("inputs", []), make_fn, case["dims"], case["dtype"],
                                      int(case["seed"]), "cpu")

            fresh = _ahead(draw, todo, PREPARE_LOOKAHEAD)
            for index, case in enumerate(cases):
                if index in todo:
                    on_cpu = next(fresh)
                    values = [v.to(self.device) if isinstance(v, torch.Tensor) else v for v in on_cpu]
                    with torch.no_grad():
                        expected = module.reference(*values)
                    outputs = list(expected) if isinstance(expected, (tuple, list)) else [expected]
                    for number, output in enumerate(outputs):
                        if not isinstance(output, torch.Tensor):
                            raise ValueError(f"reference output {number} is {type(output).__name__}, not a tensor")
                    if self.device.startswith("cuda"):
                        torch.cuda.synchronize()
                    saved_inputs = [_as_moved(original, moved) for original, moved in zip(on_cpu, values)]
                    on_host = [o.detach().cpu() for o in outputs]
                    del values, expected
                    pending = [w for w in writes if not w.done()]
                    while len(pending) >= 2 * PREPARE_WRITERS:  # files waiting to be written: bounded memory
                        wait(pending, return_when=FIRST_COMPLETED)
                        pending = [w for w in pending if not w.done()]
                    writes.append(writing.submit(_save_atomically, {"inputs": saved_inputs}, case["inputs"]))
                    writes.append(writing.submit(_save_atomically, {"outputs": on_host}, case["reference"]))
                else:
                    on_host = torch.load(case["reference"], weights_only=True)["outputs"]
                    outputs = [o.to(self.device) for o in on_host]
                # On the device: on a CPU, describing an output of 128M elements took 12 s here. The digest
                # reads the host copy, which exists already.
                prepared.append({"key": case["key"], "outputs": [describe_output(o.detach(), host)
                                                                for o, host in zip(outputs, on_host)]})
            for write in writes:
                write.result()  # a failed write fails the request
        return {"ok": True, "cases": prepared}

    def ceilings(self, request: dict[str, Any]) -> dict[str, Any]:
        """What the machine reaches per unit (baselines.measure_ceilings), measured once per machine and method."""
        from . import baselines

        cache = baselines.Cache(os.path.join(request["cache_dir"], "ceilings"))
        key = baselines.machine_key() + "-" + hashlib.sha256(baselines.CEILINGS_METHOD.encode()).hexdigest()[:8]
        found = cache.get(key)
        if found is None:
            with torch.cuda.device(int(request.get("gpu", 0))):
                found = baselines.measure_ceilings()
            cache.put(key, found)
        return {"ok": True, "ceilings": found, "cached": found is not None}

    def baselines(self, request: dict[str, Any]) -> dict[str, Any]:
        """Eager, torch.compile, oracle and plain-Triton baseline times per shape (those of the task's that the
        request's `baselines` names: all by default; `triton` only where the task ships triton_baseline.py), on
        the candidate's input sets (cached per machine, task files, shape and dtype), and each shape's speed-of-light floor. With `cached_only`, times none: the reply says `missing` (the
        first shape not in the cache) instead."""
        from . import baselines

        task, ceilings = request["task"], request["ceilings"]
        cache = baselines.Cache(os.path.join(request["cache_dir"], "baselines"))
        files = baselines.file_digest(task["reference_path"], task.get("oracle_path", ""),
                                      task.get("triton_baseline_path", ""))
        machine = baselines.machine_key()
        reference = self._reference_module(task["reference_path"]).reference
        offered = baselines.offered(task)
        which = [name for name in offered if name in request.get("baselines", baselines.BASELINES)]
        oracle = self._entry_of(task, "oracle_path", "oracle") if "oracle" in which else None
        triton = self._entry_of(task, "triton_baseline_path", "triton_baseline") if "triton" in which else None
        compile_seconds = float(request.get("compile_seconds", baselines.COMPILE_SECONDS))
        timeout_key = baselines.timeout_key(machine, files, task["id"], compile_seconds)
        shapes = []
        for shape in request["shapes"]:
            cold_l2 = request.get("cold_l2", True)
            key = baselines.baseline_key(machine, files, task["id"], shape["dims"], shape["dtype"], cold_l2, which)
            found = cache.get(key) if which else {"cold_l2": baselines.untimed(cold_l2), "problems": {}, "timed": []}
            if found is None and len(which) < len(offered):  # the task's full set's entry serves a subset
                full = cache.get(baselines.baseline_key(machine, files, task["id"], shape["dims"], shape["dtype"],
                                                        cold_l2, offered))
                found = baselines.only(full, which) if full is not None else None
            if found is not None and "compile" in which and baselines.compile_given_up_sooner(found, compile_seconds):
                found = None
            if found is None and request.get("cached_only"):
                # The host asks first without the GPU to itself, and takes it alone only to time some.
                return {"ok": True, "missing": shape["key"]}
            if found is None:
                gpu = request.get("gpu")
                if gpu is not None:  # the GPU data plane: copies of the stored cases, on the candidate's GPU
                    sets = self.plane(request).input_sets(int(gpu), shape["sets"])
                else:
                    sets = [[v.to(self.device) if isinstance(v, torch.Tensor) else v
                             for v in torch.load(path, weights_only=True)["inputs"]] for path in shape["sets"]]
                with torch.cuda.device(int(gpu or 0)) if self.device.startswith("cuda") else contextlib.nullcontext():
                    found = baselines.time_baselines(
                        reference, oracle, sets, cold_l2=request.get("cold_l2", True),
                        compile_seconds=compile_seconds, compile_problem=cache.get(timeout_key) or "", which=which,
                        triton=triton)
                del sets
                problem = found.get("problems", {}).get("compile", "")
                if problem.startswith("TimeoutError"):  # the next shape would unroll the same loops
                    found["compile_seconds"] = compile_seconds  # a longer deadline later tries again
                    cache.put(timeout_key, problem)
                    # A stopped compile may leave torch's tracing state broken (a later compile crashed a
                    # process here): eager and the oracle are timed without it, then a fresh worker takes over.
                    self.retire = True
                cache.put(key, found)
            work = baselines.work_of(task.get("flops", ""), task.get("bytes", ""), shape["dims"], shape["dtype"])
            floor = baselines.speed_of_light_us(work, shape["dtype"], ceilings, task.get("compute_unit") or "tensor")
            shapes.append({"key": shape["key"], **found, **work, "speed_of_light_us": floor})
        reply: dict[str, Any] = {"ok": True, "shapes": shapes}
        if self.retire:
            reply["retire"] = True
        return reply

    def _entry_of(self, task: dict[str, Any], path_key: str, label: str) -> Any:
        """The entry function of one of the task's own files (oracle.py, triton_baseline.py), loaded once per
        path; None where the task has no such file or it defines no entry."""
        from . import baselines

        path = task.get(path_key)
        if not path:
            return None
        if path not in self._modules:
            self._modules[path] = baselines._load_module(path, f"{label}_{len(self._modules)}")
        return getattr(self._modules[path], task["entry"], None)

    def compare(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "cases": [self._compare_case(case) for case in request["cases"]]}

    def _compare_case(self, case: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = {"key": case["key"], "passed": False, "max_abs_error": 0.0, "max_rel_error": 0.0,
                                  "first_mismatch": "", "problem": ""}
        atol, rtol = case.get("atol"), case.get("rtol")
        if atol is None or rtol is None:
            atol, rtol = DEFAULT_TOLERANCE.get(case.get("dtype", "float32"), (1e-5, 1e-5))
        if case.get("received"):  # the GPU data plane
            return self.plane(case).compare(case, result, atol, rtol, self._compare_outputs)
        expected = torch.load(case["reference"], weights_only=True)["outputs"]
        try:  # a plain file only: a link there could point at the expected outputs themselves (plain_files.py)
            with plain_files.open_plain(case["output"]) as handle:
                produced = torch.load(handle, weights_only=True)
        except Exception as error:  # a missing, linked or corrupt file is the candidate's failure
            result["problem"] = f"the candidate's output could not be read: {error}"
            return result
        outputs = produced.get("outputs", [])
        if produced.get("inputs_unchanged") is not True:  # the child found a change, or said nothing
            original_inputs = torch.load(case["inputs"], weights_only=True)["inputs"]
            inputs_after = produced.get("inputs_after", [])
            if len(inputs_after) != len(original_inputs):
                result["problem"] = "the inputs after the call were not saved; inputs must stay unchanged"
                return result
            for index, (before, after) in enumerate(zip(original_inputs, inputs_after)):
                if isinstance(before, torch.Tensor) and not _same(before, after):
                    result["problem"] = f"input {index} was modified by the candidate; inputs must stay unchanged"
                    return result
        return self._compare_outputs(result, outputs, expected, atol, rtol)

    def _compare_outputs(self, result: dict[str, Any], outputs: list[Any], expected: list[torch.Tensor],
                         atol: float, rtol: float) -> dict[str, Any]:
        if len(outputs) != len(expected):
            result["problem"] = f"returned {len(outputs)} output tensor(s), expected {len(expected)}"
            return result
        worst_abs, worst_rel = 0.0, 0.0
        for index, (got, want) in enumerate(zip(outputs, expected)):
            label = "output" if len(expected) == 1 else f"output {index}"
            if not isinstance(got, torch.Tensor):
                result["problem"] = f"{label} is {type(got).__name__}, not a tensor"
                return result
            if tuple(got.shape) != tuple(want.shape):
                result["problem"] = f"{label} has shape {tuple(got.shape)}, expected {tuple(want.shape)}"
                return result
            if got.dtype != want.dtype:
                result["problem"] = f"{label} has dtype {str(got.dtype).replace('torch.', '')}, expected " \
                                    f"{str(want.dtype).replace('torch.', '')}"
                return result
            verdict = _compare_tensors(got, want, atol, rtol, self.device if got.device.type == "cpu" else None)
            worst_abs, worst_rel = max(worst_abs, verdict["max_abs"]), max(worst_rel, verdict["max_rel"])
            if verdict["mismatch"] and not result["first_mismatch"]:
                result["first_mismatch"] = f"{label}{verdict['mismatch']}"
        result["max_abs_error"], result["max_rel_error"] = _finite(worst_abs), _finite(worst_rel)
        result["passed"] = not result["first_mismatch"]
        result["within_max_abs_0_01"] = worst_abs <= TRITONGYM_MAX_ABS
        result["atol"], result["rtol"] = atol, rtol
        return result


def describe_output(tensor: torch.Tensor, host: torch.Tensor | None = None, digest: str | None = None) -> dict[str, Any]:
    """What a degeneracy check needs: spread, size, the axes along which nothing varies, a digest.
    Computed where the tensor is (the reference worker's GPU), the digest over its bytes on the CPU:
    `host`, a CPU copy the caller already has, or one made here; or `digest`, computed by the caller."""
    values = tensor.double()
    finite = values[torch.isfinite(values)] if values.numel() else values
    constant_axes = []
    if tensor.numel() > 1:
        for axis, size in enumerate(tensor.shape):
            if size > 1 and bool((values.amax(dim=axis) == values.amin(dim=axis)).all()):
                constant_axes.append(axis)
    return {
        "shape": list(tensor.shape), "dtype": str(tensor.dtype).replace("torch.", ""),
        "std": float(finite.std()) if finite.numel() > 1 else 0.0,
        "max_abs": float(finite.abs().max()) if finite.numel() else 0.0,
        "non_finite": int((~torch.isfinite(values)).sum()) if values.numel() else 0,
        "constant_axes": constant_axes,
        "digest": digest if digest is not None else hashlib.sha256((tensor.cpu() if host is None else host).reshape(-1).contiguous().view(torch.uint8)
                                 .numpy().tobytes()).hexdigest()[:16]
        if tensor.numel() else "",
    }


COMPARE_CHUNK = 1 << 24  # elements per slice: bounds the float64 temporaries to a few hundred MB


def _compare_tensors(got: torch.Tensor, want: torch.Tensor, atol: float, rtol: float,
                     device: str | None = None) -> dict[str, Any]:
    """Elementwise |got - want| <= atol + rtol * |want|, in float64, slice by slice on `device` (the
    reference worker's GPU when it has one: a CPU pass over a few hundred million elements takes many
    seconds). NaN and Inf never pass unless the reference has the same non-finite value there. Returns
    the largest absolute and relative errors and the first mismatch, with how many elements are off."""
    if got.numel() == 0:
        return {"max_abs": 0.0, "max_rel": 0.0, "mismatch": ""}
    flat_got, flat_want = got.reshape(-1), want.reshape(-1)
    floating = got.dtype.is_floating_point
    max_abs = max_rel = 0.0
    count, first = 0, -1
    for begin in range(0, flat_got.numel(), COMPARE_CHUNK):
        g = flat_got[begin:begin + COMPARE_CHUNK].to(device or flat_got.device).double()
        w = flat_want[begin:begin + COMPARE_CHUNK].to(g.device).double()
        diff = (g - w).abs()
        if floating:
            same_nonfinite = (~torch.isfinite(w)) & ((g == w) | (torch.isnan(g) & torch.isnan(w)))
            diff = torch.where(same_nonfinite, torch.zeros_like(diff), diff)
            diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
            bad = diff > (atol + rtol * w.abs().nan_to_num(posinf=0, neginf=0))
        else:
            bad = g != w  # integers and booleans: exact
        max_abs = max(max_abs, float(diff.max()))
        max_rel = max(max_rel, float((diff / w.abs().clamp_min(1e-12)).max()))
        here = int(bad.sum())
        if here and first < 0:
            first = begin + int(bad.nonzero()[0])
        count += here
    mismatch = ""
    if first >= 0:
        g_value, w_value = flat_got[first].item(), flat_want[first].item()
        if floating:
            mismatch = (f"[{_unravel(first, got.shape)}] = {g_value:.6g}, expected {w_value:.6g} ({count} of "
                        f"{got.numel()} elements outside atol={atol:g}, rtol={rtol:g})")
        else:
            mismatch = f"[{_unravel(first, got.shape)}] = {g_value}, expected {w_value}"
    return {"max_abs": max_abs, "max_rel": max_rel, "mismatch": mismatch}


def _unravel(flat: int, shape: torch.Size) -> str:
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return ", ".join(str(i) for i in reversed(index))


def _same(a: Any, b: Any) -> bool:
    if not isinstance(b, torch.Tensor) or a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(torch.equal(a, b)) or bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all()) \
        if a.dtype.is_floating_point else bool(torch.equal(a, b))


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 1e300


def _ahead(draw: Callable[[int], Future], indices: Iterable[int], lookahead: int) -> Iterator[list[Any]]:
    """The results of draw(index) for each index in order, with up to `lookahead` later ones started
    before each is waited for (no more: each result is a case's inputs in memory)."""
    started: deque[Future] = deque()
    for index in sorted(indices):
        started.append(draw(index))
        if len(started) > lookahead:
            yield started.popleft().result()
    while started:
        yield started.popleft().result()


def _as_moved(original: Any, moved: Any) -> Any:
    """What the inputs file holds for one argument: the CPU tensor it was drawn as, when moving it to the
    device kept its layout (strides, offset, storage size); else the device copy brought back, so that a
    candidate loads exactly what the reference was given."""
    if not isinstance(original, torch.Tensor):
        return original
    if moved is original or (moved.stride() == original.stride() and original.storage_offset() == 0
                             and moved.storage_offset() == 0
                             and moved.untyped_storage().nbytes() == original.untyped_storage().nbytes()):
        return original.detach()
    return moved.detach().cpu()


def _save_atomically(payload: dict[str, Any], path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    torch.save(payload, temporary)
    os.replace(temporary, path)
