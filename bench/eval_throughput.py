"""Evaluation throughput: the same candidates through TritonGym's warm pool and through a cold process
per candidate (bench/cold_harness.py, the way KernelBench-style harnesses work). Issue 5's goal: at
least 5x more candidates per minute through the warm pool, with identical verdicts.

    python bench/eval_throughput.py --tritongym build/bin/tritongym --tasks-json tasks.json [--out FILE.md]
        [--device cpu]   (the interpreter on both paths, checking only: a dry run of the bench without a GPU)
        [--workers N]    (the warm pool's candidate workers; their checks overlap, timing takes the GPU alone)
        [--variant JSON ...]  (a further steady-state pass with this executor config on top, e.g.
                         '{"suspend_checks": false}' or '{"workers": 6}': compared against the same cold path)
        [--ready-pool IDLE_S]  (a further pass through a pool started, and idle IDLE_S, before the candidates
                         came: `tritongym eval --batch -`, timed from the candidates' arrival)
        [--order-pairs N]  (N further pairs of steady-state passes, one with the batch in the lines' order
                         (`eval --batch --in-order`), one with the candidates that autotune first: what that
                         order gains, with the two alternating so that drifts hit both alike)
        [--data-plane gpu|files]  (triton-cuda's transport between the workers, to compare the two in one call)
        [--cold-cache pass|candidate]  (the cold path's Triton cache: one per pass, the default, or one per process)
        [--cold-also pass|candidate]   (the cold path once more with the other cache, in the same call)

The warm pool runs `tritongym eval --batch` on triton-cuda at the benchmark stage (correctness on
the visible shapes, then CUPTI timing and baselines); it runs twice, and the second pass is the steady
state (the baseline and ceiling caches are filled by the first; the executor keeps the inputs and expected
outputs of its last `reference_cache_tasks` tasks only, 4 by default, so most are made again: keeping all 14
tasks' files would take an estimated 100 GB of disk). The cold path starts one Python
process per candidate. Both paths check and time the candidate at every visible shape in every dtype the task
lists. `--save FILE` keeps every result; bench/throughput_timeline.py FILE lays a pass out in time.

The two paths can run apart, on two GPUs at once, and be joined afterwards:

    python bench/eval_throughput.py ... --only warm --save warm.json     (GPU 0)
    python bench/eval_throughput.py ... --only cold --save cold.json     (GPU 1)
    python bench/eval_throughput.py --combine warm.json cold.json [--out FILE.md]

A saved measurement of both paths (`--save`, or scripts/device-check.sh's throughput-both.json) is laid out
again, with this version's report, by `--report FILE.json [--out FILE.md]`.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from gpu_utilisation import GpuUtilisation

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# Verdicts both harnesses can give. The warm pool also gives timeout, crash, oom and flagged, which a
# cold harness cannot tell apart; those fixtures are left out so the comparison is like for like.
FIXTURES = ["correct", "wrong", "returns_nan", "syntax_error", "no_entry", "raises"]
ORACLE_TASKS = ["standard/vector-add", "standard/softmax", "standard/rmsnorm", "standard/gelu", "standard/row-sum",
                "standard/leaky-relu-scale", "standard/layernorm", "standard/swiglu", "standard/cumsum",
                "standard/transpose-2d", "standard/mse-loss-grad", "standard/l2-normalize-rows",
                "standard/logsumexp", "standard/argmax-rows"]


def ended() -> str:
    """When a pass ended (UTC), for lining its window up with samples taken beside the bench (nvidia-smi)."""
    return time.strftime(", ended %Y-%m-%dT%H:%M:%SZ", time.gmtime())


def torch_bytecode() -> str:
    """Whether torch's modules have bytecode for this Python. Without it every process compiles them from source
    (3.5 s an import on the GPU machine, against 1.7 to 2.0 s with it): both paths start Python processes, the
    cold path one per candidate, so the ratio depends on it. A pip install leaves the bytecode in place."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return "no torch"
    cache = os.path.join(os.path.dirname(spec.origin), "__pycache__")
    tag = sys.implementation.cache_tag
    present = os.path.isdir(cache) and any(name.endswith(f".{tag}.pyc") for name in os.listdir(cache))
    return "present" if present else "absent (each process compiles torch's modules from source)"


