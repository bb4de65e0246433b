"""The timing loop: CUPTI kernel time per call, with CUDA-event and host-clock cross-checks.

Used by the candidate's child (the candidate alone) and by the reference worker (eager, torch.compile
and the oracle, interleaved). docs/timing.md explains the method:

- warm up first (compile and autotune happen there), then time many calls;
- cold L2 by default: each call takes the next of several input sets, and a scrub buffer of twice the
  L2 is read before every call (attributed to the harness, not to the call);
- per call: the sum of the durations of every kernel, memcpy and memset the call launched, on any
  stream (CUPTI, attributed by correlation id); CUDA events on the caller's stream; the host clock
  around the call and a device synchronise;
- the median over calls, the interquartile spread and the number of calls.

The functions this module needs are bound when it is imported, before any candidate code runs, so a
candidate that replaces time.perf_counter or torch.cuda.Event afterwards does not change them here
(integrity.py reports the replacement).
"""
from __future__ import annotations

import glob
import math
import os
import statistics
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import torch

_perf_counter_ns = __import__("time").perf_counter_ns
_Event = torch.cuda.Event
_synchronize = torch.cuda.synchronize
_median = statistics.median

HARNESS_CALL = -2   # work the harness launches between calls (the L2 scrub)
OUTSIDE_CALL = -1   # work launched while no call was in progress


class TimingUnavailable(RuntimeError):
    """The machine cannot time kernels (no GPU, no CUPTI, another profiler attached)."""


def cupti_library_paths() -> list[str]:
    """Where libcupti may be: $TRITONGYM_CUPTI, the CUDA toolkit, the NVIDIA wheels torch came with."""
    paths: list[str] = []
    if os.environ.get("TRITONGYM_CUPTI"):
        paths.append(os.environ["TRITONGYM_CUPTI"])
    for root in filter(None, [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]):
        for folder in ("extras/CUPTI/lib64", "lib64", "targets/x86_64-linux/lib"):
            paths += sorted(glob.glob(os.path.join(root, folder, "libcupti.so*")), reverse=True)
    for site in sys.path:
        paths += sorted(glob.glob(os.path.join(site, "nvidia", "*", "lib", "libcupti.so*")), reverse=True)
    return paths


def native() -> Any:
    """The native module with CUPTI loaded, or TimingUnavailable saying why not."""
    try:
        import tritongym_native
    except ImportError as error:
        raise TimingUnavailable(f"the native module is missing ({error}); rebuild the worker") from error
    if not tritongym_native.cupti_library():
        problem = tritongym_native.cupti_load(cupti_library_paths())
        if problem:
            raise TimingUnavailable(problem)
    return tritongym_native


def tensor_bytes(values: Sequence[Any]) -> int:
    return sum(v.untyped_storage().nbytes() for v in values if isinstance(v, torch.Tensor))


@dataclass
class CallTimes:
    """What one timed function measured, one entry per timed call."""
    name: str
    kernel_us: list[float] = field(default_factory=list)    # CUPTI: summed GPU activity of the call
    span_us: list[float] = field(default_factory=list)      # first start to last end of that activity
    event_us: list[float] = field(default_factory=list)
    wall_us: list[float] = field(default_factory=list)
    activities: list[list[dict[str, Any]]] = field(default_factory=list)  # per call
    outputs: dict[int, Any] = field(default_factory=dict)   # input set -> outputs of its last call

    def summary(self) -> dict[str, Any]:
        return {"median_us": _median(self.kernel_us), "spread_pct": spread_pct(self.kernel_us),
                "repetitions": len(self.kernel_us), "event_median_us": _median(self.event_us),
                "wall_median_us": _median(self.wall_us), "span_median_us": _median(self.span_us)}


def spread_pct(values: Sequence[float]) -> float:
    """Interquartile range over the median, in percent."""
    if len(values) < 4:
        return 0.0
    quartiles = statistics.quantiles(values, n=4)
    middle = _median(values)
    return 100.0 * (quartiles[2] - quartiles[0]) / middle if middle > 0 else 0.0


@dataclass
class TimingSession:
    """The result of one time_functions() call."""
    calls: dict[str, CallTimes]
    outside: list[dict[str, Any]]   # activity launched while no call was in progress
    harness_stream: int
    cold_l2: str                     # how the L2 was kept cold ("rotation over 4 input sets, 214 MB", ...)
    library: str
    seconds: dict[str, float] = field(default_factory=dict)  # warm_up, calls, collect: where its time went


