"""Does another process creating CUDA contexts move a kernel's measured time?

The executor forks each candidate's child ahead of its request, and the child creates its CUDA context then
(`_Spare` in the worker's candidate.py). It does so under the share of the GPU held by the evaluation that forked
it, so that the context's work never falls in another candidate's turn alone. This bench measures what that rule
guards against: one process times a fixed kernel, call by call with CUDA events, while a second process forks
children that each create a CUDA context, allocate, synchronise and exit, one after another. The disturbance is
on and off in alternating blocks (off, on, off, on, ...), so that a drift of the GPU hits both alike; the ratio is
against the quiet blocks of the same run.

    python bench/context_interference.py [--blocks 10] [--block-seconds 1.0] [--elements 67108864]
        [--out FILE.md] [--save FILE.json]

Per block: the median of the calls, their mean, 99th percentile and maximum; the contexts created in it. A
context creation that lands on a call shows in the tail and the mean, and moves the median only if it is
frequent enough. Needs a GPU.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time


def _disturber(commands: "multiprocessing.connection.Connection", created: "multiprocessing.sharedctypes.Synchronized") -> None:
    """Forks children that create a CUDA context each, while told "on". torch is imported here without touching
    CUDA, as in a fork server, so every child makes a context of its own."""
    import torch

    on = False
    while True:
        if commands.poll(0 if on else 0.05):
            command = commands.recv()
            commands.send(command)  # no child is in flight now: a quiet block starts quiet
            if command == "stop":
                return
            on = command == "on"
        if not on:
            continue
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                torch.empty(1 << 20, device="cuda").fill_(1.0)
                torch.cuda.synchronize()
            except BaseException:  # noqa: BLE001  (reported as a count that does not grow)
                code = 1
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            with created.get_lock():
                created.value += 1


def measure(blocks: int, block_seconds: float, elements: int) -> dict:
    spawn = multiprocessing.get_context("spawn")  # a fresh interpreter: no CUDA state inherited
    ours, theirs = spawn.Pipe()
    created = spawn.Value("l", 0)
    disturber = spawn.Process(target=_disturber, args=(theirs, created), daemon=True)
    disturber.start()

    import torch

    x = torch.randn(elements, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)

    def call() -> None:
        torch.mul(x, 2.0, out=y)

    for _ in range(50):  # the kernel's first launches and the clocks settle
        call()
    torch.cuda.synchronize()

    results = []
    try:
        for block in range(blocks * 2):
            on = block % 2 == 1
            ours.send("on" if on else "off")
            if not ours.poll(60):  # said once no child of the last block is in flight (one takes about 0.5 s)
                raise RuntimeError("the disturbing process did not answer within 60 s")
            ours.recv()
            before = created.value
            pairs = []
            ends = time.perf_counter() + block_seconds
            while time.perf_counter() < ends:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                call()
                end.record()
                pairs.append((start, end))
                if len(pairs) % 64 == 0:
                    end.synchronize()  # the host stays near the GPU, so each call is timed on its own
            torch.cuda.synchronize()
            calls_us = [s.elapsed_time(e) * 1e3 for s, e in pairs]
            results.append({"block": block, "disturbed": on, "calls": len(calls_us),
                            "contexts": created.value - before,
                            "median_us": statistics.median(calls_us), "mean_us": statistics.fmean(calls_us),
                            "p99_us": statistics.quantiles(calls_us, n=100)[98], "max_us": max(calls_us)})
    finally:
        ours.send("stop")
        disturber.join(timeout=30)
        if disturber.is_alive():
            disturber.kill()
    return {"device": torch.cuda.get_device_name(0), "elements": elements, "block_seconds": block_seconds,
            "blocks": results}


def report(measured: dict) -> str:
    blocks = measured["blocks"]
    quiet = [b for b in blocks if not b["disturbed"]]
    loud = [b for b in blocks if b["disturbed"]]
    lines = [f"device: {measured['device']}; kernel: torch.mul of {measured['elements']} float16 elements, "
             f"each call timed with CUDA events; {len(quiet)} quiet and {len(loud)} disturbed blocks of "
             f"{measured['block_seconds']:g} s, alternating",
             "",
             "| block | contexts created | calls | median µs | mean µs | p99 µs | max µs |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for b in blocks:
        lines.append(f"| {b['block']}{' (disturbed)' if b['disturbed'] else ''} | {b['contexts']} | {b['calls']} | "
                     f"{b['median_us']:.2f} | {b['mean_us']:.2f} | {b['p99_us']:.2f} | {b['max_us']:.2f} |")
    if quiet and loud:
        def ratio(key: str) -> float:
            return statistics.median(b[key] for b in loud) / statistics.median(b[key] for b in quiet)
        quiet_medians = [b["median_us"] for b in quiet]
        spread = (max(quiet_medians) - min(quiet_medians)) / statistics.median(quiet_medians)
        lines += ["",
                  f"disturbed against quiet (the median over blocks of each figure): median x{ratio('median_us'):.4f}, "
                  f"mean x{ratio('mean_us'):.4f}, p99 x{ratio('p99_us'):.4f}, max x{ratio('max_us'):.4f}; "
                  f"the quiet blocks' medians spread {spread * 100:.2f}% among themselves; "
                  f"{sum(b['contexts'] for b in loud)} contexts created in the disturbed blocks, "
                  f"{sum(b['contexts'] for b in quiet)} in the quiet ones"]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blocks", type=int, default=10, help="pairs of quiet and disturbed blocks")
    parser.add_argument("--block-seconds", type=float, default=1.0)
    parser.add_argument("--elements", type=int, default=1 << 26)
    parser.add_argument("--out", help="write the report here as well")
    parser.add_argument("--save", help="keep every block's figures as JSON")
    args = parser.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("context_interference: no CUDA device here; this bench needs a GPU", file=sys.stderr)
        return 2
    measured = measure(args.blocks, args.block_seconds, args.elements)
    text = report(measured)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    if args.save:
        with open(args.save, "w") as handle:
            json.dump(measured, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
