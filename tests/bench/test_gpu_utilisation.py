"""bench/gpu_utilisation.py against a stand-in nvidia-smi (a script that prints samples as the real one does)."""
from __future__ import annotations

import os
import stat
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from gpu_utilisation import GpuUtilisation  # noqa: E402

# Prints "<local time>, <percent> %" every 50 ms: 40 then 80, then 80 until stopped; also what the real one
# prints for a GPU it cannot read.
STAND_IN = """#!/usr/bin/env bash
echo "$@" > "$(dirname "$0")/arguments"
echo "$(date +'%Y/%m/%d %H:%M:%S.%3N'), [N/A]"
echo "$(date +'%Y/%m/%d %H:%M:%S.%3N'), 40 %"
while true; do sleep 0.05; echo "$(date +'%Y/%m/%d %H:%M:%S.%3N'), 80 %"; done
"""


def stand_in(folder) -> str:
    path = os.path.join(folder, "fake-nvidia-smi")
    with open(path, "w") as handle:
        handle.write(STAND_IN)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


def test_a_window_averages_the_samples_taken_in_it(tmp_path):
    command = stand_in(tmp_path)
    with GpuUtilisation(command=command, gpu=3) as gpu:
        started = time.time() - 1.0  # the first samples come at once
        time.sleep(0.6)
        ended = time.time()
        whole = gpu.window(started, ended)
        assert whole is not None and whole["samples"] >= 5
        assert 40 < whole["mean_pct"] < 80  # the one 40 among the 80s; "[N/A]" is left out
        later = gpu.window(ended - 0.2, ended)
        assert later is not None and later["mean_pct"] == 80
        assert gpu.window(ended + 60, ended + 120) is None  # no sample there
    arguments = (tmp_path / "arguments").read_text().split()
    assert "-i" in arguments and arguments[arguments.index("-i") + 1] == "3"
    assert "--query-gpu=timestamp,utilization.gpu" in arguments


def test_without_nvidia_smi_nothing_is_sampled():
    with GpuUtilisation(command="no-such-nvidia-smi") as gpu:
        assert gpu.unavailable == "no-such-nvidia-smi not found"
        assert gpu.samples() == []
        assert gpu.window(0, time.time()) is None


def test_closing_stops_the_sampler(tmp_path):
    gpu = GpuUtilisation(command=stand_in(tmp_path))
    time.sleep(0.2)
    gpu.close()
    assert gpu.process is not None and gpu.process.poll() is not None
