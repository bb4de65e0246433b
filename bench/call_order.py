"""Does a function timed among others read faster for the input set the call before it read?

The reference worker times eager, torch.compile and the oracle interleaved call by call (timing.time_functions).
Until 2026-12-02 a round took one input set for all three, so the second and third call of a round read what
the first had just read, with one scrub of twice the L2 between; since then each call takes the next input set
(timing.call_order). This bench times one task's oracle under three names, interleaved, both ways, and alone,
on cold L2, with the harness's own loop (CUPTI, the scrub before every call), given the old order
(`one_set_per_round`) or its own (`timing.call_order`).

    python bench/call_order.py TASKS_JSON [--task standard/layernorm ...] [--shapes visible|all]
        [--sets 4] [--target-seconds 0.3] [--out FILE.md]

TASKS_JSON is `tritongym tasks list --json --full`. Per task, shape and dtype: the median µs of each name in
each order, and of the oracle alone. Needs a GPU and the native module (PYTHONPATH: the bundle's plugins/python).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from typing import Any, Sequence

try:
    from tritongym_worker import timing
except ImportError:  # from a checkout: the worker package beside the executor's sources
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plugins", "executors", "worker"))
    from tritongym_worker import timing
from tritongym_worker.inputs import make_inputs  # noqa: E402

NAMES = ("first", "second", "third")


def one_set_per_round(names: Sequence[str], rounds: int, sets: int) -> list[tuple[str, int]]:
    """The loop's order before 2026-12-02: every function of round r on input set r % sets."""
    return [(name, round_index % sets) for round_index in range(rounds) for name in names]


def load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(task: dict[str, Any], which: str, set_count: int, target_seconds: float) -> list[dict[str, Any]]:
    import torch

    slug = task["id"].replace("/", "_").replace("-", "_")
    reference = load(task["reference"], f"reference_{slug}")
    oracle = getattr(load(task["oracle"], f"oracle_{slug}"), task["entry_function"])
    l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size
    shapes = task["visible_shapes"] + (task.get("held_out_shapes", []) if which == "all" else [])
    rows = []
    for shape in shapes:
        for dtype in task.get("dtypes") or ["float32"]:
            sets = [make_inputs(task.get("inputs") or [], getattr(reference, "make_inputs", None), shape["dims"],
                                dtype, seed, "cuda", draw_on_device=True) for seed in range(set_count)]
            # Three names for one kernel: wrappers, so that each is a function of its own to the loop.
            functions = {name: (lambda *values: oracle(*values)) for name in NAMES}
            row: dict[str, Any] = {"task": task["id"], "shape": shape["name"], "dtype": dtype}
            for order, order_of in (("per round", one_set_per_round), ("per call", timing.call_order)):
                session = timing.time_functions(functions, sets, l2_bytes=l2_bytes, cold_l2=True,
                                                target_seconds=target_seconds, order_of=order_of)
                row[order] = {name: session.calls[name].summary()["median_us"] for name in NAMES}
            alone = timing.time_functions({"alone": oracle}, sets, l2_bytes=l2_bytes, cold_l2=True,
                                          target_seconds=target_seconds)
            row["alone"] = alone.calls["alone"].summary()["median_us"]
            print(json.dumps(row), flush=True)
            rows.append(row)
            del sets, functions
            torch.cuda.empty_cache()
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| task | shape | dtype | per round: first / second / third µs | per call: first / second / third µs "
             "| alone µs | per round, third / first | per call, third / first |",
             "|---|---|---|---|---|---:|---:|---:|"]
    for row in rows:
        cells = [" / ".join(f"{row[order][name]:.2f}" for name in NAMES) for order in ("per round", "per call")]
        ratios = [row[order]["third"] / row[order]["first"] for order in ("per round", "per call")]
        lines.append(f"| {row['task']} | {row['shape']} | {row['dtype']} | {cells[0]} | {cells[1]} | "
                     f"{row['alone']:.2f} | {ratios[0]:.3f} | {ratios[1]:.3f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tasks_json")
    parser.add_argument("--task", action="append", default=[], help="a task id (default: standard/layernorm)")
    parser.add_argument("--shapes", choices=("visible", "all"), default="visible")
    parser.add_argument("--sets", type=int, default=4, help="input sets, as the executor's timing_input_sets")
    parser.add_argument("--target-seconds", type=float, default=0.3)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    with open(args.tasks_json) as handle:
        tasks = {task["id"]: task for task in json.load(handle)}
    wanted = args.task or ["standard/layernorm"]
    unknown = [name for name in wanted if name not in tasks]
    if unknown:
        sys.exit(f"unknown task(s): {', '.join(unknown)}")
    rows = []
    for name in wanted:
        rows += measure(tasks[name], args.shapes, args.sets, args.target_seconds)
    text = table(rows)
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
