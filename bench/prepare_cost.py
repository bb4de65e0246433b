"""What the reference worker's `prepare` costs (inputs drawn, reference computed, both written as files),
against the same operation at an earlier git revision, in the same run.

    PYTHONPATH=plugins/executors/worker python bench/prepare_cost.py TASKS_JSON [--against REV]
        [--task ID ...] [--shape visible|small] [--seeds N] [--device cuda|cpu]

`TASKS_JSON` is `tritongym tasks list --json --full`. For each task, every dtype of its first shape (visible
by default) and N seeds, it prepares all cases into a fresh folder with the worker package of this tree and
with the one at REV (default: the commit before the pipelined prepare), alternating, twice each; the faster
run of each is kept. Both write the same files (checked here: values, dtypes and strides). On the CPU the
reference also runs on the CPU, so the figures say more about the GPU's case when run there.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PACKAGE = os.path.join(ROOT, "plugins", "executors", "worker")


def package_at(revision: str, into: str) -> str:
    """A copy of the worker package with the files `prepare` uses taken from `revision`."""
    shutil.copytree(os.path.join(PACKAGE, "tritongym_worker"), os.path.join(into, "tritongym_worker"))
    for name in ("reference.py", "inputs.py"):
        text = subprocess.run(["git", "-C", ROOT, "show", f"{revision}:plugins/executors/worker/tritongym_worker/{name}"],
                              check=True, capture_output=True, text=True).stdout
        with open(os.path.join(into, "tritongym_worker", name), "w") as handle:
            handle.write(text)
    return into


def load_role(package: str):
    """ReferenceRole from `package`, as a module tree of its own."""
    for name in [n for n in sys.modules if n == "tritongym_worker" or n.startswith("tritongym_worker.")]:
        del sys.modules[name]
    sys.path.insert(0, package)
    try:
        return importlib.import_module("tritongym_worker.reference").ReferenceRole
    finally:
        sys.path.remove(package)


def plan(task: dict, shape_set: str, seeds: int, folder: str) -> list[dict]:
    shape = (task.get(f"{shape_set}_shapes") or task["visible_shapes"])[0]
    return [{"key": f"{dtype}-{seed}", "dims": shape["dims"], "dtype": dtype, "seed": 1000 + seed,
             "inputs": os.path.join(folder, f"in-{dtype}-{seed}.pt"),
             "reference": os.path.join(folder, f"ref-{dtype}-{seed}.pt")}
            for dtype in task.get("dtypes") or ["float32"] for seed in range(seeds)]


def same_files(left: str, right: str) -> bool:
    import torch

    for name in sorted(os.listdir(left)):
        a = torch.load(os.path.join(left, name), weights_only=True)
        b = torch.load(os.path.join(right, name), weights_only=True)
        for x, y in zip(*(next(iter(d.values())) for d in (a, b))):
            if isinstance(x, torch.Tensor):
                if not (isinstance(y, torch.Tensor) and x.dtype == y.dtype and x.stride() == y.stride()
                        and torch.equal(x, y)):
                    return False
            elif x != y:
                return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tasks_json")
    parser.add_argument("--against", default="ce360d0")
    parser.add_argument("--task", action="append", default=[])
    parser.add_argument("--shape", choices=["visible", "small"], default="visible")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    import torch

    device = args.device if args.device == "cpu" or torch.cuda.is_available() else "cpu"
    tasks = {t["id"]: t for t in json.load(open(args.tasks_json))}
    chosen = args.task or ["standard/gelu", "standard/adam-step", "standard/layernorm", "standard/attention-causal"]
    scratch = tempfile.mkdtemp(prefix="tritongym-prepare-cost-")
    try:
        return run(args, tasks, chosen, device, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run(args: argparse.Namespace, tasks: dict, chosen: list[str], device: str, scratch: str) -> int:
    import torch

    roles = {"before": load_role(package_at(args.against, os.path.join(scratch, "before"))),
             "now": load_role(PACKAGE)}
    print(f"device {device}, torch {torch.__version__}, against {args.against}, {args.seeds} seeds, "
          f"{torch.get_num_threads()} CPU threads")
    print("| task | shape | cases | before s | now s | now / before | same files |")
    print("|---|---|---:|---:|---:|---:|---|")
    for task_id in chosen:
        task = tasks[task_id]
        best = {"before": float("inf"), "now": float("inf")}
        folders = {}
        for attempt in range(2):
            for name, role_class in roles.items():
                folder = os.path.join(scratch, f"{name}-{attempt}-{task_id.replace('/', '_')}")
                request = {"task": {"id": task_id, "reference_path": task["reference"], "inputs": task.get("inputs", [])},
                           "cases": plan(task, args.shape, args.seeds, folder)}
                role = role_class(device)
                if device == "cuda":
                    torch.cuda.synchronize()
                started = time.perf_counter()
                role.prepare(request)
                best[name] = min(best[name], time.perf_counter() - started)
                folders[name] = folder
        same = same_files(folders["before"], folders["now"])
        dims = (task.get(f"{args.shape}_shapes") or task["visible_shapes"])[0]["dims"]
        print(f"| {task_id} | {dims} | {len(request['cases'])} | {best['before']:.2f} | {best['now']:.2f} | "
              f"{best['now'] / best['before']:.2f} | {'yes' if same else 'NO'} |", flush=True)
        for name in list(os.listdir(scratch)):
            if name.startswith(("before-", "now-")):
                shutil.rmtree(os.path.join(scratch, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
