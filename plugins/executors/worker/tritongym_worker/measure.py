"""The timing stages of a candidate, inside its sandboxed child: time it at each shape, keep the
outputs of the timed calls for the trusted re-check, and collect what looks like cheating.

The child runs this after the candidate passed its correctness cases. What comes back per shape:
the CUPTI median and its cross-checks, the kernel table of the median call, where its time went
(library or candidate kernels), and the reasons to flag it (timing.cross_check, integrity, provenance).
The reference worker re-checks the saved outputs and adds the baselines and the speed-of-light floor.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import torch

from . import handover, integrity, provenance, timing


def time_candidate(entry: Callable[..., Any], plan: dict[str, Any], snapshot: "integrity.Snapshot",
                   threads_before: "integrity.ThreadBaseline", persisting_l2_before: int,
                   compiled_names: list[str], timed: Callable[[], None] | None = None,
                   window: "timing.WindowTrace | None" = None) -> dict[str, Any]:
    """`plan`: {"l2_bytes" (0: this device's), "cold_l2", "target_seconds", "allowed_library_kernels",
    "tolerance": {"dtype", "atol"?, "rtol"?}, "shapes": [{"key", "sets": [inputs .pt], "recheck": [{"set", "output"}]}]}.
    `compiled_names`: the kernels the candidate's module compiled (its own Triton kernels).

    Shape by shape: the timed calls, then at once the hand-over of their outputs, before any other call of the
    candidate (a later call could otherwise finish the work of the timed ones, outside the timed window: the
    adversarial candidate deferred_completion.py). Then `timed()` (the GPU need not be this child's alone any
    longer: gpu_turns.timed_calls_done), then the determinism check of every shape.

    `window`: CUPTI over all of it up to `timed()`, every piece of GPU work an item of the report's "window"
    (timing.WindowTrace), which the host holds against the device's own counters."""
    device = f"cuda:{torch.cuda.current_device()}"
    l2_bytes = int(plan.get("l2_bytes") or torch.cuda.get_device_properties(device).L2_cache_size)
    # Seconds; timed_calls is the whole of the timing loop, of which warm_up, calls and collect are parts.
    phases = {"load_sets": 0.0, "timed_calls": 0.0, "warm_up": 0.0, "calls": 0.0, "collect": 0.0,
              "save_outputs": 0.0, "determinism": 0.0}
    shapes = []
    kept = []  # per shape, what the determinism check needs afterwards: its first input set, and what to close
    if window is not None:
        window.start()
    for index, shape in enumerate(plan.get("shapes", [])):
        # Loaded once: the copies are timed, and the originals (on the CPU from files, or the reference
        # worker's exported block, mapped) show afterwards whether a timed call changed its inputs.
        clock = time.perf_counter()
        loaded = [handover.load_inputs(source) for source in shape["sets"]]
        originals = [values for values, _ in loaded]
        input_sets = [[v.to(device, copy=True) if isinstance(v, torch.Tensor) else v for v in values]
                      for values in originals]
        phases["load_sets"] += time.perf_counter() - clock
        clock = time.perf_counter()
        session = timing.time_functions({"candidate": entry}, input_sets, l2_bytes=l2_bytes,
                                        cold_l2=bool(plan.get("cold_l2", True)),
                                        target_seconds=float(plan.get("target_seconds", 0.4)), keep_outputs=True,
                                        window=window, shape=index)
        for part, seconds in session.seconds.items():
            phases[part] += seconds
        times = session.calls["candidate"]
        kernels = timing.kernel_table(times)
        allowed = plan.get("allowed_library_kernels", [])
        for kernel in kernels:
            kernel["owner"] = "library" if provenance.library_family(kernel["name"]) else "candidate"
        where = provenance.summarize([{"name": k["name"], "us": k["total_us"]} for k in kernels],
                                     allowed, compiled_names or None)
        flags = timing.cross_check(times, session.harness_stream, session.outside)
        flags += _l2_flags(persisting_l2_before)
        if where.get("reason"):
            flags.append("provenance: " + where["reason"])
        phases["timed_calls"] += time.perf_counter() - clock
        clock = time.perf_counter()
        rechecks = []  # per re-checked set, what the GPU data plane's reference worker is told
        for check in shape.get("recheck", []):
            outputs = times.outputs.get(int(check["set"]))
            outputs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
            if not all(integrity.is_plain_tensor(o) for o in outputs):
                flags.append("integrity: a timed call returned something other than plain tensors")
                rechecks.append({"set": int(check["set"]), "output_problem": "a timed call returned something "
                                 "other than plain tensors"})
                continue
            index = int(check["set"])
            rechecks.append({"set": index, **handover.give_outputs(check["output"], outputs, input_sets[index], originals[index])})
        phases["save_outputs"] += time.perf_counter() - clock
        shapes.append({"key": shape["key"], **times.summary(), "cold_l2": session.cold_l2, "kernels": kernels,
                       "library_fraction": where.get("library_fraction", 0.0), "flags": flags, "rechecks": rechecks})
        kept.append((input_sets[0], loaded))
        del input_sets, originals, times, session
    # The window ends before the host is told: everything the GPU did for this child until now is in its items.
    traced = {"items": window.stop(max(len(shapes) - 1, 0))} if window is not None else None
    # What follows are checks, not timings: other evaluations may use the GPU meanwhile.
    replaced = snapshot.changed()
    alive = integrity.threads_alive(threads_before)
    if timed is not None:
        timed()
    for report, (first_set, loaded) in zip(shapes, kept):
        clock = time.perf_counter()
        report["flags"] += _determinism(entry, first_set, *_tolerance(plan.get("tolerance", {})))
        phases["determinism"] += time.perf_counter() - clock
        for _, imported in loaded:
            if imported is not None:
                handover.close_quietly(imported)
    del kept
    # Again after the determinism calls: the candidate ran once more, and a replacement then is reported too.
    replaced += [name for name in snapshot.changed() if name not in replaced]
    common = [f"integrity: {name} was replaced by the candidate" for name in replaced]
    common += [f"integrity: thread(s) still running after the timed calls: {', '.join(alive)}"] if alive else []
    common += [flag for flag in _l2_flags(persisting_l2_before) if not any(flag in shape["flags"] for shape in shapes)]
    report = {"shapes": shapes, "flags": common, "cupti": timing.native().cupti_library(), "phases": phases}
    if traced is not None:
        report["window"] = traced
    return report


def _l2_flags(persisting_l2_before: int) -> list[str]:
    """Checked after every shape and at the end: a set-aside that changed and a window on the stream
    (a candidate that pins and unpins around each call still leaves them set during some shape)."""
    flags = []
    window = integrity.persisting_window_bytes(torch.cuda.current_stream().cuda_stream) or 0
    if window:
        flags.append(f"integrity: the candidate put a persisting L2 access-policy window of {window} bytes on the "
                     "stream; data pinned in L2 across calls defeats cold-cache timing")
    persisting = integrity.persisting_l2_bytes() or 0
    if persisting > persisting_l2_before:
        flags.append(f"integrity: the candidate raised the persisting L2 set-aside from {persisting_l2_before} to "
                     f"{persisting} bytes; data pinned in L2 across calls defeats cold-cache timing")
    return flags


def _tolerance(given: dict[str, Any]) -> tuple[float, float]:
    from .reference import DEFAULT_TOLERANCE

    atol, rtol = DEFAULT_TOLERANCE.get(given.get("dtype", "float32"), (1e-5, 1e-5))
    return float(given.get("atol", atol)), float(given.get("rtol", rtol))


def _determinism(entry: Callable[..., Any], values: list[Any], atol: float, rtol: float) -> list[str]:
    """Two calls on identical inputs must agree within the task's tolerance (bitwise equality is not
    required: atomics in a split reduction legitimately reorder float additions)."""
    with torch.no_grad():
        first = entry(*values)
        first = [o.clone() for o in (first if isinstance(first, (tuple, list)) else [first])
                 if isinstance(o, torch.Tensor)]
        second = entry(*values)
        second = [o for o in (second if isinstance(second, (tuple, list)) else [second]) if isinstance(o, torch.Tensor)]
    if any(o.is_cuda for o in first + second):
        torch.cuda.synchronize()
    if len(first) != len(second) or not all(
            a.shape == b.shape and torch.allclose(a.double(), b.double(), atol=atol, rtol=rtol, equal_nan=True)
            for a, b in zip(first, second)):
        return ["determinism: two calls on identical inputs gave results that differ beyond the task's tolerance"]
    return []
