"""Oracle speedups over PyTorch eager and torch.compile, per task and visible shape, on one GPU.

    tritongym tasks list --json --full > /tmp/tasks.json
    python bench/oracle_speedups.py /tmp/tasks.json [--only ID ...] [--out FILE.md] [--no-compile]
                                    [--warm-jobs N] [--deadline SECONDS] [--shapes visible|all]

For each task (Gluon included), at each visible shape, with the inputs the executors generate (seed 0,
the task's first dtype): times the task's oracle, its reference in eager PyTorch, and
torch.compile(reference, dynamic=False), each with triton.testing.do_bench (warm-up, then the median
over repetitions, the L2 flushed between repetitions: cold cache), all in this one process and run, so
the ratios compare like with like. Also checks the oracle against the reference at that shape with the
executor's own comparison (tritongym_worker.reference._compare_tensors, the task's tolerance).

--warm-jobs N first runs N child processes that only compile (each calls the oracle and the compiled
reference once per shape), filling Triton's and Inductor's on-disk caches in parallel; the timed pass
then mostly hits those caches. Nothing the children do is timed. --deadline stops starting new tasks
after that many seconds (the table written so far stays; the tasks left are listed, for a later --only).
The Markdown table is rewritten after every task, so an interrupted run keeps what it measured.
This is the issue-4 table; the harness's own CUPTI timing comes with the timing issue.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
import traceback

os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "1")

import torch  # noqa: E402
import triton  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plugins", "executors", "worker"))
from tritongym_worker.inputs import make_inputs  # noqa: E402
from tritongym_worker.reference import DEFAULT_TOLERANCE, _compare_tensors  # noqa: E402


def load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(got, want, atol: float, rtol: float) -> str:
    """'' when the oracle's outputs match the reference's as the executor judges them, else why not."""
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    want = list(want) if isinstance(want, (tuple, list)) else [want]
    if len(got) != len(want):
        return f"{len(got)} outputs, expected {len(want)}"
    for index, (g, w) in enumerate(zip(got, want)):
        if not isinstance(g, torch.Tensor) or tuple(g.shape) != tuple(w.shape) or g.dtype != w.dtype:
            return f"output {index}: {getattr(g, 'shape', type(g))} {getattr(g, 'dtype', '')}, expected " \
                   f"{tuple(w.shape)} {w.dtype}"
        verdict = _compare_tensors(g, w, atol, rtol)
        if verdict["mismatch"]:
            return f"output {index}{verdict['mismatch']}"
    return ""


DEVICE = "cuda"


def bench(fn, args) -> float:
    if DEVICE == "cpu":  # only a smoke test of this script (--device cpu, TRITON_INTERPRET=1)
        begin = time.perf_counter()
        fn(*args)
        return (time.perf_counter() - begin) * 1e6
    return triton.testing.do_bench(lambda: fn(*args), warmup=25, rep=100, return_mode="median") * 1000.0  # us


def tolerance_of(spec: dict, dtype: str) -> tuple[float, float]:
    atol, rtol = DEFAULT_TOLERANCE.get(dtype, (1e-5, 1e-5))
    tolerance = (spec.get("tolerance") or {}).get(dtype)
    if tolerance:
        atol, rtol = tolerance.get("atol", atol), tolerance.get("rtol", rtol)
    return atol, rtol


def shapes_of(spec: dict, which: str) -> list[dict]:
    if which == "small":
        return [entry["dims"] for entry in spec.get("small_shapes", [])]
    shapes = [entry["dims"] for entry in spec["visible_shapes"]]
    if which == "all":
        shapes += [entry["dims"] for entry in spec.get("held_out_shapes", [])]
    return shapes


def prepare(spec: dict, no_compile: bool):
    slug = spec["id"].replace("/", "_").replace("-", "_")
    reference = load(spec["reference"], f"ref_{slug}")
    oracle = load(spec["oracle"], f"oracle_{slug}")
    entry = getattr(oracle, spec["entry_function"])
    compiled = None if no_compile else torch.compile(reference.reference, dynamic=False)
    return reference, entry, compiled


def warm(specs: list[dict], which: str, no_compile: bool) -> int:
    """A warm-up child: compile everything once (fills the on-disk caches); times nothing."""
    for spec in specs:
        started = time.time()
        try:
            reference, entry, compiled = prepare(spec, no_compile)
            dtype = (spec.get("dtypes") or ["float32"])[0]
            for shape in shapes_of(spec, which):
                inputs = make_inputs(spec.get("inputs") or [], getattr(reference, "make_inputs", None), shape,
                                     dtype, 0, DEVICE)
                with torch.no_grad():
                    entry(*inputs)
                    if compiled is not None:
                        try:
                            compiled(*inputs)
                        except Exception as error:  # the timed pass reports it
                            print(f"warm {spec['id']}: torch.compile failed: {str(error)[:200]}", flush=True)
                if DEVICE == "cuda":
                    torch.cuda.synchronize()
                del inputs
        except Exception as error:
            print(f"warm {spec['id']}: {type(error).__name__}: {str(error)[:200]}", flush=True)
        if DEVICE == "cuda":
            torch.cuda.empty_cache()
        print(f"warm {spec['id']}: {time.time() - started:.1f} s", flush=True)
    return 0


def fmt(value: float, digits: int = 1) -> str:
    return f"{value:.{digits}f}" if value == value else "n/a"


def write_table(rows, skipped, started, out: str) -> str:
    lines = ["| task | shape | dtype | oracle µs | eager µs | torch.compile µs | vs eager | vs compile | correct |",
             "|---|---|---|---:|---:|---:|---:|---:|---|"]
    eager_ratios, compile_ratios, slower = [], [], []
    for task_id, dims, dtype, oracle_us, eager_us, compile_us, problem in rows:
        ok = oracle_us == oracle_us and oracle_us > 0
        vs_eager = eager_us / oracle_us if ok else float("nan")
        vs_compile = compile_us / oracle_us if ok else float("nan")
        if vs_eager == vs_eager:
            eager_ratios.append(vs_eager)
            if vs_eager < 1.0:
                slower.append(f"{task_id} ({dims}): {vs_eager:.2f}x")
        if vs_compile == vs_compile:
            compile_ratios.append(vs_compile)
        lines.append(f"| {task_id} | {dims} | {dtype} | {fmt(oracle_us)} | {fmt(eager_us)} | {fmt(compile_us)} | "
                     f"{fmt(vs_eager, 2)}{'x' * (vs_eager == vs_eager)} | {fmt(vs_compile, 2)}{'x' * (vs_compile == vs_compile)} | {'yes' if not problem else 'NO: ' + problem[:160]} |")
    geomean = lambda xs: statistics.geometric_mean(xs) if xs else float("nan")  # noqa: E731
    failures = sum(1 for row in rows if row[6])
    over_compile = f"{geomean(compile_ratios):.2f}x over torch.compile" if compile_ratios else "torch.compile not timed"
    summary = (f"{len(rows)} rows, {failures} failing; geometric mean speedup {geomean(eager_ratios):.2f}x over eager, "
               f"{over_compile}; {sum(r >= 1.0 for r in eager_ratios)} of "
               f"{len(eager_ratios)} at least as fast as eager; {time.time() - started:.0f} s; "
               f"{torch.cuda.get_device_name(0) if DEVICE == 'cuda' else 'cpu'}, torch {torch.__version__}, triton {triton.__version__}")
    text = "\n".join(lines) + "\n\n" + summary + "\n"
    if slower:
        text += "\nslower than eager: " + "; ".join(slower) + "\n"
    if skipped:
        text += "\nnot measured (deadline): " + " ".join(skipped) + "\n"
    if out:
        with open(out + ".tmp", "w") as handle:
            handle.write(text)
        os.replace(out + ".tmp", out)
    return text


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tasks_json", help="output of `tritongym tasks list --json --full`")
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--out", default="")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (slow to compile)")
    parser.add_argument("--shapes", choices=["visible", "all", "small"], default="visible")
    parser.add_argument("--warm-jobs", type=int, default=0, help="child processes that fill the compile caches first")
    parser.add_argument("--warm-only", action="store_true", help="(a warm-up child) compile, time nothing")
    parser.add_argument("--warm-only-and-exit", action="store_true", help="run the --warm-jobs children, then stop")
    parser.add_argument("--device", default="cuda", help="cpu: a smoke test of this script only")
    parser.add_argument("--deadline", type=float, default=0.0, help="start no task after this many seconds")
    args = parser.parse_args()

    global DEVICE
    DEVICE = args.device
    specs = [spec for spec in json.load(open(args.tasks_json)) if not args.only or spec["id"] in args.only]
    if args.warm_only:
        return warm(specs, args.shapes, args.no_compile)

    started = time.time()
    if args.warm_jobs > 0:
        children = []
        for job in range(args.warm_jobs):
            ids = [spec["id"] for spec in specs[job::args.warm_jobs]]
            if not ids:
                continue
            env = dict(os.environ, TORCHINDUCTOR_COMPILE_THREADS="1")
            command = [sys.executable, os.path.abspath(__file__), args.tasks_json, "--warm-only", "--shapes",
                       args.shapes, "--device", args.device, "--only", *ids] + (["--no-compile"] if args.no_compile else [])
            children.append(subprocess.Popen(command, env=env))
        for child in children:
            child.wait()
        print(f"warm-up: {time.time() - started:.0f} s with {len(children)} processes", flush=True)
        if args.warm_only_and_exit:
            return 0

    rows, skipped = [], []
    for spec in specs:
        task_id = spec["id"]
        if args.deadline and time.time() - started > args.deadline:
            skipped.append(task_id)
            continue
        task_started = time.time()
        dtype = (spec.get("dtypes") or ["float32"])[0]
        try:
            reference, entry, compiled = prepare(spec, args.no_compile)
        except Exception as error:  # one broken task must not hide the others
            rows.append((task_id, "-", dtype, float("nan"), float("nan"), float("nan"),
                         f"{type(error).__name__}: {str(error)[:200]}"))
            print(f"{task_id}: FAILED {type(error).__name__}: {str(error)[:300]}", flush=True)
            continue
        atol, rtol = tolerance_of(spec, dtype)
        for shape in shapes_of(spec, args.shapes):
            dims = ", ".join(f"{k}={v}" for k, v in shape.items())
            oracle_us = eager_us = compile_us = float("nan")
            try:
                inputs = make_inputs(spec.get("inputs") or [], getattr(reference, "make_inputs", None), shape,
                                     dtype, 0, DEVICE)
                with torch.no_grad():
                    problem = check(entry(*inputs), reference.reference(*inputs), atol, rtol)
                    oracle_us = bench(entry, inputs)
                    eager_us = bench(reference.reference, inputs)
                    if compiled is not None:
                        try:
                            compile_us = bench(compiled, inputs)
                        except Exception as error:
                            print(f"{task_id} {dims}: torch.compile failed: {str(error)[:300]}", flush=True)
                del inputs
            except Exception as error:
                problem = f"{type(error).__name__}: {str(error)[:200]}"
                traceback.print_exc(limit=3)
            rows.append((task_id, dims, dtype, oracle_us, eager_us, compile_us, problem))
            print(f"{task_id:40s} {dims:36s} oracle {oracle_us:9.1f} us  eager {eager_us:9.1f} us  "
                  f"compile {compile_us:9.1f} us  {'ok' if not problem else 'MISMATCH ' + problem[:200]}", flush=True)
        if DEVICE == "cuda":
            torch.cuda.empty_cache()
        print(f"  ({time.time() - task_started:.1f} s)", flush=True)
        write_table(rows, skipped, started, args.out)

    text = write_table(rows, skipped, started, args.out)
    print(text)
    return 1 if any(row[6] for row in rows) or skipped else 0


if __name__ == "__main__":
    sys.exit(main())
