"""What confining a candidate's child costs: its network and IPC namespaces, the seccomp filter and Landlock.

A real candidate fork server (the worker's CandidateRole, on the CPU, or on CUDA with --device cuda) runs the same
small candidate many times, in alternating blocks with the network confinement as built and without it (namespaces
and the seccomp filter replaced by no-ops in the fork server, which its children inherit; Landlock stays, as it was
before them), so that a drift of the machine hits both alike. Per block: the median wall time of a run, as the fork
server measures it (`wall_seconds`: the child's own time, from the request to its exit); and, from the confined
runs' records (`sandbox.seconds`), the median time each mechanism took in the child.

    python bench/sandbox_cost.py [--blocks 6] [--runs 20] [--device cpu] [--out FILE.md]

The ratio is confined over unconfined, from the same run. Needs the worker's Python (torch, triton).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "plugins" / "executors" / "worker"))

CANDIDATE = "def double(x):\n    return x * 2\n"


def _request(folder: Path, device: str) -> dict:
    import torch

    inputs = folder / "inputs" / "case.pt"
    if not inputs.exists():
        inputs.parent.mkdir(parents=True)
        torch.save({"inputs": [torch.arange(8.0)]}, inputs)
    return {"code": CANDIDATE, "entry": "double", "timeout_s": 60.0,
            "cases": [{"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}]}


def _block(folder: Path, device: str, runs: int, confined: bool) -> tuple[list[float], list[dict]]:
    from tritongym_worker import sandbox
    from tritongym_worker.candidate import CandidateRole

    saved = sandbox.enter_namespaces, sandbox.refuse_sockets
    if not confined:
        sandbox.enter_namespaces = lambda: {"network": "", "ipc": "", "problem": "off for the bench", "seconds": 0.0}
        sandbox.refuse_sockets = lambda inet_allowed: {"network": "", "problem": "off for the bench", "seconds": 0.0}
    role = CandidateRole(device, str(folder / "worker"), str(folder / "worker" / "triton-cache"), 0)
    walls, records = [], []
    try:
        for _ in range(runs):
            reply = role.run({**_request(folder, device), "sandbox": "required" if confined else "best_effort"})
            if reply.get("verdict") is not None:
                raise SystemExit(f"the candidate failed: {reply.get('verdict')}: {reply.get('message')}")
            walls.append(reply["wall_seconds"])
            records.append(reply["sandbox"])
    finally:
        role.close()
        sandbox.enter_namespaces, sandbox.refuse_sockets = saved
    return walls, records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=6, help="blocks of each kind, alternating")
    parser.add_argument("--runs", type=int, default=20, help="runs per block")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out", help="also write the table here (Markdown)")
    args = parser.parse_args()
    walls = {True: [], False: []}
    parts: dict[str, list[float]] = {"namespaces": [], "seccomp": [], "landlock": []}
    with tempfile.TemporaryDirectory() as folder:
        for block in range(2 * args.blocks):
            confined = block % 2 == 1
            times, records = _block(Path(folder) / f"block-{block}", args.device, args.runs, confined)
            walls[confined] += times[1:]  # the first run of a fork server forks its first child while it waits
            if confined:
                for record in records:
                    for name in parts:
                        parts[name].append(record["seconds"][name])
    ms = lambda values: statistics.median(values) * 1e3  # noqa: E731
    lines = ["| what | median ms |", "|---|---:|",
             f"| a run, network confinement off | {ms(walls[False]):.2f} |",
             f"| a run, confined as built | {ms(walls[True]):.2f} |"]
    lines += [f"| of which {name} (in the child) | {ms(values):.3f} |" for name, values in parts.items()]
    lines.append(f"\nratio confined / off: {statistics.median(walls[True]) / statistics.median(walls[False]):.3f} "
                 f"({len(walls[True])} and {len(walls[False])} runs, {args.device}, {os.uname().release})")
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
