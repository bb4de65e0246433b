"""What making the next task's cases ahead (the executor's `prepare_ahead`, Executor::expect) changes in
`tritongym tasks check`: the same tasks checked with it on and off, alternating (on, off, off, on, ...), each
run a fresh `tritongym` process, in one call on one machine. Prints each run's wall time, its tasks' own
times, and the ratio of the medians (off / on: above 1, making cases ahead made the sweep faster).

    python bench/sweep_ahead.py --tritongym build/bin/tritongym [--rounds 2] [--executor ID] [TASK ...]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

# Tasks whose references are heavy at the held-out shapes (matmuls, attention, convolutions, norms), so that
# making the next one's cases is worth measuring.
DEFAULT_TASKS = ["standard/matmul-bf16", "standard/attention-prefill", "standard/conv2d-nhwc", "standard/layernorm",
                 "standard/softmax", "standard/cross-entropy", "standard/groupnorm", "standard/batched-matmul"]


def sweep(tritongym: str, executor: str, tasks: list[str], config: dict) -> dict:
    """One `tasks check` of `tasks`: its wall time, and each task's status and seconds (its --json)."""
    started = time.monotonic()
    done = subprocess.run([tritongym, "--log-level", "warn", "tasks", "check", *tasks, "--executor", executor,
                           "--executor-config", json.dumps(config), "--json"], capture_output=True, text=True)
    wall = time.monotonic() - started
    try:
        checked = json.loads(done.stdout)["tasks"]
    except (ValueError, KeyError):
        raise SystemExit(f"tasks check gave no JSON (exit {done.returncode}): {done.stderr[-2000:]}")
    return {"config": config, "wall_s": wall, "exit": done.returncode,
            "tasks": {t["task"]: (t["status"], t.get("seconds", 0.0)) for t in checked}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tasks", nargs="*", default=DEFAULT_TASKS)
    parser.add_argument("--tritongym", default="build/bin/tritongym")
    parser.add_argument("--executor", default="tritongym.executor.triton-cuda")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of runs (on then off, then off then on, ...)")
    parser.add_argument("--out", help="also write the report here (markdown)")
    args = parser.parse_args()

    on, off = {}, {"prepare_ahead": 0}
    runs = []
    for round_number in range(args.rounds):
        for config in ((on, off) if round_number % 2 == 0 else (off, on)):
            run = sweep(args.tritongym, args.executor, args.tasks, config)
            runs.append(run)
            print(f"{'ahead off' if config else 'ahead on '}: {run['wall_s']:.1f} s, exit {run['exit']}", flush=True)
    with_ahead = [r["wall_s"] for r in runs if not r["config"]]
    without = [r["wall_s"] for r in runs if r["config"]]
    lines = [f"`tasks check` of {len(args.tasks)} tasks, {args.rounds} pair(s) of runs, alternating, "
             f"executor {args.executor}", "",
             "| run | prepare_ahead | wall s | " + " | ".join(t.split("/")[-1] for t in args.tasks) + " |",
             "|---|---|---:|" + "---:|" * len(args.tasks)]
    for number, run in enumerate(runs, 1):
        cells = []
        for task in args.tasks:
            status, seconds = run["tasks"].get(task, ("missing", 0.0))
            cells.append(f"{seconds:.1f}" + ("" if status == "ok" else f" ({status})"))
        setting = "0 (off)" if run["config"] else "default"
        lines.append(f"| {number} | {setting} | {run['wall_s']:.1f} | " + " | ".join(cells) + " |")
    on_s, off_s = statistics.median(with_ahead), statistics.median(without)
    every_ok = all(status == "ok" for r in runs for status, _ in r["tasks"].values()) and \
        all(task in r["tasks"] for r in runs for task in args.tasks)
    lines += ["", f"median wall: ahead on {on_s:.1f} s, off {off_s:.1f} s; off / on {off_s / on_s:.3f}",
              f"every task ok in every run: {every_ok}"]
    report = "\n".join(lines)
    print(report)
    if args.out:
        with open(args.out, "w") as out:
            out.write(report + "\n")
    return 0 if all(r["exit"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
