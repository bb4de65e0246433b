"""nvidia-smi's utilization.gpu (the share of each sample period in which a kernel ran on the GPU), sampled in the
background while a bench runs and averaged over a window of it: whether a pass kept the GPU busy.

    with GpuUtilisation() as gpu:
        started = time.time(); ...; ended = time.time()
        gpu.window(started, ended)   # {"samples": 252, "mean_pct": 52.0}, or None without samples

On the H200 the throughput bench's steady state averaged 52% (2026-11-30, 23:35 UTC) and 28-29% (2026-12-03):
the warm pool leaves the GPU idle much of the time (docs/timing.md, "Where it stands")."""
from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import tempfile
from typing import Any


class GpuUtilisation:
    def __init__(self, command: str = "nvidia-smi", period_ms: int = 100, gpu: int | None = None) -> None:
        self._log = tempfile.NamedTemporaryFile("w+", suffix=".csv", prefix="gpu-utilisation-")
        self.process: subprocess.Popen | None = None
        executable = shutil.which(command)
        if executable is None:
            self.unavailable = f"{command} not found"
            return
        self.unavailable = ""
        if gpu is None:  # the bench's GPU: the first of CUDA_VISIBLE_DEVICES when it names one by index
            visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
            gpu = int(visible) if visible.isdigit() else 0
        self.process = subprocess.Popen(
            [executable, "--query-gpu=timestamp,utilization.gpu", "--format=csv,noheader", "-i", str(gpu),
             "-lms", str(period_ms)], stdout=self._log, stderr=subprocess.DEVNULL)

    def samples(self) -> list[tuple[float, int]]:
        """(seconds since the epoch, percent) for every sample so far. nvidia-smi writes local time."""
        self._log.flush()
        out = []
        with open(self._log.name) as handle:
            for line in handle:
                parts = [part.strip() for part in line.split(",")]
                if len(parts) < 2 or not parts[1].split() or not parts[1].split()[0].isdigit():
                    continue  # "[N/A]", a header, a partial last line
                try:
                    when = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f")
                except ValueError:
                    continue
                out.append((when.timestamp(), int(parts[1].split()[0])))
        return out

    def window(self, started: float, ended: float) -> dict[str, Any] | None:
        """The samples taken between two time.time() readings, averaged; None if there are none."""
        inside = [percent for when, percent in self.samples() if started <= when <= ended]
        if not inside:
            return None
        return {"samples": len(inside), "mean_pct": round(sum(inside) / len(inside), 1)}

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self._log.close()

    def __enter__(self) -> "GpuUtilisation":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
