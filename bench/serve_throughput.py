"""What `tritongym serve` costs against `tritongym eval --batch`: the same candidates (task oracles) through one
batch process and through one server with concurrent clients, each with its own freshly started executor of the
same kind. Issue 39's goal: serve keeps at least 90% of the batch's candidates per minute, and adds under 5 ms per
request (median) beyond the evaluation itself.

    python bench/serve_throughput.py [--tritongym build/bin/tritongym] [--executor auto]
        [--executor-config JSON] [--tasks standard/softmax,standard/gelu,...] [--stage test] [--seeds 3]
        [--clients 8] [--out FILE.md]

A CPU smoke run: --executor tritongym.executor.triton-interpreter (the tasks' small shapes, correctness only).

Throughput: each path's judging window, from the first candidate started to the last one answered, executor
start-up left out (the batch: its lines' started_s and host_seconds; the server: from the first request sent, once
GET /v1/health said ready, to the last answer). Added latency: per request, the client's round trip minus the
time the server spent judging it (the `judge` entry of the answer's Server-Timing header: the same judging call
`eval --batch` makes per line, from a worker taking the candidate to its result), so what is left is HTTP, JSON,
the hand-over to a worker and back, and loopback. Measured in a second pass with one client at a time, so that
no request waits in the queue (the `queue` entry says how long one did); the median is reported, with the
8-client pass's for comparison.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DEFAULT_TASKS = ["standard/vector-add", "standard/softmax", "standard/rmsnorm", "standard/gelu", "standard/row-sum",
                 "standard/leaky-relu-scale", "standard/layernorm", "standard/swiglu", "standard/cumsum",
                 "standard/transpose-2d", "standard/mse-loss-grad", "standard/l2-normalize-rows",
                 "standard/logsumexp", "standard/argmax-rows", "standard/column-sum", "standard/cumprod",
                 "standard/bias-gelu", "standard/embedding", "standard/cross-entropy", "standard/batchnorm-inference",
                 "standard/bce-with-logits", "standard/dropout-residual"]


def candidates(task_ids: list[str]) -> list[tuple[str, str]]:
    """(task id, oracle path) for each task; a task without an oracle stops the bench."""
    chosen = []
    for task in task_ids:
        path = os.path.join(ROOT, "tasks", task, "oracle.py")
        if not os.path.isfile(path):
            raise SystemExit(f"serve_throughput: {task} has no oracle at {path}")
        chosen.append((task, path))
    return chosen


def executor_arguments(args: argparse.Namespace) -> list[str]:
    return ["--executor", args.executor, "--executor-config", args.executor_config]


def batch_pass(args: argparse.Namespace, chosen: list[tuple[str, str]]) -> tuple[float, list[dict]]:
    """The judging window of `eval --batch` (seconds) and its lines, in the candidates' order."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as batch:
        batch.write("".join(f"{task} {path}\n" for task, path in chosen))
    try:
        done = subprocess.run([args.tritongym, "--log-level", "warn", "eval", "--batch", batch.name, "--stage",
                               args.stage, "--seeds", str(args.seeds), *executor_arguments(args)],
                              capture_output=True, text=True, cwd=ROOT, check=False)
    finally:
        os.unlink(batch.name)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if done.returncode not in (0, 1) or len(lines) != len(chosen):
        raise SystemExit(f"serve_throughput: eval --batch failed ({done.returncode}):\n{done.stderr[-3000:]}")
    window = max(line["started_s"] + line["host_seconds"] for line in lines)
    return window, lines


class Server:
    """`tritongym serve` on 127.0.0.1 with a free port; drained with SIGTERM on leaving."""

    def __init__(self, args: argparse.Namespace, queue: int):
        self.log = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen(
            [args.tritongym, "--log-level", "warn", "serve", "--listen", "127.0.0.1:0", "--queue", str(queue),
             *executor_arguments(args)], stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=ROOT)
        first = self.process.stdout.readline().strip()
        if not first.startswith("listening on "):
            raise SystemExit(f"serve_throughput: serve did not start: {first!r}\n{self.stderr()}")
        self.base = "http://" + first[len("listening on "):]

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read()[-3000:]

    def wait_ready(self, timeout_s: float = 900.0) -> None:
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise SystemExit(f"serve_throughput: serve exited ({self.process.returncode}):\n{self.stderr()}")
            try:
                with urllib.request.urlopen(self.base + "/v1/health", timeout=10) as reply:
                    if reply.status == 200:
                        return
            except urllib.error.HTTPError:
                pass
            time.sleep(0.1)
        raise SystemExit("serve_throughput: serve was not ready in time")

    def judge(self, args: argparse.Namespace, task: str, path: str) -> tuple[float, dict]:
        """One candidate, waited for: the client's round trip (seconds) and the result, to which the answer's
        Server-Timing entries are added as `_server_timing` (seconds by name)."""
        with open(path, encoding="utf-8") as source:
            body = json.dumps({"task": task, "code": source.read(), "stage": args.stage, "seeds": args.seeds})
        request = urllib.request.Request(self.base + "/v1/evaluations", data=body.encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=3600) as reply:
                result = json.loads(reply.read())
                timing = reply.headers.get("Server-Timing", "")
        except urllib.error.HTTPError as error:
            raise SystemExit(f"serve_throughput: {task}: {error.code} {error.read().decode()[:500]}")
        round_trip = time.perf_counter() - started
        result["_server_timing"] = {entry.split(";dur=")[0].strip(): float(entry.split(";dur=")[1]) / 1000.0
                                    for entry in timing.split(",") if ";dur=" in entry}
        return round_trip, result

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=600)
        except subprocess.TimeoutExpired:
            self.process.kill()