def candidates(tasks: dict) -> list[tuple[str, str]]:
    chosen = [("standard/vector-add", os.path.join(ROOT, "tests/fixtures/candidates/vector-add", f + ".py"))
              for f in FIXTURES]
    chosen += [(task, tasks[task]["oracle"]) for task in ORACLE_TASKS if task in tasks]
    return chosen


def warm(tritongym: str, batch: str, device: str, workers: int, data_plane: str = "",
         extra: dict | None = None, in_order: bool = False) -> tuple[float, list[dict]]:
    executor, stage = (("tritongym.executor.triton-cuda", "benchmark") if device == "cuda"
                       else ("tritongym.executor.triton-interpreter", "test"))
    started = time.perf_counter()
    # 0.1 s of timing per shape, as the cold harness's do_bench(rep=100 ms): like for like. `workers` candidate
    # workers judge candidates at once: their checks overlap, and each is timed with the GPU to itself.
    config = json.dumps({"timing_seconds": 0.1, **({"workers": workers} if workers else {}),
                         **({"data_plane": data_plane} if data_plane and device == "cuda" else {}), **(extra or {})})
    done = subprocess.run([tritongym, "--log-level", "warn", "eval", "--batch", batch, *(["--in-order"] if in_order else []),
                           "--stage", stage, "--seeds", "1", "--executor", executor, "--executor-config", config],
                          capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-3000:])
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    # The executor's start-up (workers importing torch, in parallel), which the batch reports on stderr.
    said = re.search(r"the executor started in ([0-9.]+) s", done.stderr)
    if said and results:
        results[0]["batch_start_seconds"] = float(said.group(1))
    return seconds, results


def ready_pool(tritongym: str, chosen: list[tuple[str, str]], device: str, workers: int, data_plane: str = "",
               idle_s: float = 5.0) -> tuple[float, list[dict]]:
    """The candidates through a pool that was started, and idle for `idle_s`, before they came: `tritongym eval
    --batch -` is started, and once it says its executor is ready (the `batch:` line on stderr) and `idle_s` have
    passed, every line is written at once and stdin closed. The seconds are from the write to the process's end:
    what a caller that keeps one pool for candidates sent over time (an RL loop, an agent harness) waits."""
    executor, stage = (("tritongym.executor.triton-cuda", "benchmark") if device == "cuda"
                       else ("tritongym.executor.triton-interpreter", "test"))
    config = json.dumps({"timing_seconds": 0.1, **({"workers": workers} if workers else {}),
                         **({"data_plane": data_plane} if data_plane and device == "cuda" else {})})
    with tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen([tritongym, "--log-level", "warn", "eval", "--batch", "-", "--stage", stage,
                                    "--seeds", "1", "--executor", executor, "--executor-config", config],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True)
        start_seconds = None
        while start_seconds is None and process.poll() is None:
            time.sleep(0.05)
            errors.seek(0)
            said = re.search(r"the executor started in ([0-9.]+) s", errors.read())
            start_seconds = float(said.group(1)) if said else None
        time.sleep(idle_s if start_seconds is not None else 0.0)
        started = time.perf_counter()
        try:
            out, _ = process.communicate("".join(f"{task} {path}\n" for task, path in chosen))
        except BrokenPipeError:  # it ended before reading: its stderr says why
            out, _ = process.communicate()
        seconds = time.perf_counter() - started
        if process.returncode != 0:
            errors.seek(0)
            sys.stderr.write(errors.read()[-3000:])
    results = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if results and start_seconds is not None:
        results[0]["batch_start_seconds"] = start_seconds
    return seconds, results


def aligned(chosen: list[tuple[str, str]], results: list[dict]) -> list[dict]:
    """The batch's results in the order of `chosen`: one that failed prints an error instead of its line, and
    a stopped batch prints fewer; those get the verdict `no_result`."""
    by_candidate = {(r.get("task"), r.get("code")): r for r in results}
    out = [by_candidate.get((task, path)) or {"task": task, "code": path, "verdict": "no_result"}
           for task, path in chosen]
    if results and "batch_start_seconds" in results[0]:
        out[0]["batch_start_seconds"] = results[0]["batch_start_seconds"]
    return out


