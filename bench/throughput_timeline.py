"""Where a warm-pool pass of bench/eval_throughput.py spent its time, from the file its `--save` wrote: each
candidate's phases laid out in time, what the pool's shared resources were busy with, and a Chrome trace to
look at it (chrome://tracing or https://ui.perfetto.dev: one row per worker slot, one box per phase).

    python bench/throughput_timeline.py SAVED.json [--pass steady|first|variant-N] [--trace TRACE.json]

A candidate's phases come from its `phase_seconds`, laid end to end from its `started_s` in the order the
executor takes them (TritonExecutor::evaluate). Two are placed by convention: a wait moved out of its phase
(`candidate_share_wait`, `prepare_wait`'s wait for the reference worker) is drawn before the phase it was
moved out of, and the few milliseconds the executor spends between phases without a lap are not drawn.

The summary says, over the pass's judging window:
  - the GPU alone: the union of the timed calls (`timing`) and of baselines timed with the GPU alone;
  - the reference worker: the union of `prepare`, `checks_compare` (a timed candidate's checks, compared
    before its timing), `compare` and `baselines` (cached lookups included),
    which one process serves one request at a time;
  - the two together, which cannot overlap on the GPU, and the gaps where neither ran;
  - per candidate, how long its child was held while others were timed (`turns.suspended_s`).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

# The executor's phases in the order it takes them; a wait is drawn before the phase it was set apart from.
ORDER = ["worker_wait", "static_check", "prepare_wait", "prepare", "candidate_share_wait", "candidate",
         "checks_compare_wait", "checks_compare", "timing_wait", "timing", "after_timing", "compare_wait", "compare",
         "baselines_wait", "baselines"]
REFERENCE_WORKER = ("prepare", "checks_compare", "compare", "baselines")


def results_of(saved: dict, which: str) -> list[dict]:
    if which.startswith("variant-"):
        return saved.get("variants", [])[int(which.split("-", 1)[1])]["steady"]
    return saved.get(which) or []


def intervals(result: dict) -> list[tuple[str, float, float]]:
    """(phase, start, end) in seconds since the pass began judging; empty for a result without `started_s`."""
    start = result.get("started_s")
    if start is None:
        return []
    phases = result.get("phase_seconds") or {}
    out, at = [], float(start)
    for name in ORDER + sorted(set(phases) - set(ORDER)):
        seconds = max(0.0, float(phases.get(name, 0.0)))
        if seconds > 0.0:
            out.append((name, at, at + seconds))
            at += seconds
    return out


def union(spans: list[tuple[float, float]]) -> float:
    total, end = 0.0, float("-inf")
    for start, stop in sorted(spans):
        if stop <= end:
            continue
        total += stop - max(start, end)
        end = stop
    return total


def lanes(results: list[dict]) -> list[int]:
    """A worker slot per candidate, in the results' order: the first slot free when it started (the batch runs one
    per slot). Slots are handed out in the order the candidates started, which is not the lines' order when the
    batch starts autotuners first."""
    free_at: list[float] = []
    lane_of = [0] * len(results)
    for number in sorted(range(len(results)), key=lambda n: float(results[n].get("started_s", 0.0))):
        start = float(results[number].get("started_s", 0.0))
        end = start + float(results[number].get("host_seconds", 0.0))
        slot = next((i for i, at in enumerate(free_at) if at <= start + 1e-3), None)
        if slot is None:
            slot = len(free_at)
            free_at.append(end)
        else:
            free_at[slot] = end
        lane_of[number] = slot
    return lane_of


def gaps(spans: list[tuple[float, float]], end: float, least: float = 0.15) -> list[tuple[float, float]]:
    """The stretches of [0, end] that no span covers, of `least` seconds or more: (start, length)."""
    out, at = [], 0.0
    for start, stop in sorted(spans) + [(end, end)]:
        if start - at >= least:
            out.append((at, start - at))
        at = max(at, stop)
    return out


def summary(results: list[dict]) -> list[str]:
    timed = [r for r in results if r.get("started_s") is not None]
    if not timed:
        return ["no result carries started_s: a batch from before 2026-11-30 22:58 UTC, or no warm-pool pass"]
    spans = {r["code"] + " " + r["task"]: intervals(r) for r in timed}
    end = max(float(r["started_s"]) + float(r.get("host_seconds", 0.0)) for r in timed)
    alone_spans = [(a, b) for phases in spans.values() for name, a, b in phases if name == "timing"]
    reference_spans = [(a, b) for phases in spans.values() for name, a, b in phases if name in REFERENCE_WORKER]
    alone, reference = union(alone_spans), union(reference_spans)
    # What cannot overlap on the GPU: the timed calls (the GPU alone) and the reference worker's requests (a share
    # a timing waits for); the stretches where neither ran are what the pass could still fill.
    serial = union(alone_spans + reference_spans)
    idle = gaps(alone_spans + reference_spans, end)
    first_timing = min((a for a, _ in alone_spans), default=None)
    busy = sum(float(r.get("host_seconds", 0.0)) for r in timed)
    # The autotuners' turns alone (autotune_bench.py): their total, not placed in time (the record has no start).
    tuning = sum(float((r.get("turns") or {}).get("tuning_alone_s", 0.0)) for r in timed)
    tunings = sum(int((r.get("turns") or {}).get("tunings_alone", 0)) for r in timed)
    slots = max(lanes(timed)) + 1
    lines = [f"judging window: {end:.1f} s, {len(timed)} candidates over {slots} slots; "
             f"the slots were busy {busy:.1f} s of {slots * end:.1f} s ({100.0 * busy / (slots * end):.0f}%)",
             f"the GPU alone for timed calls: {alone:.1f} s of the window ({100.0 * alone / end:.0f}%)"
             + (f"; for autotuners' benchmarks: {tuning:.1f} s in {tunings} keys" if tunings else ""),
             f"the reference worker (prepare, compare, baselines): {reference:.1f} s ({100.0 * reference / end:.0f}%)",
             f"the two together: {serial:.1f} s ({100.0 * serial / end:.0f}%); neither: "
             f"{sum(length for _, length in idle):.1f} s in {len(idle)} gaps of 0.15 s or more"
             + (f", the longest {max(length for _, length in idle):.2f} s from "
                f"{max(idle, key=lambda gap: gap[1])[0]:.2f} s" if idle else "")
             + (f"; the first timing began at {first_timing:.2f} s" if first_timing is not None else ""),
             "", "| candidate | start | end | suspended s | suspensions | compiles off the GPU | longest phase |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for r in sorted(timed, key=lambda r: float(r["started_s"]) + float(r.get("host_seconds", 0.0))):
        turns = r.get("turns") or {}
        phases = r.get("phase_seconds") or {}
        longest = max(phases.items(), key=lambda item: float(item[1]), default=("", 0.0))
        lines.append(f"| {r['task']} {os.path.basename(r['code'])} | {float(r['started_s']):.2f} | "
                     f"{float(r['started_s']) + float(r.get('host_seconds', 0.0)):.2f} | "
                     f"{float(turns.get('suspended_s', 0.0)):.2f} | {int(turns.get('suspensions', 0))} | "
                     f"{r.get('compiles_off_gpu', '')} | {longest[0]} {float(longest[1]):.2f} |")
    return lines


def chrome_trace(results: list[dict]) -> dict:
    events = []
    timed = [r for r in results if r.get("started_s") is not None]
    for result, slot in zip(timed, lanes(timed)):
        label = f"{result['task']} {os.path.basename(result['code'])}"
        events.append({"name": label, "ph": "X", "pid": 1, "tid": slot, "ts": float(result["started_s"]) * 1e6,
                       "dur": float(result.get("host_seconds", 0.0)) * 1e6, "cat": "candidate",
                       "args": {"verdict": result.get("verdict"), "turns": result.get("turns") or {}}})
        for name, start, stop in intervals(result):
            events.append({"name": name, "ph": "X", "pid": 1, "tid": slot, "ts": start * 1e6,
                           "dur": (stop - start) * 1e6, "cat": "phase", "args": {"candidate": label}})
    names = [{"name": "thread_name", "ph": "M", "pid": 1, "tid": slot, "args": {"name": f"slot {slot}"}}
             for slot in sorted({e["tid"] for e in events})]
    return {"traceEvents": names + events, "displayTimeUnit": "ms"}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("saved", help="the JSON file bench/eval_throughput.py --save wrote")
    parser.add_argument("--pass", dest="which", default="steady", help="steady (default), first or variant-N")
    parser.add_argument("--trace", default="", help="write a Chrome trace of the pass here")
    args = parser.parse_args()
    try:
        saved = json.load(open(args.saved))
        results = results_of(saved, args.which)
    except (OSError, ValueError, IndexError, KeyError) as error:
        sys.stderr.write(f"{args.saved}: cannot read the pass '{args.which}': {error}\n")
        return 2
    if not results:
        sys.stderr.write(f"{args.saved}: no warm-pool results for the pass '{args.which}'\n")
        return 2
    print("\n".join(summary(results)))
    if args.trace:
        with open(args.trace, "w") as handle:
            json.dump(chrome_trace(results), handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
