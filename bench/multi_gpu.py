"""One executor across two GPUs (issue 41): with two GPUs visible, does `tritongym eval --batch` judge nearly twice
as many candidates a minute as with one, with the same verdicts, and does timing on one GPU hold while the other
is busy?

    python bench/multi_gpu.py --tritongym build/bin/tritongym --tasks-json tasks.json [--out FILE.json]
        [--table FILE.md] [--workers N] [--pairs N] [--busy-pairs N] [--sessions N] [--kernels ID ...]
        [--clients N] [--parts throughput fidelity serve]
    python bench/multi_gpu.py --report FILE.json [--table FILE.md]   (a saved measurement laid out again)

It uses the first two GPUs of CUDA_VISIBLE_DEVICES where that is set, else of nvidia-smi's list; with fewer than
two it says so and exits 2 without running anything. PYTHONPATH must hold tritongym_worker, whose timing loop the
fidelity part runs (as bench/timing_fidelity.py does). Three parts, in one call:

1. Throughput: bench/eval_throughput.py's candidates, copied until there are at least 40 (a copy's text differs by
   a comment line, so that nothing a worker keeps by source text serves it), through `eval --batch` (triton-cuda,
   the benchmark stage, eval_throughput.warm) with CUDA_VISIBLE_DEVICES set to the first GPU, then to both, with
   the same executor config. Each set first gets one pass that is not measured (it fills the baseline and
   ceiling caches); then the measured passes alternate, one GPU then two, --pairs times, so that a drift hits
   both alike. Candidates per minute for each, the ratio (goal: at least 1.8x), the verdicts candidate by
   candidate (goal: identical), and, where the ratio misses, both passes' phase sums side by side.
2. Timing fidelity: the fidelity bench's kernels, timed on the second GPU by a child that sees it alone (CUPTI,
   --sessions timing sessions a round, the median of their medians), in a round before anything else runs, then
   in rounds alternating busy and idle while a background `eval --batch -` pinned to the first GPU, with the same
   executor and config, judges the same candidates: fed so that it never runs dry in a busy round, drained before
   an idle one. Per kernel, the busy rounds' median against the quiet rounds' (goal: within 1%).
3. Serve: where `tritongym serve --help` succeeds, the same candidates through one server that sees both GPUs,
   with --clients (16) concurrent clients; otherwise the table says that serve has not landed.

The JSON (--out) is written after every pass, so a call stopped at its time limit keeps what it measured;
`--report` lays it out.
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import eval_throughput
from gpu_utilisation import GpuUtilisation

AT_LEAST_CANDIDATES = 40
RATIO_GOAL = 1.8
SHIFT_GOAL_PCT = 1.0
EXECUTOR = "tritongym.executor.triton-cuda"
STAGE = "benchmark"
PARTS = ("throughput", "fidelity", "serve")
# Candidates the background pool holds at once in a busy round: enough for its workers never to wait, few enough
# that draining it before an idle round takes seconds.
BUSY_DEPTH = 8
READY_TIMEOUT_S = 300.0
COPY_MARK = "# bench/multi_gpu.py: copy {copy}"


# --- the GPUs ---------------------------------------------------------------------------------------------------

def listed_gpus() -> list[tuple[str, str, str]]:
    """nvidia-smi's (index, uuid, name) of every GPU; none where nvidia-smi is missing or fails."""
    if shutil.which("nvidia-smi") is None:
        return []
    done = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,name", "--format=csv,noheader"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return []
    rows = [tuple(part.strip() for part in line.split(",", 2)) for line in done.stdout.splitlines()]
    return [row for row in rows if len(row) == 3]


def usable_gpus(rows: list[tuple[str, str, str]], visible: str | None) -> list[dict]:
    """The GPUs the bench may use, as {id, index, name}: those CUDA_VISIBLE_DEVICES names, by index or UUID (a
    prefix of it, as CUDA takes), in its order, up to the first it cannot find (CUDA ignores the rest too); every
    GPU nvidia-smi lists where it is not set. Set and empty, it hides them all."""
    if visible is None:
        return [{"id": index, "index": int(index), "name": name} for index, _, name in rows]
    usable = []
    for item in (part.strip() for part in visible.split(",")):
        found = [row for row in rows if item and (item == row[0] or (item.startswith("GPU-") and row[1].startswith(item)))]
        if not found:
            break
        index, _, name = found[0]
        usable.append({"id": item, "index": int(index), "name": name})
    return usable


@contextlib.contextmanager
def visible(devices: str):
    """CUDA_VISIBLE_DEVICES for the processes started inside: eval_throughput.warm's `tritongym` inherits this
    process's environment."""
    before = os.environ.get("CUDA_VISIBLE_DEVICES")
    os.environ["CUDA_VISIBLE_DEVICES"] = devices
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = before