def cold(tasks_json: str, chosen: list[tuple[str, str]], device: str, cache: str = "pass") -> tuple[float, list[dict]]:
    """`cache`: "pass", one fresh Triton cache for the pass's processes, as a harness on a machine's default cache
    (~/.triton) has: Triton's CUDA helper module is built once, and a launcher once per signature, while each
    candidate's kernels compile (its code is new); the warm pool likewise keeps its fork servers' helper module
    across runs. "candidate": a fresh cache per process, which also builds the helper module and every launcher
    in each process (the bench's cold path until 2026-12-01)."""
    env = {**os.environ, **({"TRITON_INTERPRET": "1", "CUDA_VISIBLE_DEVICES": ""} if device == "cpu" else {})}
    started = time.perf_counter()
    results = []
    fresh = lambda: tempfile.TemporaryDirectory(prefix="cold-triton-cache-")  # noqa: E731
    with fresh() if cache == "pass" else contextlib.nullcontext() as shared:
        for task, path in chosen:
            with contextlib.nullcontext(shared) if shared else fresh() as triton_cache:
                done = subprocess.run([sys.executable, os.path.join(ROOT, "bench/cold_harness.py"), tasks_json, task,
                                       path, device], capture_output=True, text=True, check=False,
                                      env={**env, "TRITON_CACHE_DIR": triton_cache})
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            results.append(json.loads(lines[-1]) if lines else {"task": task, "code": path, "verdict": "crash",
                                                                 "detail": done.stderr[-200:]})
    return time.perf_counter() - started, results


def normalise(verdict: str) -> str:
    return "passed" if verdict in ("passed",) else verdict


def where_time_went(results: list[dict]) -> list[str]:
    """The warm pool's phases summed over its candidates: the executor's (prepare, candidate, compare,
    baselines) and, inside the candidate's child, its parts (import, load_inputs, run, save_outputs, timing_*)."""
    lines = []
    for key, title in (("phase_seconds", "executor phase"), ("candidate_phases", "inside the candidate's child")):
        totals: dict[str, float] = {}
        for result in results:
            for name, seconds in (result.get(key) or {}).items():
                totals[name] = totals.get(name, 0.0) + float(seconds)
        if totals:
            lines += [f"| {title} | s, summed over the warm pool's candidates |", "|---|---:|",
                      *[f"| {name} | {seconds:.1f} |" for name, seconds in totals.items() if seconds >= 0.05], ""]
    return lines


def sandbox_cost(results: list[dict]) -> list[str]:
    """What the sandbox cost the warm pool's candidates (issue 36's measure): the child's confinement on the
    request's path (`sandbox`: Landlock, seccomp, limits) and its namespaces, entered ahead of the request
    (`sandbox_ahead`), against the candidate phase and the host's whole evaluation of each candidate."""
    timed = [r for r in results if "sandbox" in (r.get("candidate_phases") or {})]
    if not timed:
        return []
    on_path = sum(float(r["candidate_phases"]["sandbox"]) for r in timed)
    ahead = sum(float(r["candidate_phases"].get("sandbox_ahead", 0.0)) for r in timed)
    candidate = sum(float((r.get("phase_seconds") or {}).get("candidate", 0.0)) for r in timed)
    host = sum(float(r.get("host_seconds", 0.0)) for r in timed)
    worst = max(float(r["candidate_phases"]["sandbox"]) for r in timed)
    line = (f"the sandbox, over {len(timed)} candidates: confinement on the request's path {1000 * on_path / len(timed):.1f} ms "
            f"a candidate (at most {1000 * worst:.1f} ms)")
    if candidate > 0:
        line += f", {100 * on_path / candidate:.2f}% of the candidate phase"
    if host > 0:
        line += f" and {100 * on_path / host:.2f}% of the evaluations' host time"
    line += f"; its namespaces, entered ahead of the request, {1000 * ahead / len(timed):.1f} ms a spare child"
    return [line, ""]


