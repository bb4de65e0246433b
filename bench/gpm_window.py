"""Can a process that never touches CUDA measure another process's GPU busy time and DRAM traffic over a window,
through NVML's GPM counters (Hopper and newer), precisely enough to check a candidate's timing report?
(docs/anti-cheat.md, "The child's report".)

    python bench/gpm_window.py        (on the GPU machine; needs libnvidia-ml and torch)

This process samples GPM around each window; a torch child runs N copies of 1 GiB (about 0.5 ms each on an
H200) and then idles for a while, and says what its CUDA events measured. Each line: the window by this
process's clock, the child's event time, and GPM's busy time (graphics utilisation x window) and DRAM
utilisation x window. Last, back-to-back samples a few milliseconds apart: whether a sample moves at all
between the counters' refreshes.
"""
from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import time

GRAPHICS_UTIL, SM_UTIL, DRAM_BW_UTIL = 1, 2, 10   # nvmlGpmMetricId_t
METRICS = {"graphics_util": GRAPHICS_UTIL, "sm_util": SM_UTIL, "dram_bw_util": DRAM_BW_UTIL}
WINDOWS = [(1, 0), (4, 0), (10, 0), (40, 0), (100, 0), (10, 20), (10, 100), (40, 200), (200, 0), (0, 50), (0, 150)]


class MetricInfo(ctypes.Structure):
    _fields_ = [("shortName", ctypes.c_char_p), ("longName", ctypes.c_char_p), ("unit", ctypes.c_char_p)]


class Metric(ctypes.Structure):
    _fields_ = [("metricId", ctypes.c_uint), ("nvmlReturn", ctypes.c_int), ("value", ctypes.c_double),
                ("metricInfo", MetricInfo)]


class MetricsGet(ctypes.Structure):  # nvmlGpmMetricsGet_t, version 1; the array is larger than any NVML's
    _fields_ = [("version", ctypes.c_uint), ("numMetrics", ctypes.c_uint), ("sample1", ctypes.c_void_p),
                ("sample2", ctypes.c_void_p), ("metrics", Metric * 512)]


class Support(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("isSupportedDevice", ctypes.c_uint)]


# The child: two 1 GiB buffers; per request "N IDLE_MS", N copies timed by events, then IDLE_MS of nothing.
CHILD = r"""
import sys, time, torch
x = torch.empty(256 * 2**20, dtype=torch.float32, device="cuda")
y = torch.empty_like(x)
for _ in range(3):
    y.copy_(x)
torch.cuda.synchronize()
print("ready", flush=True)
for line in sys.stdin:
    n, idle_ms = line.split()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(int(n)):
        y.copy_(x)
    end.record()
    torch.cuda.synchronize()
    time.sleep(float(idle_ms) / 1000)
    print(start.elapsed_time(end), flush=True)
"""


class Gpm:
    def __init__(self) -> None:
        try:
            self.nvml = ctypes.CDLL("libnvidia-ml.so.1")
        except OSError as error:
            raise SystemExit(f"GPM: NVML cannot be loaded ({error}); this needs an NVIDIA driver") from error
        self.nvml.nvmlErrorString.restype = ctypes.c_char_p
        self.check(self.nvml.nvmlInit_v2(), "nvmlInit")
        self.device = ctypes.c_void_p()
        self.check(self.nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(self.device)), "device 0")
        support = Support(1, 0)
        self.check(self.nvml.nvmlGpmQueryDeviceSupport(self.device, ctypes.byref(support)), "GPM support")
        if not support.isSupportedDevice:
            raise SystemExit("GPM: not supported on device 0")
        self.first, self.second = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(self.nvml.nvmlGpmSampleAlloc(ctypes.byref(self.first)), "sample")
        self.check(self.nvml.nvmlGpmSampleAlloc(ctypes.byref(self.second)), "sample")

    def check(self, code: int, what: str) -> None:
        if code != 0:
            raise SystemExit(f"{what}: NVML error {code} ({self.nvml.nvmlErrorString(code).decode()})")

    def sample(self, which: ctypes.c_void_p) -> None:
        self.check(self.nvml.nvmlGpmSampleGet(self.device, which), "nvmlGpmSampleGet")

    def metrics(self) -> dict[str, float | str]:
        wanted = MetricsGet(version=1, numMetrics=len(METRICS), sample1=self.first, sample2=self.second)
        for i, metric in enumerate(METRICS.values()):
            wanted.metrics[i].metricId = metric
        self.check(self.nvml.nvmlGpmMetricsGet(ctypes.byref(wanted)), "nvmlGpmMetricsGet")
        return {name: wanted.metrics[i].value if wanted.metrics[i].nvmlReturn == 0 else f"error {wanted.metrics[i].nvmlReturn}"
                for i, name in enumerate(METRICS)}


def main() -> int:
    gpm = Gpm()
    state = ctypes.c_uint(0)
    gpm.nvml.nvmlGpmQueryIfStreamingEnabled(gpm.device, ctypes.byref(state))
    print(f"GPM supported; streaming {state.value}; enabling it returned {gpm.nvml.nvmlGpmSetStreamingEnabled(gpm.device, 1)}")
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if child.stdout.readline().strip() != "ready":
        raise SystemExit("the torch child did not start")
    for copies, idle_ms in WINDOWS:
        for repeat in range(3):
            gpm.sample(gpm.first)
            began = time.perf_counter()
            child.stdin.write(f"{copies} {idle_ms}\n")
            child.stdin.flush()
            event_ms = float(child.stdout.readline())
            gpm.sample(gpm.second)
            window_ms = (time.perf_counter() - began) * 1000
            measured = gpm.metrics()
            times = {f"{name}_x_window_ms": round(value * window_ms / 100, 3) if isinstance(value, float) else None
                     for name, value in measured.items() if name != "sm_util"}
            print(json.dumps({"copies": copies, "idle_ms": idle_ms, "repeat": repeat, "window_ms": round(window_ms, 3),
                              "event_ms": round(event_ms, 3), **times, **measured}), flush=True)
    child.stdin.close()
    child.wait()
    for gap_s in [0.0, 0.005, 0.02, 0.05, 0.12]:  # nothing runs: does a sample move between refreshes?
        gpm.sample(gpm.first)
        time.sleep(gap_s)
        gpm.sample(gpm.second)
        print(f"back-to-back samples {gap_s * 1000:.0f} ms apart: {gpm.metrics()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