def git_commit() -> str:
    """The commit measured: TRITONGYM_COMMIT where given (the GPU machine's copy of the tree has no repository),
    else git's, marked where the tree has uncommitted changes."""
    if os.environ.get("TRITONGYM_COMMIT"):
        return os.environ["TRITONGYM_COMMIT"]
    head = subprocess.run(["git", "-C", eval_throughput.ROOT, "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=False) if shutil.which("git") else None
    if head is None or head.returncode != 0:
        return "unknown (no git repository here; TRITONGYM_COMMIT names it)"
    changed = subprocess.run(["git", "-C", eval_throughput.ROOT, "status", "--porcelain", "--untracked-files=no"],
                             capture_output=True, text=True, check=False).stdout.strip()
    return head.stdout.strip() + (" with uncommitted changes" if changed else "")


# --- the candidates ---------------------------------------------------------------------------------------------

def repeated(chosen: list[tuple[str, str]], at_least: int) -> list[tuple[str, str, int]]:
    """`chosen` again and again until there are at least `at_least`, as (task, path, copy); copy 0 is the file."""
    copies = max(1, -(-at_least // len(chosen))) if chosen else 0
    return [(task, path, copy) for copy in range(copies) for task, path in chosen]


def materialised(plan: list[tuple[str, str, int]], folder: str) -> list[tuple[str, str]]:
    """`repeated`'s candidates as files: copy 0 is the file itself, copy k a copy in folder/copy-k/ with a comment
    line added, so that its source text is its own."""
    out = []
    for task, path, copy in plan:
        if copy == 0:
            out.append((task, path))
            continue
        target = os.path.join(folder, f"copy-{copy}", task.replace("/", "__"), os.path.basename(path))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(path) as source, open(target, "w") as handle:
            handle.write(source.read() + "\n" + COPY_MARK.format(copy=copy) + "\n")
        out.append((task, target))
    return out


def executor_config(workers: int) -> dict:
    """The config every pass gets: eval_throughput.warm's (tests/bench/test_multi_gpu.py holds them equal)."""
    return {"timing_seconds": 0.1, **({"workers": workers} if workers else {})}


# --- part 1: throughput -----------------------------------------------------------------------------------------

def utilisation(samplers: dict[int, GpuUtilisation], started: float) -> dict[str, dict | None]:
    return {str(gpu): sampler.window(started, time.time()) for gpu, sampler in samplers.items()}


def throughput_passes(tritongym: str, batch: str, chosen: list[tuple[str, str]], sets: list[str], pairs: int,
                      workers: int, samplers: dict[int, GpuUtilisation], kept: list[dict], save) -> None:
    """A pass not measured for each set of GPUs, then the measured passes alternating, appended to `kept`."""
    order = [(devices, "warm-up") for devices in sets] + [(devices, "measured") for _ in range(pairs) for devices in sets]
    for devices, role in order:
        started = time.time()
        with visible(devices):
            seconds, results = eval_throughput.warm(tritongym, batch, "cuda", workers)
        kept.append({"visible": devices, "role": role, "seconds": seconds,
                     "results": eval_throughput.aligned(chosen, results), "gpu_utilisation": utilisation(samplers, started)})
        judged = sum(result["verdict"] != "no_result" for result in kept[-1]["results"])
        print(f"throughput, {role} pass on GPU(s) {devices}: {judged} verdicts in {seconds:.1f} s{eval_throughput.ended()}",
              flush=True)
        save()


def judging_seconds(one_pass: dict) -> float | None:
    """A pass's time less its executor's start (which its batch reports on the first result)."""
    results = one_pass["results"]
    start = results[0].get("batch_start_seconds") if results else None
    return one_pass["seconds"] - start if start is not None and one_pass["seconds"] > start else None


def verdict_differences(reference: list[dict], other: list[dict]) -> list[int]:
    """The candidates (indices) whose verdicts differ, a missing result counting as a difference."""
    return [i for i in range(max(len(reference), len(other)))
            if i >= len(reference) or i >= len(other) or reference[i]["verdict"] != other[i]["verdict"]]


def throughput_summary(n: int, passes: list[dict], one: str, two: str) -> dict:
    """The measured passes of one GPU (`one`) against those of two (`two`): the medians of their seconds,
    candidates per minute, the ratio, and the candidates whose verdict was not the same in every measured pass."""
    measured = [p for p in passes if p["role"] == "measured"]
    ones, twos = [p for p in measured if p["visible"] == one], [p for p in measured if p["visible"] == two]
    if not ones or not twos:
        return {"complete": False}
    one_s, two_s = statistics.median(p["seconds"] for p in ones), statistics.median(p["seconds"] for p in twos)
    judging = {key: [s for s in map(judging_seconds, group) if s is not None] for key, group in (("one", ones), ("two", twos))}
    differing = sorted({i for p in measured[1:] for i in verdict_differences(ones[0]["results"], p["results"])})
    summary = {"complete": True, "one_s": one_s, "two_s": two_s, "one_per_min": 60.0 * n / one_s,
               "two_per_min": 60.0 * n / two_s, "ratio": one_s / two_s, "differing": differing,
               "same_verdicts": n - len(differing), "n": n}
    summary["ratio_met"] = summary["ratio"] >= RATIO_GOAL
    summary["verdicts_met"] = not differing and all(len(p["results"]) == n for p in measured)
    if judging["one"] and judging["two"]:
        summary["judging_ratio"] = statistics.median(judging["one"]) / statistics.median(judging["two"])
    return summary


def phase_sums(results: list[dict]) -> dict[str, float]:
    """The executor's phases and, inside the candidate's child, its parts, each summed over the candidates."""
    totals: dict[str, float] = {}
    for result in results:
        for key, prefix in (("phase_seconds", ""), ("candidate_phases", "child: ")):
            for name, seconds in (result.get(key) or {}).items():
                totals[prefix + name] = totals.get(prefix + name, 0.0) + float(seconds)
    return totals


def phase_sums_side_by_side(one_pass: dict, two_pass: dict) -> list[str]:
    """Where each pass's time went, one GPU beside two: its wall time, start, and every phase summed over the
    candidates (the workers overlap, so a sum can exceed the wall time)."""
    a, b = phase_sums(one_pass["results"]), phase_sums(two_pass["results"])
    start = lambda p: p["results"][0].get("batch_start_seconds") if p["results"] else None  # noqa: E731
    cell = lambda value: "n/a" if value is None else f"{value:.1f}"  # noqa: E731
    lines = [f"| s | GPU(s) {one_pass['visible']} | GPU(s) {two_pass['visible']} |", "|---|---:|---:|",
             f"| wall | {one_pass['seconds']:.1f} | {two_pass['seconds']:.1f} |",
             f"| starting the executor | {cell(start(one_pass))} | {cell(start(two_pass))} |",
             f"| judging alone | {cell(judging_seconds(one_pass))} | {cell(judging_seconds(two_pass))} |"]
    names = list(a) + [name for name in b if name not in a]
    lines += [f"| {name}, summed | {a.get(name, 0.0):.1f} | {b.get(name, 0.0):.1f} |" for name in names
              if max(a.get(name, 0.0), b.get(name, 0.0)) >= 0.05]
    return lines


def timed_shifts_pct(one_results: list[dict], two_results: list[dict]) -> list[float]:
    """Each shape's timed median of the candidates that passed both times, two GPUs against one, in percent."""
    def medians(result: dict) -> dict[str, float]:
        shapes = (result.get("timing") or {}).get("shapes") or []
        return {shape["key"]: shape["median_us"] for shape in shapes if (shape.get("median_us") or 0) > 0}

    shifts = []
    for a, b in zip(one_results, two_results):
        if a["verdict"] == b["verdict"] == "passed":
            ours, theirs = medians(a), medians(b)
            shifts += [100.0 * (theirs[key] - ours[key]) / ours[key] for key in ours if key in theirs]
    return shifts


# --- part 2: timing fidelity on the second GPU ------------------------------------------------------------------

class FidelityChild:
    """bench/multi_gpu.py --fidelity-child on one GPU: it builds the kernels, says {"device", "kernels"}, then
    answers each "measure" with {"medians_us": {kernel: median}}; what else it prints goes to a file kept for
    errors."""

    def __init__(self, argv: list[str], gpu_id: str) -> None:
        self.errors = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors,
                                        text=True, env={**os.environ, "CUDA_VISIBLE_DEVICES": gpu_id})
        try:
            self.hello = self._answer()
        except BaseException:
            self.close(grace_s=5.0)
            raise

    def _answer(self) -> dict:
        for line in self.process.stdout:
            if line.startswith("{"):
                return json.loads(line)
        self.errors.seek(0)
        raise RuntimeError(f"the fidelity child ended (exit {self.process.wait()}): {self.errors.read()[-1500:]}")

    def measure(self) -> dict[str, float]:
        self.process.stdin.write("measure\n")
        self.process.stdin.flush()
        return self._answer()["medians_us"]

    def close(self, grace_s: float = 60.0) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.errors.close()

    def __enter__(self) -> "FidelityChild":
        return self

    def __exit__(self, kind: type | None, *exc: object) -> None:
        self.close(grace_s=5.0 if kind else 60.0)  # stopped (a time limit's SIGINT): no waiting


class BusyPool:
    """A background `tritongym eval --batch -` on one GPU: fed candidates inside `kept_busy()` so that it holds
    `depth` at once, drained at its end. `done` counts the result lines it has printed."""

    def __init__(self, argv: list[str], gpu_id: str, chosen: list[tuple[str, str]], depth: int = BUSY_DEPTH,
                 ready_timeout_s: float = READY_TIMEOUT_S) -> None:
        self.chosen, self.depth = chosen, depth
        self.sent = self.done = self.most_outstanding = 0
        self.verdicts: dict[str, int] = {}
        self.ended = False
        self.changed = threading.Condition()
        self.errors = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors,
                                        text=True, env={**os.environ, "CUDA_VISIBLE_DEVICES": gpu_id})
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.start_seconds = self._ready(ready_timeout_s)

    def _read(self) -> None:
        for line in self.process.stdout:
            if line.startswith("{"):
                verdict = json.loads(line).get("verdict", "error")
                with self.changed:
                    self.done += 1
                    self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1
                    self.changed.notify_all()
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def _stderr(self) -> str:
        self.errors.seek(0)
        return self.errors.read()

    def _ready(self, timeout_s: float) -> float:
        """Waits for the batch to say that its executor started (as eval_throughput.ready_pool does)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.process.poll() is None:
            said = re.search(r"the executor started in ([0-9.]+) s", self._stderr())
            if said:
                return float(said.group(1))
            time.sleep(0.05)
        self.close()
        raise RuntimeError(f"the background pool did not become ready: {self._stderr()[-1500:]}")

    def _feed(self, stop: threading.Event) -> None:
        while not stop.is_set():
            with self.changed:
                self.changed.wait_for(lambda: self.ended or self.sent - self.done < self.depth, timeout=0.2)
                if self.ended:
                    return
                if self.sent - self.done >= self.depth:
                    continue
                task, path = self.chosen[self.sent % len(self.chosen)]
                self.sent += 1
                self.most_outstanding = max(self.most_outstanding, self.sent - self.done)
            try:
                self.process.stdin.write(f"{task} {path}\n")
                self.process.stdin.flush()
            except OSError:  # it ended: the reader says so
                return

    @contextlib.contextmanager
    def kept_busy(self, drain_timeout_s: float = READY_TIMEOUT_S):
        stop = threading.Event()
        feeder = threading.Thread(target=self._feed, args=(stop,), daemon=True)
        feeder.start()
        try:
            yield
        finally:
            stop.set()
            feeder.join()
            with self.changed:
                self.changed.wait_for(lambda: self.ended or self.done >= self.sent, timeout=drain_timeout_s)

    def close(self, grace_s: float = 120.0) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.reader.join(timeout=5)

    def __enter__(self) -> "BusyPool":
        return self

    def __exit__(self, kind: type | None, *exc: object) -> None:
        self.close(grace_s=5.0 if kind else 120.0)  # stopped: no waiting for the evaluations in hand
        self.errors.close()


def batch_argv(tritongym: str, config: dict) -> list[str]:
    """`eval --batch -` with eval_throughput.warm's executor, stage, seeds and config."""
    return [tritongym, "--log-level", "warn", "eval", "--batch", "-", "--stage", STAGE, "--seeds", "1",
            "--executor", EXECUTOR, "--executor-config", json.dumps(config)]


def fidelity_rounds(child: FidelityChild, start_pool, busy_pairs: int, samplers: dict[int, GpuUtilisation],
                    save_round) -> None:
    """A round with nothing else running, then `busy_pairs` pairs of a busy round and an idle one."""
    def measured(state: str, pool: BusyPool | None) -> dict:
        started, before = time.time(), pool.done if pool else 0
        medians = child.measure()
        return {"state": state, "medians_us": medians, "evaluations": (pool.done - before) if pool else 0,
                "gpu_utilisation": utilisation(samplers, started)}

    save_round(measured("alone", None))
    with start_pool() as pool:
        for _ in range(busy_pairs):
            with pool.kept_busy():
                save_round(measured("busy", pool))
            save_round(measured("idle", pool))
        save_round({"state": "pool", "start_seconds": pool.start_seconds, "verdicts": pool.verdicts,
                    "most_outstanding": pool.most_outstanding})


def median_shifts(rounds: list[dict]) -> list[dict]:
    """Per kernel: the median of the quiet rounds' medians (alone and idle), of the busy rounds', the shift in
    percent, the quiet rounds' spread among themselves (max - min over their median: what noise alone moves), and
    whether the shift is within the goal."""
    timed = [r for r in rounds if "medians_us" in r]
    kernels = list(dict.fromkeys(kernel for r in timed for kernel in r["medians_us"]))
    rows = []
    for kernel in kernels:
        quiet = [r["medians_us"][kernel] for r in timed if r["state"] != "busy" and kernel in r["medians_us"]]
        busy = [r["medians_us"][kernel] for r in timed if r["state"] == "busy" and kernel in r["medians_us"]]
        row = {"kernel": kernel, "quiet_us": statistics.median(quiet) if quiet else None,
               "busy_us": statistics.median(busy) if busy else None, "shift_pct": None, "quiet_spread_pct": None,
               "within_goal": False}
        if quiet and busy:
            row["shift_pct"] = 100.0 * (row["busy_us"] - row["quiet_us"]) / row["quiet_us"]
            row["quiet_spread_pct"] = 100.0 * (max(quiet) - min(quiet)) / row["quiet_us"]
            row["within_goal"] = abs(row["shift_pct"]) <= SHIFT_GOAL_PCT
        rows.append(row)
    return rows


def fidelity_child(tasks_json: str, kernels: list[str] | None, sessions: int) -> int:
    """Inside the child: bench/timing_fidelity.py's kernels (each a task's oracle at its first visible shape),
    compiled and tuned before the first round, each round timed as that bench times them."""
    import torch  # noqa: PLC0415  (the parent never imports torch: it refuses machines without GPUs first)
    import timing_fidelity  # noqa: PLC0415
    from tritongym_worker import timing  # noqa: PLC0415

    answers, sys.stdout = sys.stdout, sys.stderr  # a kernel's prints stay out of the answers
    with open(tasks_json) as handle:
        specs = {t["id"]: t for t in json.load(handle)}
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    built = {}
    for kernel in kernels or timing_fidelity.DEFAULT_KERNELS:
        if kernel in specs:
            entry, inputs, _ = timing_fidelity.kernel_of(specs[kernel])
            with torch.no_grad():
                entry(*inputs)
            built[kernel] = (entry, inputs)
    torch.cuda.synchronize()

    def answer(record: dict) -> None:
        answers.write(json.dumps(record) + "\n")
        answers.flush()

    def median_us(entry, inputs) -> float:
        return statistics.median(timing.time_functions({"k": entry}, [inputs], l2_bytes=l2, cold_l2=True)
                                 .calls["k"].summary()["median_us"] for _ in range(sessions))

    answer({"device": torch.cuda.get_device_name(0), "kernels": list(built)})
    for line in sys.stdin:
        if line.strip() != "measure":
            break
        answer({"medians_us": {kernel: median_us(*built[kernel]) for kernel in built}})
    return 0


# --- part 3: serve ----------------------------------------------------------------------------------------------

def serve_landed(tritongym: str) -> bool:
    return subprocess.run([tritongym, "serve", "--help"], capture_output=True, check=False).returncode == 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def evaluate_remote(base: str, task: str, path: str, tries: int = 30) -> dict:
    """One candidate through serve's `POST /v1/evaluations` (issue 39's API: the code's text, the stage and seeds
    of the batch), waiting out 429 and 503 as their Retry-After says."""
    with open(path) as handle:
        body = json.dumps({"task": task, "code": handle.read(), "stage": STAGE, "seeds": 1}).encode()
    for _ in range(tries):
        request = urllib.request.Request(f"{base}/v1/evaluations", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=900) as reply:
                return {**json.loads(reply.read()), "task": task, "code": path}
        except urllib.error.HTTPError as error:
            if error.code not in (429, 503):
                return {"task": task, "code": path, "verdict": f"http_{error.code}", "detail": error.read()[:300].decode(errors="replace")}
            time.sleep(float(error.headers.get("Retry-After") or 1.0))
        except (urllib.error.URLError, OSError, json.JSONDecodeError) as error:
            return {"task": task, "code": path, "verdict": "no_result", "detail": str(error)[:300]}
    return {"task": task, "code": path, "verdict": "no_result", "detail": f"still refused after {tries} tries"}


def healthy_after(base: str, process: subprocess.Popen, timeout_s: float) -> float:
    """Seconds until `GET /v1/health` answers 200 (ready once the pool is warm)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s and process.poll() is None:
        with contextlib.suppress(urllib.error.URLError, OSError):
            with urllib.request.urlopen(f"{base}/v1/health", timeout=5) as reply:
                if reply.status == 200:
                    return time.monotonic() - started
        time.sleep(0.2)
    raise RuntimeError(f"serve did not become healthy in {timeout_s:.0f} s (exit {process.poll()})")


def through_serve(tritongym: str, chosen: list[tuple[str, str]], devices: str, config: dict, clients: int) -> dict:
    """The candidates through one `tritongym serve` on loopback, `clients` requests at a time, timed from the
    first request to the last answer (the server's start apart, as the batch's judging alone)."""
    port = free_port()
    argv = [tritongym, "--log-level", "warn", "serve", "--listen", f"127.0.0.1:{port}", "--executor", EXECUTOR,
            "--executor-config", json.dumps(config)]
    with tempfile.TemporaryFile("w+") as log:
        process = subprocess.Popen(argv, stdout=log, stderr=log, env={**os.environ, "CUDA_VISIBLE_DEVICES": devices})
        try:
            base = f"http://127.0.0.1:{port}"
            ready_s = healthy_after(base, process, READY_TIMEOUT_S)
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=clients) as pool:
                results = list(pool.map(lambda candidate: evaluate_remote(base, *candidate), chosen))
            seconds = time.perf_counter() - started
        finally:
            process.send_signal(signal.SIGTERM)  # it drains its queue, then exits
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return {"landed": True, "visible": devices, "clients": clients, "ready_s": ready_s, "seconds": seconds,
            "results": results}


# --- the report -------------------------------------------------------------------------------------------------

def throughput_lines(measured: dict) -> list[str]:
    passes = measured.get("throughput", {}).get("passes", [])
    if not passes:
        return ["not measured"]
    n, one, two = len(measured["candidates"]), measured["visible"]["one"], measured["visible"]["two"]
    lines = ["| pass | CUDA_VISIBLE_DEVICES | wall s | starting the executor s | judging alone s | candidates/min | "
             + " | ".join(f"GPU {gpu} busy %" for gpu in measured["gpu_indices"]) + " |",
             "|---|---|---:|---:|---:|---:|" + "---:|" * len(measured["gpu_indices"])]
    for p in passes:
        start = p["results"][0].get("batch_start_seconds") if p["results"] else None
        judging = judging_seconds(p)
        busy = [(p.get("gpu_utilisation") or {}).get(str(gpu)) for gpu in measured["gpu_indices"]]
        lines.append(f"| {p['role']} | {p['visible']} | {p['seconds']:.1f} | "
                     f"{'n/a' if start is None else f'{start:.1f}'} | {'n/a' if judging is None else f'{judging:.1f}'} | "
                     f"{60.0 * n / p['seconds']:.1f} | " + " | ".join("n/a" if b is None else f"{b['mean_pct']:.0f}" for b in busy) + " |")
    summary = throughput_summary(n, passes, one, two)
    if not summary["complete"]:
        return lines + ["", "the measured passes of one GPU and of two are not both there: no ratio"]
    lines += ["", f"candidates per minute: {summary['one_per_min']:.1f} on GPU {one}, {summary['two_per_min']:.1f} on "
                  f"GPUs {two}: **{summary['ratio']:.2f}x** (goal >= {RATIO_GOAL}x: {'met' if summary['ratio_met'] else 'MISSED'})"
                  + (f"; judging alone {summary['judging_ratio']:.2f}x" if "judging_ratio" in summary else ""),
              f"identical verdicts, candidate by candidate over every measured pass: {summary['same_verdicts']} of {n}"
              + ("" if summary["verdicts_met"] else " (goal: all: MISSED)")]
    measured_passes = [p for p in passes if p["role"] == "measured"]
    first_one = next(p for p in measured_passes if p["visible"] == one)
    first_two = next(p for p in measured_passes if p["visible"] == two)
    for i in summary["differing"]:
        task, path, copy = measured["candidates"][i]
        said = ", ".join(f"{p['visible']}: {p['results'][i]['verdict'] if i < len(p['results']) else 'missing'}"
                         for p in measured_passes)
        lines.append(f"  {task} {os.path.basename(path)} (copy {copy}): {said}")
    shifts = timed_shifts_pct(first_one["results"], first_two["results"])
    if shifts:
        largest = max(shifts, key=abs)
        lines.append(f"the candidates' own timed medians, GPUs {two} against GPU {one} (not a goal: other processes, "
                     f"other times): {len(shifts)} shapes, median shift {statistics.median(shifts):+.2f}%, "
                     f"largest {largest:+.2f}%")
    if not summary["ratio_met"]:
        lines += ["", f"where the time went, the first measured pass of each (the ratio is under {RATIO_GOAL}x):", "",
                  *phase_sums_side_by_side(first_one, first_two)]
    return lines


def fidelity_lines(measured: dict) -> list[str]:
    fidelity = measured.get("fidelity")
    if not fidelity:
        return ["not measured"]
    rounds = fidelity.get("rounds", [])
    if fidelity.get("error") and not any("medians_us" in r for r in rounds):
        return [f"not measured: {fidelity['error']}"]
    rows = median_shifts(rounds)
    cell = lambda value, form: "n/a" if value is None else format(value, form)  # noqa: E731
    lines = [f"the kernels on GPU {fidelity['gpu']} ({fidelity.get('device', 'unknown')}), "
             f"{fidelity.get('sessions', '?')} timing sessions a round; GPU {fidelity['busy_gpu']} busy with a "
             f"background `eval --batch -` in the busy rounds", "",
             "| kernel | quiet us | busy us | shift | quiet rounds' spread | within 1% |", "|---|---:|---:|---:|---:|---|"]
    lines += [f"| {r['kernel']} | {cell(r['quiet_us'], '.2f')} | {cell(r['busy_us'], '.2f')} | "
              f"{cell(r['shift_pct'], '+.2f')}% | {cell(r['quiet_spread_pct'], '.2f')}% | {'yes' if r['within_goal'] else 'NO'} |"
              for r in rows]
    timed = [r for r in rounds if "medians_us" in r]
    busy_gpu = str(fidelity["busy_gpu_index"])
    def mean_busy(state: str) -> str:
        said = [(r.get("gpu_utilisation") or {}).get(busy_gpu) for r in timed if r["state"] == state]
        said = [s["mean_pct"] for s in said if s]
        return f"{statistics.mean(said):.0f}%" if said else "n/a"
    pool = next((r for r in rounds if r["state"] == "pool"), {})
    lines += ["", f"within {SHIFT_GOAL_PCT:g}%: {sum(r['within_goal'] for r in rows)} of {len(rows)}; rounds: "
                  + ", ".join(r["state"] for r in timed)
                  + f"; GPU {fidelity['busy_gpu']} busy {mean_busy('busy')} in the busy rounds, {mean_busy('idle')} in the "
                  f"idle ones; evaluations finished in the busy rounds: {sum(r['evaluations'] for r in timed if r['state'] == 'busy')}"
                  + (f"; the background pool's verdicts: {json.dumps(pool['verdicts'], sort_keys=True)}" if pool else "")]
    return lines + ([f"stopped after these rounds: {fidelity['error']}"] if fidelity.get("error") else [])


def serve_lines(measured: dict) -> list[str]:
    serve = measured.get("serve")
    if not serve:
        return ["not measured"]
    if not serve.get("landed"):
        return ["serve has not landed (`tritongym serve --help` failed): not measured"]
    if serve.get("error"):
        return [f"not measured: {serve['error']}"]
    n = len(serve["results"])
    line = (f"{n} candidates through one server on GPUs {serve['visible']}, {serve['clients']} concurrent clients: "
            f"{serve['seconds']:.1f} s from the first request to the last answer (ready after {serve['ready_s']:.1f} s), "
            f"{60.0 * n / serve['seconds']:.1f} candidates/min")
    two = [p for p in measured.get("throughput", {}).get("passes", [])
           if p["role"] == "measured" and p["visible"] == serve["visible"]]
    if two:
        judging = judging_seconds(two[0])
        same = len(serve["results"]) - len(verdict_differences(two[0]["results"], serve["results"]))
        line += (f"; the batch on the same GPUs judged alone in {'n/a' if judging is None else f'{judging:.1f}'} s; "
                 f"verdicts the same as the batch's: {same} of {n}")
    return [line]


def goals(measured: dict) -> dict[str, bool]:
    """Each goal that was measured, met or not."""
    met = {}
    passes = measured.get("throughput", {}).get("passes", [])
    if passes:
        summary = throughput_summary(len(measured["candidates"]), passes, measured["visible"]["one"],
                                     measured["visible"]["two"])
        if summary["complete"]:
            met["ratio"], met["verdicts"] = summary["ratio_met"], summary["verdicts_met"]
    fidelity = measured.get("fidelity") or {}
    if fidelity.get("rounds"):
        rows = median_shifts(fidelity["rounds"])
        met["fidelity"] = bool(rows) and all(r["within_goal"] for r in rows)
    return met


def table(measured: dict) -> str:
    gpus = ", ".join(f"{gpu['index']}: {gpu['name']}" for gpu in measured["gpus"])
    lines = [f"# One executor across two GPUs ({measured['date']})", "",
             f"commit {measured['commit']}; GPUs: {gpus}; {EXECUTOR} at the {STAGE} stage, config "
             f"{json.dumps(measured['executor_config'])}; {len(measured['candidates'])} candidates "
             f"(bench/eval_throughput.py's {measured['base_candidates']}, copied)", "",
             "## Throughput: one GPU, then two", "", *throughput_lines(measured), "",
             "## Timing on one GPU while the other is busy", "", *fidelity_lines(measured), "",
             f"## Through serve, {measured.get('clients', 16)} concurrent clients", "", *serve_lines(measured)]
    return "\n".join(lines) + "\n"


# --- the call ---------------------------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("--tritongym", default="", help="the built tritongym")
    parse.add_argument("--tasks-json", default="", help="`tritongym tasks list --json --full`")
    parse.add_argument("--out", default="", help="the measurement as JSON, written after every pass")
    parse.add_argument("--table", default="", help="the Markdown table, written at the end")
    parse.add_argument("--workers", type=int, default=0, help="candidate workers (0: the executor's automatic count)")
    parse.add_argument("--at-least", type=int, default=AT_LEAST_CANDIDATES, help="candidates, eval_throughput's copied")
    parse.add_argument("--pairs", type=int, default=1, help="measured passes of each set of GPUs, alternating")
    parse.add_argument("--busy-pairs", type=int, default=2, help="busy and idle rounds of the fidelity part")
    parse.add_argument("--sessions", type=int, default=5, help="timing sessions of each kernel a round")
    parse.add_argument("--kernels", nargs="+", default=None, help="default: bench/timing_fidelity.py's")
    parse.add_argument("--clients", type=int, default=16, help="concurrent clients of serve")
    parse.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    parse.add_argument("--report", metavar="SAVED_JSON", default=None, help="lay a saved measurement out again")
    parse.add_argument("--fidelity-child", action="store_true", help=argparse.SUPPRESS)
    return parse


def positive(parse: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    for name in ("at_least", "pairs", "busy_pairs", "sessions", "clients"):
        if getattr(args, name) < 1:
            parse.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.workers < 0:
        parse.error("--workers must be 0 (automatic) or more")


def written(measured: dict, args: argparse.Namespace) -> int:
    text = table(measured)
    print(text)
    if args.table:
        with open(args.table, "w") as handle:
            handle.write(text)
    return 0 if all(goals(measured).values()) else 1


def measure(args: argparse.Namespace, gpus: list[dict]) -> dict:
    with open(args.tasks_json) as handle:
        tasks = {t["id"]: t for t in json.load(handle)}
    base = eval_throughput.candidates(tasks)
    plan = repeated(base, args.at_least)
    one, two = gpus[0]["id"], f"{gpus[0]['id']},{gpus[1]['id']}"
    config = executor_config(args.workers)
    measured = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "commit": git_commit(), "gpus": gpus, "gpu_indices": [gpu["index"] for gpu in gpus[:2]],
                "visible": {"one": one, "two": two}, "executor_config": config, "clients": args.clients,
                "base_candidates": len(base), "candidates": [list(entry) for entry in plan],
                "torch_bytecode": eval_throughput.torch_bytecode()}

    def save() -> None:
        if args.out:
            with open(args.out, "w") as handle:
                json.dump(measured, handle)

    samplers = {gpu["index"]: GpuUtilisation(gpu=gpu["index"]) for gpu in gpus[:2]}
    try:
        with tempfile.TemporaryDirectory(prefix="multi-gpu-") as folder:
            chosen = materialised(plan, folder)
            batch = os.path.join(folder, "batch.txt")
            with open(batch, "w") as handle:
                handle.write("".join(f"{task} {path}\n" for task, path in chosen))
            if "throughput" in args.parts:
                measured["throughput"] = {"passes": []}
                throughput_passes(args.tritongym, batch, chosen, [one, two], args.pairs, args.workers, samplers,
                                  measured["throughput"]["passes"], save)
            if "fidelity" in args.parts:
                measured["fidelity"] = {"gpu": gpus[1]["id"], "busy_gpu": gpus[0]["id"],
                                        "busy_gpu_index": gpus[0]["index"], "sessions": args.sessions, "rounds": []}
                try:
                    fidelity_part(args, gpus, chosen, config, samplers, measured["fidelity"], save)
                except (RuntimeError, OSError, ValueError) as error:
                    measured["fidelity"]["error"] = str(error)
                save()
            if "serve" in args.parts:
                measured["serve"] = {"landed": serve_landed(args.tritongym)}
                if measured["serve"]["landed"]:
                    try:
                        measured["serve"] = through_serve(args.tritongym, chosen, two, config, args.clients)
                    except (RuntimeError, OSError) as error:
                        measured["serve"]["error"] = str(error)
                print(f"serve: {serve_lines(measured)[0]}{eval_throughput.ended()}", flush=True)
    finally:
        for sampler in samplers.values():
            sampler.close()
        save()
    return measured


def fidelity_part(args: argparse.Namespace, gpus: list[dict], chosen: list[tuple[str, str]], config: dict,
                  samplers: dict[int, GpuUtilisation], kept: dict, save) -> None:
    child_argv = [sys.executable, os.path.abspath(__file__), "--fidelity-child", "--tasks-json", args.tasks_json,
                  "--sessions", str(args.sessions), *(["--kernels", *args.kernels] if args.kernels else [])]

    def save_round(record: dict) -> None:
        kept["rounds"].append(record)
        print(f"fidelity, {record['state']} round: " + json.dumps(record.get("medians_us") or record.get("verdicts"))
              + eval_throughput.ended(), flush=True)
        save()

    with FidelityChild(child_argv, gpus[1]["id"]) as child:
        kept["device"] = child.hello["device"]
        fidelity_rounds(child, lambda: BusyPool(batch_argv(args.tritongym, config), gpus[0]["id"], chosen),
                        args.busy_pairs, samplers, save_round)


def main(argv: list[str] | None = None) -> int:
    parse = parser()
    args = parse.parse_args(argv)
    positive(parse, args)
    if args.fidelity_child:
        return fidelity_child(args.tasks_json, args.kernels, args.sessions)
    if args.report:
        try:
            with open(args.report) as handle:
                return written(json.load(handle), args)
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as error:
            sys.stderr.write(f"{args.report}: not a saved measurement of this bench ({error!r})\n")
            return 2
    if not args.tritongym or not args.tasks_json:
        parse.error("--tritongym and --tasks-json are needed to measure")
    gpus = usable_gpus(listed_gpus(), os.environ.get("CUDA_VISIBLE_DEVICES"))
    if len(gpus) < 2:
        named = ", ".join(f"{gpu['id']}: {gpu['name']}" for gpu in gpus)
        sys.stderr.write(f"multi_gpu: {len(gpus)} GPU(s) usable here{f' ({named})' if named else ''}; this bench "
                         "needs at least two (CUDA_VISIBLE_DEVICES, else nvidia-smi's list): nothing was run\n")
        return 2
    return written(measure(args, gpus), args)


if __name__ == "__main__":
    sys.exit(main())