class WindowTrace:
    """CUPTI over a candidate's whole turn alone on the GPU, not the timed loop alone: every kernel, copy and
    memset of the turn (loading the input sets, the warm-up, the estimate, the timed calls, the scrubs, handing
    the outputs over) is an item of the report, so the host can hold the report against what the device itself
    counted in the same window (docs/anti-cheat.md, "The child's report").

    Items are [start_ns, end_ns, shape, call, kind]: `call` is the timed call's index within its shape,
    HARNESS_CALL for a scrub, OUTSIDE_CALL for everything else; `kind` one of WINDOW_KINDS. The functions are bound by the caller before any candidate
    code runs (candidate._TimingGuard)."""

    def __init__(self, start: Callable[[], None], drain: Callable[[], list], stop: Callable[[], list]) -> None:
        self._start, self._drain, self._stop = start, drain, stop
        self.items: list[list[int]] = []
        self.running = False

    def start(self) -> None:
        self._start()
        self.running = True

    def take(self, shape: int) -> list[dict[str, Any]]:
        """What ran since the last take (synchronised first), kept as items of `shape`, and returned whole."""
        return self._keep(self._drain(), shape)

    def stop(self, shape: int) -> list[list[int]]:
        """Ends the trace; every item of the window."""
        if self.running:
            self.running = False
            self._keep(self._stop(), shape)
        return self.items

    def _keep(self, activities: list[dict[str, Any]], shape: int) -> list[dict[str, Any]]:
        self.items += [[a["start_ns"], a["end_ns"], shape, a["call"], _window_kind(a)] for a in activities]
        return activities


# An item's kind: copies to or from the host run on a copy engine, the rest on the device's graphics engine.
WINDOW_KINDS = ("kernel", "memcpy on the device", "memcpy to or from the host", "memset")


def _window_kind(activity: dict[str, Any]) -> int:
    if activity["kind"] == "kernel":
        return 0
    if activity["kind"] == "memset":
        return 3
    return 2 if activity["name"] in ("memcpy HtoD", "memcpy DtoH", "memcpy HtoH") else 1


SLOW_MIN_CALLS = 5  # the fewest timed calls of a function, however slow it is


def plan_rounds(per_round_us: float, target_seconds: float, min_calls: int, max_calls: int,
                max_seconds: float) -> int:
    """How many rounds (one call of each function) to time: enough to fill `target_seconds`, within
    [min_calls, max_calls], and never past `max_seconds` unless that leaves fewer than SLOW_MIN_CALLS."""
    per_round_us = max(per_round_us, 1.0)
    rounds = int(min(max_calls, max(min_calls, target_seconds * 1e6 / per_round_us)))
    return min(rounds, max(SLOW_MIN_CALLS, int(max_seconds * 1e6 / per_round_us)))


# Part of every cached baseline's key: a change to how calls are timed makes earlier baselines stale.
METHOD = "scrub-before-every-cold-call, next-set-per-call"


def call_order(names: Sequence[str], rounds: int, sets: int) -> list[tuple[str, int]]:
    """The timed calls in order, (function, input set): the functions interleaved round by round, each call on
    the next input set, so that a set comes back only after about `sets` calls and as many scrubs, whichever
    function reads it, as it does for a function timed alone. Where the functions' count and the sets' share
    a factor (2 functions, 4 sets), each later turn through the sets starts one further on, so that every
    function still meets every set (a set then comes back after `sets` - 1 calls at least). Not with two
    sets: a shift there would read one set twice in a row, so each of an even number of functions keeps one.

    Before 2026-12-02 a round took one set for all its functions, so the second and third read what the first
    had just read, with one scrub between, and part of it was still in L2. On the H200, the same layernorm
    kernel under three names at 32768 x 1024 float16 read 36.42 us first in its round, 35.36 and 35.33 us
    second and third, and 36.19 us alone; a set per call read 36.19 to 36.27 us for all three."""
    shared = math.gcd(len(names), sets)
    order = []
    for round_index in range(rounds):
        shift = round_index // (sets // shared) if shared > 1 and sets > 2 else 0
        for position, name in enumerate(names):
            order.append((name, (round_index * len(names) + position + shift) % sets))
    return order