PER_CANDIDATE = [("phase_seconds", "worker_wait"), ("phase_seconds", "prepare_wait"), ("phase_seconds", "candidate"),
                 ("phase_seconds", "candidate_share_wait"), ("phase_seconds", "timing_wait"),
                 ("phase_seconds", "timing"), ("phase_seconds", "after_timing"), ("phase_seconds", "compare"),
                 ("candidate_phases", "run"), ("candidate_phases", "timing_warm_up"), ("candidate_phases", "timing_calls"),
                 ("candidate_phases", "timing_collect")]


def per_candidate(chosen: list[tuple[str, str]], results: list[dict]) -> list[str]:
    """Each candidate's phases (seconds): where one slow candidate's time went. `start` and `end`: when the
    batch started and finished judging it, in seconds since judging began (the pool's timeline). `turns`: the
    compiles during which its child handed the GPU back."""
    head = ["start", "end"] + [name for _, name in PER_CANDIDATE] + ["turns"]
    lines = ["| task | candidate | " + " | ".join(head) + " |", "|---|---|" + "---:|" * len(head)]
    for (task, path), result in zip(chosen, results):
        start = result.get("started_s")
        cells = ([f"{start:.2f}", f"{start + result.get('host_seconds', 0.0):.2f}"] if start is not None
                 else ["", ""])
        cells += [f"{float((result.get(key) or {}).get(name, 0.0)):.2f}" for key, name in PER_CANDIDATE]
        cells.append(str(result.get("compiles_off_gpu", "")))
        lines.append(f"| {task} | {os.path.basename(path)} | " + " | ".join(cells) + " |")
    return lines + [""]


def autotune_lines(steady: list[dict], cold_results: list[dict],
                   against: str = "warm pool (steady state) against the cold path",
                   first: str = "warm", second: str = "cold") -> list[str]:
    """Whether two passes' autotuners chose the same config, key by key: the warm pool against a cold process
    (the warm pool tunes on a GPU it shares with other evaluations' checks), or the cold path against itself
    (how often a config is a near tie that two honest runs break differently)."""
    same, total, differ = 0, 0, []
    for warm_result, cold_result in zip(steady, cold_results):
        warm_choices, cold_choices = warm_result.get("autotune_choices") or {}, cold_result.get("autotune_choices") or {}
        for kernel, keys in cold_choices.items():
            for key, config in keys.items():
                chosen = (warm_choices.get(kernel) or {}).get(key)
                if chosen is None:
                    continue  # tuned on one path only
                total += 1
                same += chosen == config
                if chosen != config:
                    differ.append(f"  {cold_result.get('task')} {kernel} [{key}]: {first} {chosen}; {second} {config}"
                                  + _margin(warm_result, kernel, key, chosen, config))
    if not total:
        return []
    return [f"autotune choices, {against}: the same config for {same} of {total} keys", *differ[:12]]


def _margin(warm_result: dict, kernel: str, key: str, warm_choice: str, cold_choice: str) -> str:
    """What the warm pool's own benchmarks measured for both choices of a key: a near tie, or not."""
    measured = (((warm_result.get("autotune_benchmarks") or {}).get("timings_us") or {}).get(kernel) or {}).get(key) or {}
    warm_us, cold_us = measured.get(warm_choice), measured.get(cold_choice)
    if not warm_us or not cold_us:
        return ""
    return (f" (the warm pool measured {warm_us:.1f} us for its choice and {cold_us:.1f} us for the cold path's, "
            f"{100.0 * (cold_us - warm_us) / warm_us:+.1f}%)")


def utilisation_lines(measured: dict) -> list[str]:
    """Each pass's mean GPU utilisation (nvidia-smi, 100 ms samples), where it was sampled."""
    windows = measured.get("gpu_utilisation") or {}
    said = [f"{name} {window['mean_pct']:.0f}% ({window['samples']} samples)" for name, window in windows.items()
            if window]
    return [f"GPU utilisation (nvidia-smi's utilization.gpu, sampled every 100 ms): {', '.join(said)}"] if said else []


