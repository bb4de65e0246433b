#!/usr/bin/env python3
"""Compiles every Gluon task's oracle, and every autotuner config of its triton_baseline.py, for sm_90 on a
machine without a GPU.

Gluon has no interpreter, so `tasks check` on the CPU never runs a Gluon oracle. Triton's compiler needs no GPU
though, only a target: gluon_sm90.py (beside this script; the worker tests use it too) stands a driver in for the
missing one (target cuda:90), and this script calls each task's entry function on CPU tensors of a task shape
(the task's own inputs, drawn as the worker draws them) with every kernel launch turned into a compile (an
autotuner compiles each of its configs instead of timing them). Each kernel is compiled through PTX to a cubin by
the ptxas Triton ships, so what the Gluon frontend, its layout checks, the backend passes or ptxas refuse is found
here, with each kernel's registers, spills and shared memory. What the GPU alone can tell (correctness, speed)
is not.

    .venv/bin/python scripts/compile-gluon.py                      # every dsl task, its first visible shape
    .venv/bin/python scripts/compile-gluon.py dsl/gluon-matmul-hopper --shape all
    .venv/bin/python scripts/compile-gluon.py --tritongym build/bin/tritongym --no-baseline

The task list comes from `tritongym tasks list --split dsl --json --full` (the suite loader's reading of every
task.yaml). Exit status 1 when an oracle kernel fails to compile or needs more shared memory than an H100 block
may have (227 KiB), or when no config of a plain-Triton baseline compiles within it.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plugins", "executors", "worker"))

from gluon_sm90 import SM90_SHARED_BYTES, CompiledKernel, compile_only_sm90  # noqa: E402
from tritongym_worker.inputs import make_inputs  # noqa: E402


def _first_lines(text: str, count: int = 6) -> str:
    return " | ".join(line for line in text.strip().splitlines()[:count])


def _load(path: str, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dsl_tasks(tritongym: str, root: str, ids: list[str]) -> list[dict[str, Any]]:
    listed = subprocess.run([tritongym, "--log-level", "warn", "tasks", "list", "--split", "dsl", "--json", "--full",
                             "--root", root], capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit(f"compile-gluon: `{tritongym} tasks list` failed: {listed.stderr.strip()[-2000:]}")
    tasks = [task for task in json.loads(listed.stdout) if task.get("dsl") == "gluon"]
    if ids:
        known = {task["id"] for task in tasks}
        unknown = [i for i in ids if i not in known]
        if unknown:
            sys.exit(f"compile-gluon: no Gluon task {', '.join(unknown)} under {root} (there are: "
                     f"{', '.join(sorted(known))})")
        tasks = [task for task in tasks if task["id"] in ids]
    return tasks


def compile_entry(path: str, label: str, task: dict[str, Any], dims: dict[str, int],
                  kernels: list[CompiledKernel]) -> str:
    """Calls the entry function of `path` on CPU inputs at `dims`, its kernels compiled into `kernels`; '' or the
    error that stopped it."""
    reference = _load(os.path.join(task["directory"], "reference.py"), f"{label}_reference")
    inputs = make_inputs(task.get("inputs") or [], getattr(reference, "make_inputs", None), dims, task["dtypes"][0],
                         seed=0, device="cpu")
    entry = getattr(_load(path, label), task["entry_function"], None)
    if entry is None:
        return f"{os.path.basename(path)} defines no {task['entry_function']}"
    try:
        with compile_only_sm90(keep_going=True) as compiled:
            try:
                entry(*inputs)
            finally:
                kernels.extend(compiled)
    except Exception as error:
        return f"{type(error).__name__}: {_first_lines(str(error))}"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*", help="task ids (default: every Gluon task)")
    parser.add_argument("--root", default=os.path.join(ROOT, "tasks"), help="the suites folder")
    parser.add_argument("--tritongym", default=os.path.join(ROOT, "build", "bin", "tritongym"),
                        help="the tritongym binary that lists the tasks")
    parser.add_argument("--shape", default="visible-0", help="a shape name, or `all` (visible and held-out)")
    parser.add_argument("--no-baseline", action="store_true", help="compile the oracles only")
    arguments = parser.parse_args()

    failures: list[str] = []
    for task in dsl_tasks(arguments.tritongym, arguments.root, arguments.ids):
        shapes = task["visible_shapes"] + task["held_out_shapes"]
        if arguments.shape != "all":
            shapes = [shape for shape in shapes if shape["name"] == arguments.shape]
        if not shapes:
            failures.append(f"{task['id']}: no shape named {arguments.shape}")
            continue
        files = [("oracle", os.path.join(task["directory"], "oracle.py"))]
        baseline = os.path.join(task["directory"], "triton_baseline.py")
        if not arguments.no_baseline and os.path.exists(baseline):
            files.append(("triton_baseline", baseline))
        for shape in shapes:
            for label, path in files:
                kernels: list[CompiledKernel] = []
                began = time.monotonic()
                stopped = compile_entry(path, label, task, shape["dims"], kernels)
                where = f"{task['id']} {shape['name']} {shape['dims']} {label}"
                print(f"{where}: {time.monotonic() - began:.0f} s")
                fitting = 0
                for kernel in kernels:
                    if kernel.error:
                        print(f"  {kernel}")
                        continue
                    fits = kernel.shared_bytes <= SM90_SHARED_BYTES
                    fitting += fits
                    print(f"  {kernel} ({kernel.frontend}){'' if fits else ' (OVER 227 KiB: would not launch)'}, "
                          f"ptx has {', '.join(kernel.features) or '-'}")
                    if label == "oracle" and not fits:
                        failures.append(f"{where}: {kernel.name} needs {kernel.shared_bytes} B of shared memory")
                    if label == "oracle" and kernel.frontend != "gluon":
                        failures.append(f"{where}: {kernel.name} is not a Gluon kernel")
                if stopped:
                    print(f"  stopped: {stopped}")
                    failures.append(f"{where}: {stopped}")
                elif label == "triton_baseline" and kernels and not fitting:
                    failures.append(f"{where}: no config compiles within 227 KiB of shared memory")
    if failures:
        print("\nFAILED:\n" + "\n".join("  " + failure for failure in failures))
        return 1
    print("\nall compiled for sm_90")
    return 0


if __name__ == "__main__":
    sys.exit(main())
