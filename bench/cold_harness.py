"""One candidate, judged the way KernelBench-style harnesses do it: a fresh Python process that imports
torch and triton, loads the task's reference and the candidate, makes inputs, checks the candidate at
each visible shape in each of the task's dtypes (the cases the warm pool checks) and times each with
triton.testing.do_bench (cold L2). The baseline for bench/eval_throughput.py; prints one JSON line.

    python bench/cold_harness.py TASK_JSON_FILE TASK_ID CANDIDATE.py [cuda|cpu]

On `cpu` (with TRITON_INTERPRET=1) it checks at the task's small shapes, as the interpreter executor
does, and times nothing: do_bench needs a GPU.
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys
import time

started = time.perf_counter()
import torch  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "plugins", "executors", "worker"))
from tritongym_worker.diagnostics import autotune_choices  # noqa: E402
from tritongym_worker.inputs import make_inputs  # noqa: E402
from tritongym_worker.reference import DEFAULT_TOLERANCE  # noqa: E402


def load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    tasks_file, task_id, candidate_path = sys.argv[1:4]
    device = sys.argv[4] if len(sys.argv) > 4 else "cuda"
    spec = next(t for t in json.load(open(tasks_file)) if t["id"] == task_id)
    shapes = spec["small_shapes"] if device == "cpu" and spec.get("small_shapes") else spec["visible_shapes"]
    reference = load(spec["reference"], "reference")
    verdict, detail, timings = "passed", "", []
    try:
        candidate = load(candidate_path, "candidate")
        entry = getattr(candidate, spec["entry_function"])
    except Exception as error:  # noqa: BLE001
        verdict, detail = "compile_error", f"{type(error).__name__}: {error}"
    # Every visible shape in every dtype the task lists, as the warm pool plans its cases (plan_cases in
    # triton_executor.cpp): until 2026-12-01 this harness checked the first dtype only, half the work the warm
    # pool did on the 8 two-dtype tasks of the bench.
    cases = [(shape, dtype) for shape in shapes for dtype in (spec.get("dtypes") or ["float32"])]
    for shape, dtype in cases if verdict == "passed" else []:
        atol, rtol = DEFAULT_TOLERANCE.get(dtype, (1e-5, 1e-5))
        tolerance = (spec.get("tolerance") or {}).get(dtype)
        if tolerance:
            atol, rtol = tolerance.get("atol", atol), tolerance.get("rtol", rtol)
        inputs = make_inputs(spec.get("inputs") or [], getattr(reference, "make_inputs", None), shape["dims"],
                             dtype, 1234, device)
        with torch.no_grad():
            want = reference.reference(*inputs)
            try:
                got = entry(*inputs)
                if device == "cuda":
                    torch.cuda.synchronize()
            except Exception as error:  # noqa: BLE001
                verdict, detail = "runtime_error", f"{type(error).__name__}: {error}"
                break
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        want = list(want) if isinstance(want, (list, tuple)) else [want]
        if len(got) != len(want) or not all(
                isinstance(g, torch.Tensor) and g.shape == w.shape and
                torch.allclose(g.double(), w.double(), atol=atol, rtol=rtol) for g, w in zip(got, want)):
            verdict, detail = "wrong_answer", f"mismatch at {shape['dims']} {dtype}"
            break
        if device == "cuda":
            timings.append(triton.testing.do_bench(lambda: entry(*inputs), warmup=25, rep=100) * 1000.0)
    seconds = time.perf_counter() - started
    choices = autotune_choices(candidate) if verdict != "compile_error" else {}
    print(json.dumps({"task": task_id, "code": candidate_path, "verdict": verdict, "detail": detail[:200],
                      "median_us": timings, "seconds": seconds, **({"autotune_choices": choices} if choices else {})}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
