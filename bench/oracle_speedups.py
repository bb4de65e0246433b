"""Oracle speedups over PyTorch eager and torch.compile, per task and visible shape, on one GPU.

    tritongym tasks list --json --full > /tmp/tasks.json
    python bench/oracle_speedups.py /tmp/tasks.json [--only ID ...] [--out FILE.md] [--no-compile]

For each task (Gluon included), at each visible shape, with the inputs the executors generate (seed 0):
times the task's oracle, its reference in eager PyTorch, and torch.compile(reference), each with
triton.testing.do_bench (warm-up, then the median over repetitions, the L2 flushed between
repetitions: cold cache), all in this one process and run, so the ratios compare like with like.
Also checks the oracle against the reference at that shape. Prints a Markdown table; the last line
sums up. This is the issue-4 table; the harness's own CUPTI timing comes with the timing issue.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
import traceback

import torch
import triton
import json

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "plugins", "executors", "worker"))
from tritongym_worker.inputs import make_inputs  # noqa: E402
from tritongym_worker.reference import DEFAULT_TOLERANCE  # noqa: E402


def load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def close_enough(got, want, atol: float, rtol: float) -> bool:
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    return len(got) == len(want) and all(
        g.shape == w.shape and torch.allclose(g.double(), w.double(), atol=atol, rtol=rtol, equal_nan=False)
        for g, w in zip(got, want))


def bench(fn, args) -> float:
    return triton.testing.do_bench(lambda: fn(*args), warmup=25, rep=100, return_mode="median") * 1000.0  # us


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tasks_json", help="output of `tritongym tasks list --json --full`")
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--out", default="")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (slow to compile)")
    args = parser.parse_args()

    rows = []
    failures = 0
    started = time.time()
    for spec in json.load(open(args.tasks_json)):
        task_id = spec["id"]
        if args.only and task_id not in args.only:
            continue
        slug = task_id.replace("/", "_").replace("-", "_")
        try:
            reference = load(spec["reference"], f"ref_{slug}")
            oracle = load(spec["oracle"], f"oracle_{slug}")
            entry = getattr(oracle, spec["entry_function"])
            compiled = None if args.no_compile else torch.compile(reference.reference)
            dtype = (spec.get("dtypes") or ["float32"])[0]
            atol, rtol = DEFAULT_TOLERANCE.get(dtype, (1e-5, 1e-5))
            tolerance = (spec.get("tolerance") or {}).get(dtype)
            if tolerance:
                atol, rtol = tolerance.get("atol", atol), tolerance.get("rtol", rtol)
            for shape in [entry_["dims"] for entry_ in spec["visible_shapes"]]:
                inputs = make_inputs(spec.get("inputs") or [], getattr(reference, "make_inputs", None), shape,
                                     dtype, 0, "cuda")
                with torch.no_grad():
                    correct = close_enough(entry(*inputs), reference.reference(*inputs), atol, rtol)
                    oracle_us = bench(entry, inputs)
                    eager_us = bench(reference.reference, inputs)
                    compile_us = bench(compiled, inputs) if compiled else float("nan")
                dims = ", ".join(f"{k}={v}" for k, v in shape.items())
                rows.append((task_id, dims, dtype, oracle_us, eager_us, compile_us, correct))
                failures += 0 if correct else 1
                print(f"{task_id:40s} {dims:36s} oracle {oracle_us:9.1f} us  eager {eager_us:9.1f} us  "
                      f"compile {compile_us:9.1f} us  {'ok' if correct else 'MISMATCH'}", flush=True)
        except Exception as error:  # one broken task must not hide the others
            failures += 1
            rows.append((task_id, "-", "-", float("nan"), float("nan"), float("nan"), False))
            print(f"{task_id}: FAILED {type(error).__name__}: {str(error)[:300]}", flush=True)
            traceback.print_exc(limit=2)
        torch.cuda.empty_cache()

    lines = ["| task | shape | dtype | oracle us | eager us | torch.compile us | vs eager | vs compile | check |",
             "|---|---|---|---:|---:|---:|---:|---:|---|"]
    eager_ratios, compile_ratios = [], []
    for task_id, dims, dtype, oracle_us, eager_us, compile_us, correct in rows:
        vs_eager = eager_us / oracle_us if oracle_us == oracle_us and oracle_us > 0 else float("nan")
        vs_compile = compile_us / oracle_us if oracle_us == oracle_us and oracle_us > 0 else float("nan")
        if vs_eager == vs_eager:
            eager_ratios.append(vs_eager)
        if vs_compile == vs_compile:
            compile_ratios.append(vs_compile)
        lines.append(f"| {task_id} | {dims} | {dtype} | {oracle_us:.1f} | {eager_us:.1f} | {compile_us:.1f} | "
                     f"{vs_eager:.2f}x | {vs_compile:.2f}x | {'ok' if correct else 'MISMATCH'} |")
    geomean = lambda xs: statistics.geometric_mean(xs) if xs else float("nan")  # noqa: E731
    summary = (f"{len(rows)} rows, {failures} failing; geometric mean speedup {geomean(eager_ratios):.2f}x over eager, "
               f"{geomean(compile_ratios):.2f}x over torch.compile; {sum(r >= 1.0 for r in eager_ratios)} of "
               f"{len(eager_ratios)} at least as fast as eager; {time.time() - started:.0f} s; "
               f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}, triton {triton.__version__}")
    table = "\n".join(lines) + "\n\n" + summary + "\n"
    print(table)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(table)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
