"""Timing fidelity: is TritonGym's CUPTI timing (tritongym_worker.timing, the loop the executor runs)
stable and in agreement with the tools kernel engineers trust?

    PYTHONPATH=<folder with tritongym_worker and tritongym_native> \
      python bench/timing_fidelity.py TASKS_JSON [--only ID ...] [--out FILE.md] [--no-ncu]

Per kernel (a task's oracle at one visible shape, seed 0 inputs):
- five repeated measurements with the harness's loop (cold L2): the spread of the five medians,
  (max - min) / mean; issue 5 asks for <= 2% for kernels of 20 us and more;
- triton.testing.do_bench (its own L2 flush, median): agreement within 5%;
- Nsight Compute, `ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum` over
  the same calls in a child process: agreement within 5%.

With --variants, two more columns separate the causes of a disagreement:
- do_bench with its L2 flush made a read: do_bench clears L2 by writing zeros to 256 MB, which leaves the
  L2 full of dirty lines that the timed kernel then writes back; reading the buffer instead clears L2
  without that;
- TritonGym's loop with a warm L2 (no scrub, one input set), the lower bound of what the scrub can cost.
"""
from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import os
import statistics
import subprocess
import sys

import torch
import triton

from tritongym_worker import timing
from tritongym_worker.inputs import make_inputs

DEFAULT_KERNELS = ["standard/vector-add", "standard/softmax", "standard/rmsnorm", "standard/layernorm",
                   "standard/matmul-fp16", "standard/gelu", "standard/row-sum", "standard/transpose-2d"]
NCU_CALLS = 30


def load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_of(spec: dict):
    reference = load(spec["reference"], "reference_" + spec["id"].replace("/", "_").replace("-", "_"))
    oracle = load(spec["oracle"], "oracle_" + spec["id"].replace("/", "_").replace("-", "_"))
    entry = getattr(oracle, spec["entry_function"])
    shape = spec["visible_shapes"][0]["dims"]
    dtype = (spec.get("dtypes") or ["float32"])[0]
    inputs = make_inputs(spec.get("inputs") or [], getattr(reference, "make_inputs", None), shape, dtype, 0, "cuda")
    return entry, inputs, shape


def ncu_child(spec: dict) -> None:
    """Runs inside ncu: warm up, then NCU_CALLS calls inside the profiler range."""
    entry, inputs, _ = kernel_of(spec)
    with torch.no_grad():
        for _ in range(5):
            entry(*inputs)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        for _ in range(NCU_CALLS):
            entry(*inputs)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()


def ncu_median_us(tasks_json: str, task_id: str) -> tuple[float | None, str]:
    command = ["ncu", "--clock-control", "none", "--cache-control", "all", "--profile-from-start", "off",
               "--metrics", "gpu__time_duration.sum", "--csv", sys.executable, os.path.abspath(__file__),
               tasks_json, "--ncu-child", task_id]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    text = done.stdout
    start = text.find('"ID"')
    if start < 0:
        return None, (done.stderr or done.stdout)[-300:].replace("\n", " ")
    per_kernel = []
    for row in csv.DictReader(io.StringIO(text[start:])):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "ns")
        per_kernel.append(value * {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3,
                                   "msecond": 1e3}.get(unit, 1e-3))
    if not per_kernel:
        return None, "ncu reported no kernel"
    launches_per_call = max(1, len(per_kernel) // NCU_CALLS)
    per_call = [sum(per_kernel[i:i + launches_per_call]) for i in range(0, len(per_kernel), launches_per_call)]
    return statistics.median(per_call), f"{len(per_kernel)} launches"


def read_flush_do_bench(entry, inputs) -> float:
    """do_bench with its L2 flush reading the 256 MB buffer instead of zeroing it (median, us)."""
    driver = triton.runtime.driver.active
    original = driver.clear_cache
    driver.clear_cache = lambda cache: cache.sum()
    try:
        with torch.no_grad():
            return triton.testing.do_bench(lambda: entry(*inputs), warmup=25, rep=200, return_mode="median") * 1e3
    finally:
        driver.clear_cache = original


def warm_median_us(entry, inputs, l2: int) -> float:
    session = timing.time_functions({"k": entry}, [inputs], l2_bytes=l2, cold_l2=False)
    return session.calls["k"].summary()["median_us"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tasks_json")
    parser.add_argument("--only", nargs="*", default=DEFAULT_KERNELS)
    parser.add_argument("--out", default="")
    parser.add_argument("--no-ncu", action="store_true")
    parser.add_argument("--ncu-child", default="")
    parser.add_argument("--variants", action="store_true", help="do_bench with a read flush; warm-L2 loop")
    args = parser.parse_args()
    specs = {t["id"]: t for t in json.load(open(args.tasks_json))}
    if args.ncu_child:
        ncu_child(specs[args.ncu_child])
        return 0

    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    rows, verdicts = [], []
    for task_id in args.only:
        entry, inputs, shape = kernel_of(specs[task_id])
        medians = []
        for _ in range(5):
            session = timing.time_functions({"k": entry}, [inputs], l2_bytes=l2, cold_l2=True)
            medians.append(session.calls["k"].summary()["median_us"])
        ours = statistics.median(medians)
        spread = 100.0 * (max(medians) - min(medians)) / statistics.mean(medians)
        with torch.no_grad():
            do_bench = triton.testing.do_bench(lambda: entry(*inputs), warmup=25, rep=200, return_mode="median") * 1e3
        extra = ""
        if args.variants:
            extra = f" {read_flush_do_bench(entry, inputs):.2f} | {warm_median_us(entry, inputs, l2):.2f} |"
        ncu, note = (None, "skipped") if args.no_ncu else ncu_median_us(args.tasks_json, task_id)
        vs_do_bench = 100.0 * (ours - do_bench) / do_bench
        vs_ncu = 100.0 * (ours - ncu) / ncu if ncu else None
        ok_spread = spread <= 2.0 or ours < 20.0
        ok_bench = abs(vs_do_bench) <= 5.0
        ok_ncu = vs_ncu is not None and abs(vs_ncu) <= 5.0
        verdicts.append((ok_spread, ok_bench, ok_ncu))
        rows.append(f"| {task_id} | {shape} | {ours:.2f} | {spread:.2f}% | {do_bench:.2f} | {vs_do_bench:+.1f}% | "
                    + (f"{ncu:.2f} | {vs_ncu:+.1f}% |" if ncu else f"n/a ({note}) | n/a |") + extra)
        print(rows[-1], flush=True)
    header = ["| kernel | shape | TritonGym median us | spread of 5 medians | do_bench us | vs do_bench | ncu us | vs ncu |"
              + (" do_bench, read flush, us | TritonGym warm L2 us |" if args.variants else ""),
              "|---|---|---|---|---|---|---|---|" + ("---|---|" if args.variants else "")]
    summary = (f"spread <= 2% (kernels >= 20 us): {sum(v[0] for v in verdicts)}/{len(verdicts)}; "
               f"within 5% of do_bench: {sum(v[1] for v in verdicts)}/{len(verdicts)}; "
               f"within 5% of ncu: {sum(v[2] for v in verdicts)}/{len(verdicts)}")
    text = "\n".join(header + rows + ["", summary])
    print(summary)
    if args.out:
        open(args.out, "w").write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