def serve_pass(args: argparse.Namespace, server: Server, chosen: list[tuple[str, str]],
               clients: int) -> tuple[float, list[tuple[float, dict]]]:
    """The judging window through `clients` concurrent clients, and each candidate's (round trip, result)."""
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=clients) as pool:
        answers = list(pool.map(lambda candidate: server.judge(args, *candidate), chosen))
    return time.perf_counter() - started, answers


def median_ms(values: list[float]) -> float:
    return 1000.0 * statistics.median(values)


def report(args: argparse.Namespace, chosen, batch_window, batch_lines, serve_window, concurrent_answers,
           sequential_answers, workers: int, executor: str) -> tuple[str, bool]:
    n = len(chosen)
    batch_rate = 60.0 * n / batch_window
    serve_rate = 60.0 * n / serve_window
    lines = [f"# tritongym serve against eval --batch ({time.strftime('%Y-%m-%d %H:%M')})", "",
             f"{n} candidates (task oracles), stage `{args.stage}`, {args.seeds} seeds, executor `{executor}` "
             f"with {workers} workers; the server driven by {args.clients} concurrent clients.", "",
             "| path | judging window (s) | candidates per minute | against the batch |", "|---|---|---|---|",
             f"| eval --batch | {batch_window:.2f} | {batch_rate:.1f} | 1.00 |",
             f"| serve, {args.clients} clients | {serve_window:.2f} | {serve_rate:.1f} | {serve_rate / batch_rate:.2f} |",
             ""]
    ok = serve_rate >= 0.9 * batch_rate
    def beyond_judging(answers):
        return [rtt - result["_server_timing"]["judge"] for rtt, result in answers]

    if sequential_answers:
        added = median_ms(beyond_judging(sequential_answers))
        ok = ok and added < 5.0
        lines += [f"Added by serve per request, one client at a time (round trip minus the server's judging time, "
                  f"median): **{added:.2f} ms**.", ""]
    queued = [result["_server_timing"]["queue"] for _, result in concurrent_answers]
    lines += [f"With {args.clients} clients: round trip minus judging, median "
              f"{median_ms(beyond_judging(concurrent_answers)):.1f} ms, of which waiting in the queue for a free "
              f"worker {median_ms(queued):.1f} ms.", ""]
    disagree = [task for (task, _), line, (_, result) in zip(chosen, batch_lines, concurrent_answers)
                if line["verdict"] != result["verdict"]]
    lines += ["Verdicts: " + ("the same on both paths" if not disagree else "differ for " + ", ".join(disagree)), ""]
    lines += ["| task | batch verdict | batch host s | serve verdict | serve round trip s (8 clients) |",
              "|---|---|---|---|---|"]
    for (task, _), line, (rtt, result) in zip(chosen, batch_lines, concurrent_answers):
        lines.append(f"| {task} | {line['verdict']} | {line['host_seconds']:.3f} | {result['verdict']} | {rtt:.3f} |")
    lines += ["", f"Goal (serve >= 90% of the batch's rate, < 5 ms added): {'met' if ok else 'not met'}."]
    return "\n".join(lines) + "\n", not disagree


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tritongym", default=os.path.join(ROOT, "build", "bin", "tritongym"))
    parser.add_argument("--executor", default="auto")
    parser.add_argument("--executor-config", default="{}")
    parser.add_argument("--tasks", default=",".join(DEFAULT_TASKS), help="comma-separated task ids (their oracles)")
    parser.add_argument("--stage", default="test", choices=["compile", "test", "benchmark", "profile", "final"])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--no-latency-pass", action="store_true",
                        help="skip the one-client-at-a-time pass that measures the added latency")
    parser.add_argument("--out", default="", help="also write the report to this Markdown file")
    args = parser.parse_args()
    chosen = candidates([task for task in args.tasks.split(",") if task])

    batch_window, batch_lines = batch_pass(args, chosen)
    with Server(args, queue=max(len(chosen), 1)) as server:
        server.wait_ready()
        with urllib.request.urlopen(server.base + "/v1/health") as reply:
            health = json.loads(reply.read())
        serve_window, concurrent_answers = serve_pass(args, server, chosen, args.clients)
        sequential = [] if args.no_latency_pass else serve_pass(args, server, chosen, 1)[1]
    text, agree = report(args, chosen, batch_window, batch_lines, serve_window, concurrent_answers, sequential,
                      health["workers"], health["executor"])
    print(text, end="")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(text)
    return 0 if agree else 1  # the goal is said in the report; differing verdicts are an error


if __name__ == "__main__":
    sys.exit(main())
