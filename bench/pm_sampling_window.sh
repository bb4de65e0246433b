#!/usr/bin/env bash
# CUPTI's PM sampling from a process that launches nothing (build/bench/pm_sampling_window), around another
# process's known work: copies of 1 GiB in bursts of 1, 10, 100 and 200, then 2000 tiny kernels; the second time
# with torch.profiler (CUPTI activity tracing) in the working process. docs/anti-cheat.md, "The child's report".
#
#   bash bench/pm_sampling_window.sh [INTERVAL_NS]      (on the GPU machine, from the repository root)
set -euo pipefail
INTERVAL=${1:-20000}
SAMPLER=${PM_SAMPLER:-build/bench/pm_sampling_window}
PY=${TRITONGYM_PYTHON:-python3}
# libcupti and the libnvperf_* it loads: torch's NVIDIA wheels have all three; else the CUDA toolkit.
LIB=$($PY -c "import glob, os, nvidia; found = [os.path.dirname(p) for d in nvidia.__path__ for p in glob.glob(d + '/**/libcupti.so*', recursive=True)]; print(found[0] if found else '')" 2>/dev/null || true)
export LD_LIBRARY_PATH=${LIB:-/usr/local/cuda/lib64}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
WORK=$(mktemp --suffix=.py)
trap 'rm -f "$WORK"' EXIT
cat > "$WORK" <<'PY'
import contextlib, sys, time
import torch
x = torch.empty(256 * 2**20, dtype=torch.float32, device="cuda")
y = torch.empty_like(x)
small = torch.empty(1024, device="cuda")
for _ in range(3):
    y.copy_(x)
torch.cuda.synchronize()
time.sleep(float(sys.argv[1]))
profiled = len(sys.argv) > 2
asked = time.perf_counter()
tracing = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) if profiled else contextlib.nullcontext()
with tracing as profile:
    print(f"work: ready {1000 * (time.perf_counter() - asked):.1f} ms after asking for the profiler", flush=True)
    for copies, idle_s in [(1, 0.05), (10, 0.05), (100, 0.1), (200, 0.1)]:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(copies):
            y.copy_(x)
        end.record()
        torch.cuda.synchronize()
        print(f"work: {copies} copies, {start.elapsed_time(end):.3f} ms by events", flush=True)
        time.sleep(idle_s)
if profiled:
    total = sum(event.self_device_time_total for event in profile.key_averages())
    print(f"work: its kernels by torch.profiler (CUPTI in the working process): {total / 1000:.3f} ms", flush=True)
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(2000):
    small.add_(1)
end.record()
torch.cuda.synchronize()
print(f"work: 2000 tiny kernels, {start.elapsed_time(end):.3f} ms by events", flush=True)
PY
# torch.profiler takes seconds to start: the profiled run is sampled for longer, less often.
for run in "1.0 5 $INTERVAL" "1.0 12 50000 profiled"; do
  set -- $run
  "$PY" "$WORK" "$1" ${4:-} > "$WORK.out" 2>&1 &
  worker=$!
  sleep 0.5
  "$SAMPLER" "$2" "$3"
  wait "$worker"
  grep -v -i warn "$WORK.out"
  rm -f "$WORK.out"
done
