"""The tables of an oracle run (examples/oracle-all-tasks.yaml), read from its store.

    python bench/oracle_run_table.py RUN_DIR [--out FILE.md]

RUN_DIR holds run.sqlite (one shard, or the folder `tritongym merge` wrote from shards or from runs of
parts of the task set). For every episode: its
verdict and, per shape of its final score, the submitted oracle's CUPTI median, the baselines timed
interleaved in the reference worker (eager PyTorch, torch.compile, the oracle again), the oracle's
speedup over eager and over torch.compile, Perf (oracle baseline / submitted: ~1.0 when the harness
is consistent) and % of speed-of-light. Then where each evaluation's time went (phase_seconds).
Issue 4's speedup table and issue 7's Pass@1 / Perf@1 check, from one run.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import sys


def geomean(values: list[float]) -> float:
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def ratio(top, bottom) -> float | None:
    return top / bottom if top and bottom else None


def cell(value, fmt: str = "{:.2f}") -> str:
    return "n/a" if value is None else fmt.format(value)


def final_records(db: sqlite3.Connection, episodes: list) -> dict[str, dict]:
    """Each episode's last final-score evaluation record ({} where there is none or it is unreadable)."""
    records = {}
    for key, *_ in episodes:
        row = db.execute("SELECT record_json FROM evaluations WHERE episode_key = ? AND stage = 'final_score' "
                         "ORDER BY position DESC LIMIT 1", (key,)).fetchone()
        try:
            records[key] = json.loads(row[0]) if row and row[0] else {}
        except ValueError:
            records[key] = {}
    return records


def missing_compile(records: dict[str, dict], episodes: list) -> list[str]:
    """Why a task has no torch.compile time (the reference worker's `problems.compile`), one line per task."""
    lines = []
    for key, task, *_ in episodes:
        reasons = sorted({b.get("problems", {}).get("compile", "") for b in records[key].get("baselines", [])} - {""})
        if reasons:
            lines.append(f"torch.compile n/a for {task}: {'; '.join(reasons)}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("run_dir")
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    path = os.path.join(args.run_dir, "run.sqlite")
    if not os.path.exists(path):
        sys.exit(f"{path}: no such store")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    episodes = db.execute("SELECT episode_key, task_id, verdict, wall_seconds, gpu_seconds FROM episodes "
                          "ORDER BY task_id").fetchall()
    planned = db.execute("SELECT planned_episodes FROM runs").fetchone()
    records = final_records(db, episodes)
    lines = [f"episodes recorded: {len(episodes)} of {planned[0] if planned else '?'}",
             f"passed: {sum(1 for e in episodes if e[2] == 'passed')}", "",
             "| task | shape | submitted µs | oracle µs | eager µs | torch.compile µs | vs eager | vs compile "
             "| Perf | % SoL |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    vs_eager, vs_compile, perf, sol = [], [], [], []
    for key, task, verdict, _, _ in episodes:
        shapes = db.execute("SELECT shape, passed, candidate_us, eager_us, compile_us, oracle_us, speed_of_light_us "
                            "FROM shapes WHERE episode_key = ? ORDER BY position", (key,)).fetchall()
        if not shapes:
            lines.append(f"| {task} | ({verdict}) | | | | | | | | |")
        for shape, passed, mine, eager, compiled, oracle, floor in shapes:
            e, c, p = ratio(eager, mine), ratio(compiled, mine), ratio(oracle, mine)
            vs_eager += [e] if e else []
            vs_compile += [c] if c else []
            perf += [p] if p else []
            sol += [(100 * floor / mine, f"{task} {shape}")] if floor and mine else []
            lines.append(f"| {task} | {shape}{'' if passed else ' (failed)'} | {cell(mine, '{:.1f}')} | "
                         f"{cell(oracle, '{:.1f}')} | {cell(eager, '{:.1f}')} | {cell(compiled, '{:.1f}')} | "
                         f"{cell(e, '{:.2f}x')} | {cell(c, '{:.2f}x')} | {cell(p)} | "
                         f"{cell(ratio(floor, mine) and 100 * floor / mine, '{:.0f}')} |")
    lines += ["", f"geomean over shapes: vs eager {cell(geomean(vs_eager) if vs_eager else None, '{:.2f}x')} "
              f"({len(vs_eager)} shapes), vs torch.compile {cell(geomean(vs_compile) if vs_compile else None, '{:.2f}x')} "
              f"({len(vs_compile)}), Perf {cell(geomean(perf) if perf else None, '{:.3f}')} ({len(perf)}); "
              f"shapes slower than eager: {sum(1 for v in vs_eager if v < 1)}",
              f"Perf within 5% of 1: {sum(1 for v in perf if abs(v - 1) <= 0.05)} of {len(perf)} shapes "
              f"(lowest {cell(min(perf, default=None))}, highest {cell(max(perf, default=None))}); "
              f"% SoL above 100: {sum(1 for v, _ in sol if v > 100)} of {len(sol)} shapes"
              + (f" (most {max(sol)[0]:.0f}%, {max(sol)[1]})" if sol else ""),
              *missing_compile(records, episodes),
              "", "| task | verdict | episode s | GPU s | prepare s | candidate s | compare s | baselines s |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for key, task, verdict, wall, gpu in episodes:
        phases = records[key].get("phase_seconds", {})
        lines.append(f"| {task} | {verdict} | {wall:.1f} | {gpu:.1f} | "
                     + " | ".join(cell(phases.get(p), '{:.1f}') for p in ("prepare", "candidate", "compare", "baselines"))
                     + " |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
