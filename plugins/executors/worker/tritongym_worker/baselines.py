"""Baselines and ceilings, timed in the trusted reference worker with the candidate's own timing loop.

- Baselines per task, shape and dtype: PyTorch eager (the reference), torch.compile(reference) and the
  task's oracle, timed interleaved over the same input sets the candidate is timed on.
- Ceilings per machine: device copy bandwidth and the matrix rate per dtype, the best this GPU reached
  here; the speed-of-light floor of a shape is max(FLOPs / matrix rate, bytes / bandwidth).

Both are measured once per machine and kept in a cache folder (keyed by GPU, driver, torch, triton and
the task's files), so a run pays for them once.
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import json
import math
import os
import threading
from typing import Any, Callable, Sequence

import torch

from . import timing
from .inputs import DTYPES, evaluate_expression

COPY_BYTES = 1 << 30  # 1 GiB each way: far above any L2
MATMUL_SIZE = 8192
COMPILE_SECONDS = 120.0  # torch.compile of a reference gets this long; Python loops are unrolled
BASELINES = ("eager", "compile", "oracle")  # what an executor's `baselines` may name (executor_config.hpp)
RETRY_SECONDS = 0.25  # how often a compile deadline that Python dropped is raised again


class CompileDeadline(BaseException):
    """Raised inside the compiling thread when its time is up (a BaseException, so no `except
    Exception` in torch's compiler swallows it)."""


def machine_key() -> str:
    properties = torch.cuda.get_device_properties(torch.cuda.current_device())
    import triton

    identity = f"{properties.name}|{torch.version.cuda}|{torch.__version__}|{triton.__version__}|" \
               f"{properties.multi_processor_count}|{_driver_version()}"
    return hashlib.sha256(identity.encode()).hexdigest()[:16]


def _driver_version() -> str:
    try:
        import tritongym_native

        return str(tritongym_native.describe().get("cuda_driver_api_version", ""))
    except Exception:
        return ""


def l2_bytes() -> int:
    return int(torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size)


class Cache:
    """A JSON file per entry under `folder`, written atomically."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        os.makedirs(folder, exist_ok=True)

    def get(self, key: str) -> Any:
        try:
            with open(os.path.join(self.folder, key + ".json")) as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: Any) -> None:
        path = os.path.join(self.folder, key + ".json")
        with open(path + ".tmp", "w") as handle:
            json.dump(value, handle, indent=1)
        os.replace(path + ".tmp", path)


def measure_ceilings() -> dict[str, Any]:
    """The copy bandwidth and matrix rates this GPU reaches (CUPTI medians)."""
    device = torch.device("cuda", torch.cuda.current_device())
    source = torch.empty(COPY_BYTES, dtype=torch.uint8, device=device).random_()
    target = torch.empty_like(source)
    session = timing.time_functions({"copy": lambda s, t: t.copy_(s)}, [[source, target]], l2_bytes=l2_bytes(),
                                    cold_l2=False, target_seconds=0.3, min_calls=10, max_calls=50)
    copy_us = session.calls["copy"].summary()["median_us"]
    del source, target
    rates: dict[str, float] = {}
    n = MATMUL_SIZE
    for name in ("float16", "bfloat16", "float32"):
        a = torch.randn(n, n, device=device, dtype=DTYPES[name])
        b = torch.randn(n, n, device=device, dtype=DTYPES[name])
        session = timing.time_functions({"mm": torch.mm}, [[a, b]], l2_bytes=l2_bytes(), cold_l2=False,
                                        target_seconds=0.3, min_calls=5, max_calls=30)
        rates[name] = 2.0 * n ** 3 / (session.calls["mm"].summary()["median_us"] * 1e-6)
    if hasattr(torch, "float8_e4m3fn") and torch.cuda.get_device_capability(device) >= (8, 9):
        a = torch.randn(n, n, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=device).to(torch.float8_e4m3fn).t()
        one = torch.ones((), device=device)
        scaled = lambda x, y: torch._scaled_mm(x, y, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
        session = timing.time_functions({"mm": scaled}, [[a, b]], l2_bytes=l2_bytes(), cold_l2=False,
                                        target_seconds=0.3, min_calls=5, max_calls=30)
        rates["float8_e4m3fn"] = 2.0 * n ** 3 / (session.calls["mm"].summary()["median_us"] * 1e-6)
        rates["float8_e5m2"] = rates["float8_e4m3fn"]
    # Integer and 64-bit work is bounded by the fastest rate measured: a floor may only be too low.
    return {"copy_bytes_per_s": 2.0 * COPY_BYTES / (copy_us * 1e-6), "matrix_flops_per_s": rates,
            "device": torch.cuda.get_device_name(device), "l2_bytes": l2_bytes(),
            "method": f"CUPTI medians: {COPY_BYTES >> 20} MiB device copy; {n}^3 torch.mm per dtype"}


def distinct_lower_bound(draws: float, values: float, miss_probability: float = 1e-9) -> float:
    """How many distinct values `draws` independent uniform draws from `values` values hold at least, but for a
    chance below `miss_probability`: the expected count V(1 - (1 - 1/V)^n) less McDiarmid's deviation
    sqrt(n ln(1/p) / 2) (one draw changes the count by at most one). For byte formulas of gathers whose indices
    the task draws uniformly (`distribution: randint`): the table rows DRAM must move at the least, with reuse,
    so that the speed-of-light floor stays a bound that no correct kernel beats (docs/task-format.md)."""
    n, v = float(draws), float(values)
    if n <= 0 or v <= 0:
        return 0.0
    expected = v * -math.expm1(n * math.log1p(-1.0 / v)) if v > 1 else 1.0
    deviation = math.sqrt(n * math.log(1.0 / miss_probability) / 2.0)
    return max(1.0, expected - deviation)


def work_of(flops_formula: str, bytes_formula: str, dims: dict[str, int], dtype: str) -> dict[str, float]:
    """The task's FLOP and byte counts at one shape ({} entries for missing formulas). Formulas may use the
    shape's dimensions, `dtype_bytes` and `distinct_lower_bound(draws, values)`."""
    scope: dict[str, Any] = dict(dims)
    scope["dtype_bytes"] = torch.empty((), dtype=DTYPES.get(dtype, torch.float32)).element_size()
    scope["distinct_lower_bound"] = distinct_lower_bound
    out = {}
    if flops_formula:
        out["flops"] = float(evaluate_expression(flops_formula, scope))
    if bytes_formula:
        out["bytes"] = float(evaluate_expression(bytes_formula, scope))
    return out


def speed_of_light_us(work: dict[str, float], dtype: str, ceilings: dict[str, Any]) -> float | None:
    """max(FLOPs / matrix rate of the dtype, bytes / copy bandwidth), in µs; None without formulas."""
    floors = []
    if work.get("bytes"):
        floors.append(work["bytes"] / ceilings["copy_bytes_per_s"])
    if work.get("flops"):
        rates = ceilings["matrix_flops_per_s"]
        # The fastest tensor-core rate that applies, so the floor is never too high: fp32 work may run
        # as TF32 and 16-bit work as fp16/bf16; only fp8 inputs reach the fp8 rate.
        usable = [value for name, value in rates.items() if dtype.startswith("float8") or not name.startswith("float8")]
        floors.append(work["flops"] / max(usable or rates.values()))
    floors = [f for f in floors if math.isfinite(f) and f > 0]
    return max(floors) * 1e6 if floors else None


def _load_module(path: str, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def file_digest(*paths: str) -> str:
    digest = hashlib.sha256()
    for path in paths:
        if path and os.path.exists(path):
            with open(path, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()[:16]


def compile_with_deadline(reference: Callable[..., Any], values: list[Any], seconds: float) -> Callable[..., Any]:
    """torch.compile(reference), compiled by one call on `values` in this thread, given `seconds`.

    Dynamo unrolls Python loops: a reference that steps through 8192 time steps gives a graph no compiler
    finishes in minutes. Past the deadline a watchdog thread raises CompileDeadline in this thread (the
    compiler works in Python, between bytecodes), and a TimeoutError says so; the baseline is then
    missing with that reason. An exception raised that way can land in a weakref callback or a __del__,
    where Python prints and drops it (seen on a cold inductor cache: the compile then ran on for minutes),
    so the watchdog raises it again every RETRY_SECONDS until the compile has stopped. The compile stays in
    the calling thread: a function torch.compile traced in one thread crashed (SIGSEGV in the fake-tensor
    mode) when called from another."""
    compiled = torch.compile(reference)
    before = dispatch_state()
    target = ctypes.c_ulong(threading.get_ident())
    lock = threading.Lock()
    state = {"done": False, "fired": False}
    cancelled = threading.Event()

    def watchdog() -> None:
        wait = seconds
        while not cancelled.wait(wait):
            with lock:
                if state["done"]:
                    return
                state["fired"] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, ctypes.py_object(CompileDeadline))
            wait = RETRY_SECONDS

    thread = threading.Thread(target=watchdog, name="tritongym-compile-deadline", daemon=True)
    thread.start()
    try:
        try:
            with torch.no_grad():
                compiled(*values)
        finally:
            with lock:
                state["done"] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(target, None)  # one raised but not yet delivered
            cancelled.set()
    except BaseException as error:
        # Past the deadline, whatever stopped the compile is the deadline's doing: torch may have wrapped it.
        if state["fired"] and not isinstance(error, KeyboardInterrupt):
            restore_dispatch_state(before)  # eager and the oracle are timed next, in this thread
            raise TimeoutError(f"torch.compile did not finish compiling the reference within {seconds:.0f} s") from None
        raise
    finally:
        thread.join()
    return compiled


def dispatch_state() -> dict[str, Any]:
    """This thread's dispatch state: the dispatch keys its local sets include and exclude, and the depths of
    its dispatch and function mode stacks."""
    keys = set(torch._C.DispatchKey.__members__.values())
    return {"included": {k for k in keys if torch._C._dispatch_tls_is_dispatch_key_included(k)},
            "excluded": {k for k in keys if torch._C._dispatch_tls_is_dispatch_key_excluded(k)},
            "dispatch_modes": torch._C._len_torch_dispatch_stack(),
            "function_modes": torch._C._len_torch_function_stack()}


def restore_dispatch_state(before: dict[str, Any]) -> list[str]:
    """Puts this thread's dispatch state back as `before` had it, and says what it changed.

    A compile stopped by its deadline unwinds from wherever the exception landed, sometimes inside the
    cleanup of a context the compiler had entered. Then that context's key stays in the local set: on the
    CPU machine (2026-12-03) a later eager call failed with "Hit PythonDispatcher dispatch key but
    PythonDispatcherTLS was not set"."""
    now = dispatch_state()
    changed = []
    for which, set_key in (("included", torch._C._dispatch_tls_set_dispatch_key_included),
                           ("excluded", torch._C._dispatch_tls_set_dispatch_key_excluded)):
        for key in sorted(now[which] ^ before[which], key=lambda k: k.name):
            set_key(key, key in before[which])
            changed.append(f"{key.name} {which}: {key in before[which]}")
    for name, depth, pop in (("dispatch_modes", torch._C._len_torch_dispatch_stack, torch._C._pop_torch_dispatch_stack),
                             ("function_modes", torch._C._len_torch_function_stack, torch._C._pop_torch_function_stack)):
        while depth() > before[name]:
            pop()
            changed.append(f"{name}: popped one")
    return changed


def baseline_key(machine: str, files: str, task_id: str, dims: dict[str, Any], dtype: str, cold_l2: bool,
                 which: Sequence[str] = BASELINES) -> str:
    """The cache key of one shape's baselines. The full set keeps the key it had before `which` existed;
    a subset names itself, so that its entry is never taken for the full set's."""
    parts: list[Any] = [machine, files, task_id, dims, dtype, cold_l2, timing.METHOD]
    chosen = sorted(set(which))
    if chosen != sorted(BASELINES):
        parts.append(chosen)
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def timeout_key(machine: str, files: str, task_id: str, compile_seconds: float = COMPILE_SECONDS) -> str:
    """The cache key under which a task's torch.compile that ran past its deadline is remembered, so that its
    later shapes do not compile the same unrolled loops again. The default deadline keeps the key it had before
    the deadline could be set."""
    parts: list[Any] = [machine, files, task_id]
    if compile_seconds != COMPILE_SECONDS:
        parts.append(compile_seconds)
    return "compile-timeout-" + hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:24]


def compile_given_up_sooner(found: dict[str, Any], compile_seconds: float) -> bool:
    """A cached entry whose torch.compile was stopped at a shorter deadline than `compile_seconds` (entries from
    before the deadline could be set had COMPILE_SECONDS): it is timed again, so a longer deadline gets its chance."""
    problem = found.get("problems", {}).get("compile", "")
    return problem.startswith("TimeoutError") and float(found.get("compile_seconds", COMPILE_SECONDS)) < compile_seconds


def only(found: dict[str, Any], which: Sequence[str]) -> dict[str, Any]:
    """A cached entry of more baselines, cut down to `which` (its numbers and its problems)."""
    dropped = [name for name in BASELINES if name not in which]
    kept = {key: value for key, value in found.items() if not any(key.startswith(name + "_") for name in dropped)}
    kept["problems"] = {key: value for key, value in found.get("problems", {}).items() if key in which}
    timed = found.get("timed", [name for name in BASELINES if f"{name}_us" in found])  # older entries
    kept["timed"] = [name for name in timed if name in which]
    return kept


def baseline_functions(reference: Callable[..., Any], oracle: Callable[..., Any] | None,
                       input_sets: list[list[Any]], which: Sequence[str] = BASELINES,
                       compile_seconds: float = COMPILE_SECONDS,
                       compile_problem: str = "") -> tuple[dict[str, Callable[..., Any]], dict[str, str]]:
    """The functions to time, of `which`, in BASELINES order, and the problems of those that could not be
    made. `compile_problem` (an earlier shape's compile failure) skips torch.compile."""
    functions: dict[str, Callable[..., Any]] = {}
    problems: dict[str, str] = {}
    if "eager" in which:
        functions["eager"] = reference
    if "compile" in which:
        if compile_problem:
            problems["compile"] = compile_problem
        else:
            try:
                functions["compile"] = compile_with_deadline(reference, input_sets[0], compile_seconds)
            except Exception as error:  # a reference torch.compile cannot handle: reported, not fatal
                problems["compile"] = f"{type(error).__name__}: {(str(error).splitlines() or [''])[0][:200]}"
    if "oracle" in which and oracle is not None:
        functions["oracle"] = oracle
    return functions, problems


def time_baselines(reference: Callable[..., Any], oracle: Callable[..., Any] | None,
                   input_sets: list[list[Any]], cold_l2: bool = True,
                   compile_seconds: float = COMPILE_SECONDS, compile_problem: str = "",
                   which: Sequence[str] = BASELINES) -> dict[str, Any]:
    """Those of eager, torch.compile and the oracle that `which` names, interleaved call by call over the
    same input sets."""
    functions, problems = baseline_functions(reference, oracle, input_sets, which, compile_seconds, compile_problem)
    out: dict[str, Any] = {"cold_l2": cold_l2, "problems": problems, "timed": list(functions)}
    if not functions:
        return out
    session = timing.time_functions(functions, input_sets, l2_bytes=l2_bytes(), cold_l2=cold_l2)
    out["cold_l2"] = session.cold_l2
    for name, times in session.calls.items():
        summary = times.summary()
        out[f"{name}_us"] = summary["median_us"]
        out[f"{name}_spread_pct"] = summary["spread_pct"]
        out[f"{name}_repetitions"] = summary["repetitions"]
    return out