def time_functions(functions: dict[str, Callable[..., Any]], input_sets: Sequence[Sequence[Any]], *,
                   l2_bytes: int, cold_l2: bool = True, target_seconds: float = 0.4, min_calls: int = 20,
                   max_calls: int = 500, max_seconds: float = 6.0, keep_outputs: bool = False,
                   window: Optional[WindowTrace] = None, shape: int = 0,
                   order_of: Callable[[Sequence[str], int, int], list[tuple[str, int]]] = call_order) -> TimingSession:
    """Times each function over the input sets, interleaved call by call (a, b, c, a, b, c, ...), so
    slow drifts of clock or temperature hit all of them alike.

    With a `window` (running), CUPTI is neither started nor stopped here: what ran before the timed loop
    and the loop itself are taken from the window, as items of `shape`.

    `min_calls` gives way to `max_seconds` for slow functions (a reference that loops in Python takes a
    quarter of a second a call), down to SLOW_MIN_CALLS calls each. `order_of(names, rounds, sets)` gives the
    calls' order (call_order; a bench may give another, to measure what the order changes)."""
    clock = _perf_counter_ns()
    seconds: dict[str, float] = {}  # warm_up (with the scrub's allocation), calls, collect
    tracer = native()
    device = torch.device("cuda", torch.cuda.current_device())
    sets_bytes = sum(tensor_bytes(values) for values in input_sets)
    # The scrub is read before every call, however large the input sets: rotating over them leaves the
    # inputs cold, but not the output. The caching allocator hands a call the block the previous call's
    # output just freed, whose dirty lines are still in L2, while a function whose outputs are kept (the
    # candidate's, for the re-check) writes to other blocks. On the H200 (2026-11-30) that made the same
    # vector-add kernel at 4M elements time 9.5 us as a baseline and 13.8 us as the candidate.
    scrub: Optional[torch.Tensor] = None
    if cold_l2:
        scrub = torch.zeros(2 * l2_bytes // 8, dtype=torch.int64, device=device)
    how = ("warm L2 (option)" if not cold_l2 else
           f"rotation over {len(input_sets)} input set(s), {sets_bytes / 1e6:.0f} MB, and a "
           f"{2 * l2_bytes / 1e6:.0f} MB scrub read before every call")

    with torch.no_grad():
        # Warm-up: every function on every set (compilation and autotuning happen here).
        for function in functions.values():
            for values in input_sets:
                function(*values)
        _synchronize()
        estimate_us = max(_estimate_us(function, input_sets[0]) for function in functions.values())
    per_round_us = estimate_us * len(functions) + (30.0 if scrub is not None else 0.0)
    rounds = plan_rounds(per_round_us, target_seconds, min_calls, max_calls, max_seconds)
    seconds["warm_up"], clock = (_perf_counter_ns() - clock) / 1e9, _perf_counter_ns()

    results = {name: CallTimes(name) for name in functions}
    stream = torch.cuda.current_stream()
    if window is not None:
        window.take(shape)  # the warm-up and the estimate: items of the window, not of any call
    else:
        tracer.cupti_start()
    try:
        harness_stream = tracer.cupti_stream_id(stream.cuda_stream)
        call = 0
        owners: list[tuple[str, int]] = []
        with torch.no_grad():
            for name, set_index in order_of(list(functions), rounds, len(input_sets)):
                function = functions[name]
                values = input_sets[set_index]
                if scrub is not None:
                    # Reading (not writing) twice the L2 evicts most of the last call's data (not all of
                    # it: call_order) and leaves clean lines, like ncu's cache control: no write-backs
                    # charged to the next call.
                    tracer.cupti_set_call(HARNESS_CALL)
                    torch.sum(scrub, dtype=torch.int64)
                _synchronize()
                start, end = _Event(enable_timing=True), _Event(enable_timing=True)
                tracer.cupti_set_call(call)
                start.record(stream)
                began = _perf_counter_ns()
                returned = function(*values)
                end.record(stream)
                _synchronize()
                ended = _perf_counter_ns()
                tracer.cupti_set_call(OUTSIDE_CALL)
                times = results[name]
                times.event_us.append(start.elapsed_time(end) * 1000.0)
                times.wall_us.append((ended - began) / 1000.0)
                if keep_outputs:
                    times.outputs[set_index] = returned
                owners.append((name, call))
                call += 1
                del returned
    finally:
        seconds["calls"], clock = (_perf_counter_ns() - clock) / 1e9, _perf_counter_ns()
        activities = window.take(shape) if window is not None else tracer.cupti_stop()
    by_call: dict[int, list[dict[str, Any]]] = {}
    outside = []
    for activity in activities:
        if activity["call"] >= 0:
            by_call.setdefault(activity["call"], []).append(activity)
        elif activity["call"] == OUTSIDE_CALL:
            outside.append(activity)
    for name, call in owners:
        ran = by_call.get(call, [])
        times = results[name]
        times.activities.append(ran)
        times.kernel_us.append(sum(a["end_ns"] - a["start_ns"] for a in ran) / 1000.0)
        times.span_us.append((max(a["end_ns"] for a in ran) - min(a["start_ns"] for a in ran)) / 1000.0
                             if ran else 0.0)
    seconds["collect"] = (_perf_counter_ns() - clock) / 1e9  # CUPTI's flush and the attribution
    return TimingSession(results, outside, harness_stream, how, tracer.cupti_library(), seconds)


def _estimate_us(function: Callable[..., Any], values: Sequence[Any]) -> float:
    start, end = _Event(enable_timing=True), _Event(enable_timing=True)
    start.record()
    for _ in range(3):
        function(*values)
    end.record()
    _synchronize()
    return start.elapsed_time(end) * 1000.0 / 3


def kernel_table(times: CallTimes) -> list[dict[str, Any]]:
    """The kernels of the median call (the call whose kernel time is the median), aggregated by name:
    launches, time, launch grid and block, registers and shared memory."""
    if not times.kernel_us:
        return []
    ordered = sorted(range(len(times.kernel_us)), key=times.kernel_us.__getitem__)
    median_call = times.activities[ordered[len(ordered) // 2]]
    table: dict[str, dict[str, Any]] = {}
    for activity in median_call:
        row = table.setdefault(activity["name"], {
            "name": activity["name"], "kind": activity["kind"], "calls": 0, "total_us": 0.0,
            "grid": ",".join(map(str, activity["grid"])), "block": ",".join(map(str, activity["block"])),
            "registers": activity["registers"], "shared_memory_bytes": activity["shared_memory_bytes"],
            "streams": []})
        row["calls"] += 1
        row["total_us"] += (activity["end_ns"] - activity["start_ns"]) / 1000.0
        if activity["stream"] not in row["streams"]:
            row["streams"].append(activity["stream"])
    return sorted(table.values(), key=lambda row: -row["total_us"])


def cross_check(times: CallTimes, harness_stream: int, outside: list[dict[str, Any]]) -> list[str]:
    """Reasons to distrust a candidate's timing; empty when CUPTI, events and the host clock agree.

    - events on the caller's stream must cover the kernels the call launched (a replaced
      Event.elapsed_time, or work that escaped the caller's stream, shows up as events shorter than
      the kernels' span);
    - the host clock around call + synchronise must cover the events (a replaced host timer);
    - every kernel must run on the caller's stream (work on a side stream escapes event timing);
    - nothing may be launched while no call is in progress (a background thread finishing later);
    - each call must launch some GPU work.
    """
    reasons = []
    if not times.kernel_us:
        return ["timing: no call was timed"]
    event, span, wall = _median(times.event_us), _median(times.span_us), _median(times.wall_us)
    if min(times.kernel_us) <= 0.0:
        reasons.append("timing: a timed call launched no GPU work that CUPTI saw")
    if event + 2.0 < 0.9 * span:
        reasons.append(f"timing: CUDA events ({event:.1f} us) are shorter than the kernels' span ({span:.1f} us); "
                       "the event timer was replaced or the work escaped the caller's stream")
    if wall + 5.0 < 0.9 * event:
        reasons.append(f"timing: the host clock ({wall:.1f} us) is shorter than the CUDA events ({event:.1f} us); "
                       "the host timer was replaced")
    streams = sorted({a["stream"] for call in times.activities for a in call})
    if harness_stream >= 0 and any(stream != harness_stream for stream in streams):
        reasons.append(f"timing: kernels ran on stream(s) {[s for s in streams if s != harness_stream]} besides the "
                       f"caller's stream {harness_stream}; work must run on the current stream")
    if outside:
        names = sorted({a["name"] for a in outside})[:3]
        reasons.append(f"timing: {len(outside)} GPU operation(s) were launched while no call was in progress "
                       f"({', '.join(names)}); a thread kept working after the call returned")
    return reasons