def cases_made(results: list[dict]) -> str:
    """How many cases the reference worker made when their evaluation came, and how many the evaluations found
    made (ahead of them, Executor::expect, or by an earlier evaluation): the record's `cases_prepared`."""
    counts = [result["cases_prepared"] for result in results if isinstance(result.get("cases_prepared"), dict)]
    if not counts:
        return ""
    made, found = sum(c.get("made", 0) for c in counts), sum(c.get("found", 0) for c in counts)
    return f"; cases made when their evaluation came {made}, found made {found}"


def worker_wait_said(results: list[dict]) -> str:
    """Since the executor is ready once its reference worker is, the first candidates may wait for a candidate
    worker to finish starting: the longest such wait, which judging includes."""
    waits = [r.get("phase_seconds", {}).get("worker_wait", 0.0) for r in results]
    longest = max(waits, default=0.0)
    return f"; candidates then waited up to {longest:.2f} s for a candidate worker to start" if longest >= 0.01 else ""


def variant_lines(measured: dict, steady: list[dict], cold_s: float, n: int) -> list[str]:
    """The further steady-state passes (--variant), each against the same cold path."""
    lines = []
    for variant in measured.get("variants", []):
        results, seconds = variant["steady"], variant["steady_s"]
        start = results[0].get("batch_start_seconds") if results else None
        lines.append(f"steady state with {json.dumps(variant['config'])}: {seconds:.1f} s, "
                     f"{60.0 * n / seconds:.1f} candidates/min, {cold_s / seconds:.2f}x the cold path"
                     + (f" ({start:.1f} s of it starting the workers)" if start is not None else "")
                     + f"; same verdicts as the steady state above: "
                     f"{sum(a['verdict'] == b['verdict'] for a, b in zip(results, steady))} of {n}" + cases_made(results))
    return lines


def ready_pool_lines(measured: dict, steady: list[dict], cold_s: float, n: int) -> list[str]:
    """The pass through a pool started before the candidates came (--ready-pool), against the same cold path."""
    ready = measured.get("ready_pool")
    if not ready:
        return []
    seconds, results = ready["seconds"], ready["results"]
    start = results[0].get("batch_start_seconds") if results else None
    return [f"through a pool started before the candidates came (`eval --batch -`, ready after "
            + (f"{start:.1f} s" if start is not None else "an unknown time") + f", then idle {ready['idle_s']:g} s): "
            f"{seconds:.1f} s, {60.0 * n / seconds:.1f} candidates/min, {cold_s / seconds:.2f}x the cold path; "
            f"same verdicts as the steady state: {sum(a['verdict'] == b['verdict'] for a, b in zip(results, steady))} of {n}"
            + cases_made(results)]


def order_pair_lines(measured: dict, steady: list[dict], n: int) -> list[str]:
    """The pairs of steady-state passes in the two batch orders (--order-pairs), side by side."""
    pairs = measured.get("order_pairs", [])
    if not pairs:
        return []
    lines_order = [pair["in_order_s"] for pair in pairs]
    first_order = [pair["autotuners_first_s"] for pair in pairs]
    same = min(sum(a["verdict"] == b["verdict"] for a, b in zip(pair[key], steady))
               for pair in pairs for key in ("in_order", "autotuners_first"))
    listed = lambda values: ", ".join(f"{value:.1f}" for value in values)  # noqa: E731
    return [f"batch order, {len(pairs)} pair(s) of steady-state passes, alternating: the lines' order (`--in-order`) "
            f"median {statistics.median(lines_order):.1f} s ({listed(lines_order)}); autotuners first median "
            f"{statistics.median(first_order):.1f} s ({listed(first_order)}); autotuners first / lines' order "
            f"{statistics.median(first_order) / statistics.median(lines_order):.3f}; the fewest verdicts of a pass the "
            f"same as the steady state's: {same} of {n}"]


def report(chosen: list[tuple[str, str]], measured: dict, device: str) -> tuple[str, bool]:
    """The markdown table of one measurement: {first_s, first, steady_s?, steady?, cold_s, cold}. Without the
    steady-state pass (a bench stopped at its time limit after the first), the first pass stands in for the
    warm pool, and the table says so."""
    first_s, first = measured["first_s"], measured["first"]
    has_steady = "steady" in measured
    steady_s, steady = (measured["steady_s"], measured["steady"]) if has_steady else (first_s, first)
    cold_s, cold_results = measured["cold_s"], measured["cold"]
    n = len(chosen)
    rows = []
    same = 0
    for (task, path), w, c in zip(chosen, steady, cold_results):
        agree = normalise(w["verdict"]) == normalise(c["verdict"])
        same += agree
        rows.append(f"| {task} | {os.path.basename(path)} | {w['verdict']} | {c['verdict']} | "
                    f"{w.get('host_seconds', 0):.2f} | {c.get('seconds', 0):.2f} | {'yes' if agree else 'NO'} |")
    per_min = lambda seconds: 60.0 * n / seconds  # noqa: E731
    lines = [f"candidates: {n}, device: {device}, warm-pool workers: {measured.get('workers') or 'automatic (the executor decides)'}, "
             f"data plane: {measured.get('data_plane', 'default')}, torch bytecode: {measured.get('torch_bytecode', 'not recorded')}"
             + (" (the interpreter: checking only, nothing timed)" if device == "cpu" else ""), "",
             "| path | wall s | candidates/min |", "|---|---|---|",
             f"| warm pool, first pass (from cold: worker start{', ceilings, baselines with torch.compile' if device == 'cuda' else ''}) | {first_s:.1f} | {per_min(first_s):.1f} |",
             (f"| warm pool, steady state (second pass) | {steady_s:.1f} | {per_min(steady_s):.1f} |" if has_steady
              else "| warm pool, steady state (second pass) | not measured | |"),
             f"| cold process per candidate (a Triton cache per {measured.get('cold_cache', 'candidate')}) | {cold_s:.1f} | {per_min(cold_s):.1f} |",
             *([f"| cold process per candidate (a Triton cache per {measured['cold_also']['cache']}) | "
                f"{measured['cold_also']['cold_s']:.1f} | {per_min(measured['cold_also']['cold_s']):.1f} |"]
               if measured.get("cold_also") else []), "",
             (f"speedup, steady state vs cold: {cold_s / steady_s:.2f}x; " if has_steady else "")
             + f"first pass vs cold: {cold_s / first_s:.2f}x",
             *([f"of the steady state, {steady[0]['batch_start_seconds']:.1f} s went to starting the executor "
                "(once per process; the ratio above counts it)" + worker_wait_said(steady) + "; judging alone took "
                f"{steady_s - steady[0]['batch_start_seconds']:.1f} s, "
                f"{cold_s / (steady_s - steady[0]['batch_start_seconds']):.2f}x the cold path (a run that starts its pool "
                "once approaches this)"]
               if steady and "batch_start_seconds" in steady[0] and steady_s > steady[0]["batch_start_seconds"] else []),
             *([f"against the cold path with a Triton cache per {measured['cold_also']['cache']}: "
                f"{measured['cold_also']['cold_s'] / steady_s:.2f}x; its verdicts the same as the first cold path's: "
                f"{sum(normalise(a['verdict']) == normalise(b['verdict']) for a, b in zip(cold_results, measured['cold_also']['cold']))} of {n}"]
               if has_steady and measured.get("cold_also") else []),
             *variant_lines(measured, steady, cold_s, n),
             *ready_pool_lines(measured, steady, cold_s, n),
             *order_pair_lines(measured, steady, n),
             *utilisation_lines(measured),
             *autotune_lines(steady, cold_results),
             *(autotune_lines(cold_results, measured["cold_also"]["cold"],
                              f"the cold path against itself (a Triton cache per {measured['cold_also']['cache']})",
                              "first", "second") if measured.get("cold_also") else []),
             f"identical verdicts: {same} of {n}" + (
                 f" (first pass vs steady state: {sum(a['verdict'] == b['verdict'] for a, b in zip(first, steady))} of {n})"
                 if has_steady else " (the warm pool's first pass against the cold path)") + cases_made(steady), "",
             *where_time_went(steady),
             *sandbox_cost(steady),
             "steady state, per candidate (s):", "", *per_candidate(chosen, steady),
             "| task | candidate | warm verdict | cold verdict | warm s | cold s | same |", "|---|---|---|---|---|---|---|",
             *rows]
    return "\n".join(lines), same == n and len(cold_results) == n


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tritongym", default="")
    parser.add_argument("--tasks-json", default="")
    parser.add_argument("--out", default="")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--only", choices=["warm", "cold"], default=None, help="measure one path (with --save)")
    parser.add_argument("--save", default="", help="write what was measured as JSON")
    parser.add_argument("--workers", type=int, default=0,
                        help="candidate workers of the warm pool (0: the executor's automatic count, worker_count.hpp)")
    parser.add_argument("--variant", action="append", default=[], metavar="JSON",
                        help="a further steady-state pass with this executor config on top (repeatable)")
    parser.add_argument("--ready-pool", type=float, default=None, metavar="IDLE_S",
                        help="a further pass through a pool started before the candidates came (`eval --batch -`), "
                             "idle this many seconds once ready")
    parser.add_argument("--order-pairs", type=int, default=0, metavar="N",
                        help="N further pairs of steady-state passes: the batch in the lines' order, then autotuners first")
    parser.add_argument("--data-plane", choices=["gpu", "files"], default="",
                        help="triton-cuda's data plane for the warm pool (default: the executor's, gpu)")
    parser.add_argument("--cold-cache", choices=["pass", "candidate"], default="pass",
                        help="the cold path's Triton cache: one per pass (default) or a fresh one per process")
    parser.add_argument("--cold-also", choices=["pass", "candidate"], default=None,
                        help="run the cold path a second time with this cache, and say its ratio too")
    parser.add_argument("--combine", nargs=2, metavar=("WARM_JSON", "COLD_JSON"), default=None,
                        help="join two --save files (one warm, one cold) into the table")
    parser.add_argument("--report", metavar="SAVED_JSON", default=None,
                        help="lay out a saved measurement of both paths again (no measuring)")
    args = parser.parse_args()
    def saved(path: str) -> dict | None:
        try:
            with open(path) as handle:
                return json.load(handle)
        except (OSError, json.JSONDecodeError) as error:
            sys.stderr.write(f"{path}: not a saved measurement ({error})\n")
            return None

    if args.report:
        measured = saved(args.report)
        if measured is None:
            return 2
        if measured.get("path") != "both":
            sys.stderr.write(f"--report: {args.report} holds one path ({measured.get('path')}); use --combine\n")
            return 2
        chosen = [tuple(entry) for entry in measured["chosen"]]
        device = measured["device"]
    elif args.combine:
        parts = [saved(path) for path in args.combine]
        if None in parts:
            return 2
        if [part["path"] for part in parts] != ["warm", "cold"] or parts[0]["chosen"] != parts[1]["chosen"]:
            sys.stderr.write("--combine needs a warm file then a cold file, of the same candidates\n")
            return 2
        measured = {**parts[0], **parts[1]}
        chosen = [tuple(entry) for entry in parts[0]["chosen"]]
        device = parts[0]["device"]
    else:
        if not args.tritongym and args.only != "cold" or not args.tasks_json:
            parser.error("--tritongym and --tasks-json are needed to measure")
        tasks = {t["id"]: t for t in json.load(open(args.tasks_json))}
        chosen = candidates(tasks)
        device = args.device
        try:
            variants = [json.loads(text) for text in args.variant]
        except json.JSONDecodeError as error:
            parser.error(f"--variant: not JSON ({error})")
        if not all(isinstance(variant, dict) for variant in variants):
            parser.error("--variant: each must be a JSON object of executor config keys")
        measured = {"workers": args.workers, "data_plane": args.data_plane or "default",
                    "torch_bytecode": torch_bytecode()}

        def save() -> None:  # after each pass: a bench stopped at a time limit keeps what it measured
            if args.save:
                with open(args.save, "w") as handle:
                    json.dump({"path": args.only or "both", "device": device, "chosen": chosen, **measured}, handle)

        # Where there is a GPU, its utilisation is sampled beside the bench, and each pass says how busy it kept it.
        sampler = GpuUtilisation() if device == "cuda" else None

        def sampled(name: str, measure):
            started = time.time()
            out = measure()
            if sampler is not None:
                measured.setdefault("gpu_utilisation", {})[name] = sampler.window(started, time.time())
            return out

        # Each phase says when it ends, so that a bench stopped at a time limit still tells how far it got.
        try:
            if args.only in (None, "warm"):
                with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as batch:
                    batch.write("".join(f"{task} {path}\n" for task, path in chosen))
                pool = lambda extra=None, in_order=False: warm(args.tritongym, batch.name, device,  # noqa: E731
                                                               args.workers, args.data_plane, extra, in_order)
                measured["first_s"], first = sampled("first pass", pool)
                measured["first"] = aligned(chosen, first)
                print(f"warm pool, first pass: {sum(r['verdict'] != 'no_result' for r in measured['first'])} verdicts in {measured['first_s']:.1f} s{ended()}", flush=True)
                save()
                measured["steady_s"], steady = sampled("steady state", pool)
                measured["steady"] = aligned(chosen, steady)
                print(f"warm pool, steady state: {sum(r['verdict'] != 'no_result' for r in measured['steady'])} verdicts in {measured['steady_s']:.1f} s{ended()}",
                      flush=True)
                save()
                for variant in variants:
                    seconds, results = sampled(f"steady state with {json.dumps(variant)}", lambda: pool(variant))
                    measured.setdefault("variants", []).append({"config": variant, "steady_s": seconds,
                                                                "steady": aligned(chosen, results)})
                    print(f"warm pool, steady state with {json.dumps(variant)}: {seconds:.1f} s{ended()}", flush=True)
                    save()
                if args.ready_pool is not None:
                    seconds, results = sampled("ready pool", lambda: ready_pool(
                        args.tritongym, chosen, device, args.workers, args.data_plane, args.ready_pool))
                    measured["ready_pool"] = {"idle_s": args.ready_pool, "seconds": seconds,
                                              "results": aligned(chosen, results)}
                    print(f"warm pool, started before the candidates came: {seconds:.1f} s{ended()}", flush=True)
                    save()
                for pair in range(args.order_pairs):
                    entry = {}
                    for key, in_order in (("in_order", True), ("autotuners_first", False)):
                        seconds, results = sampled(f"steady state, {key} {pair + 1}", lambda: pool(None, in_order))
                        entry[f"{key}_s"], entry[key] = seconds, aligned(chosen, results)
                    measured.setdefault("order_pairs", []).append(entry)
                    print(f"batch order, pair {pair + 1}: lines' order {entry['in_order_s']:.1f} s, autotuners first "
                          f"{entry['autotuners_first_s']:.1f} s{ended()}", flush=True)
                    save()
            if args.only in (None, "cold"):
                measured["cold_cache"] = args.cold_cache
                measured["cold_s"], measured["cold"] = sampled(
                    "cold path", lambda: cold(args.tasks_json, chosen, device, args.cold_cache))
                print(f"cold process per candidate: {len(measured['cold'])} verdicts in {measured['cold_s']:.1f} s{ended()}",
                      flush=True)
                save()
                if args.cold_also:
                    seconds, results = sampled(f"cold path, a Triton cache per {args.cold_also}",
                                               lambda: cold(args.tasks_json, chosen, device, args.cold_also))
                    measured["cold_also"] = {"cache": args.cold_also, "cold_s": seconds, "cold": results}
                    print(f"cold process per candidate, a Triton cache per {args.cold_also}: {seconds:.1f} s{ended()}",
                          flush=True)
        finally:
            if sampler is not None:
                sampler.close()
        save()
        if args.only:
            return 0
    text, agreed = report(chosen, measured, device)
    print(text)
    if args.out:
        open(args.out, "w").write(text + "\n")
    return 0 if agreed else 1


if __name__ == "__main__":
    sys.exit(main())
