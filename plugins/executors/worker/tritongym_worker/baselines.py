"""Baselines and ceilings, timed in the trusted reference worker with the candidate's own timing loop.

- Baselines per task, shape and dtype: PyTorch eager (the reference), torch.compile(reference), the
  task's oracle and, for a DSL task that ships triton_baseline.py, its entry in plain Triton, timed
  interleaved over the same input sets the candidate is timed on.
- Ceilings per machine: DRAM bandwidth, the matrix rate per dtype and the CUDA cores' rates, the best this GPU
  reached here; the speed-of-light floor of a shape is max(work / the rate of its compute unit, bytes / bandwidth).

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
import types
from typing import Any, Callable, Sequence

import torch

from . import timing
from .inputs import DTYPES, evaluate_expression

COPY_BYTES = 1 << 30  # 1 GiB each way: far above any L2
MATMUL_SIZE = 8192
COMPILE_SECONDS = 120.0  # torch.compile of a reference gets this long; Python loops are unrolled
BASELINES = ("eager", "compile", "oracle", "triton")  # what an executor's `baselines` may name (executor_config.hpp)
# The set whose cache key names no set: the full set before the plain-Triton baseline existed, which every task
# without triton_baseline.py still asks for, so that its cached entries keep their keys.
UNNAMED_SET = ("eager", "compile", "oracle")
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


# The units a task's `compute_unit` may name (docs/task-format.md, "Speed-of-light floors"): which measured rate
# its `flops` formula is divided by. tensor: the fastest tensor-core rate its dtype may use; tf32: fp32 matrix work
# on TF32 tensor cores; simt: fp32 FMAs on the CUDA cores (2 FLOPs each); int: int32 multiply-adds on the CUDA
# cores (2 ops each); memory: no compute floor, bytes only. The next three count instructions, not FLOPs, for work
# that does not fuse into multiply-adds (one per 32-bit lane operation):
# - issue: instructions of any kind at the warp schedulers' limit, one warp instruction per clock per SM
#   sub-partition (128 lanes a clock per SM on sm_80 and sm_90, the fp32 add rate of the CUDA C++ Programming
#   Guide's arithmetic-instruction table); for fp32 adds (|a - b| accumulated: the abs is a free source modifier)
#   and for integer work whose adds and shifts the compiler may also place on the multiply-add pipe.
# - alu: instructions only the ALU pipe executes: fp32 and int32 min/max, compares, logic (LOP3) and shifts,
#   64 lanes a clock per SM on sm_80 and sm_90 ("compare, minimum, maximum", "bitwise AND/OR/XOR" and "shift"
#   rows of that table; NVIDIA's pipe descriptions put FP32 and IMAD on the FMA pipes, the rest here).
# - l2-gather: scattered 4-byte loads served by the L2 (one 32-byte sector each), for gathers from a vector
#   that fits in the L2 but not in the L1: what bounds them is the L2's request rate, not DRAM.
COMPUTE_UNITS = ("tensor", "tf32", "simt", "int", "alu", "issue", "l2-gather", "memory")
INSTRUCTION_RATES = {"issue": "issue_instructions_per_s", "alu": "alu_instructions_per_s",
                     "l2-gather": "l2_gathers_per_s"}  # unit -> ceilings key of the rates counted per instruction
CEILINGS_METHOD = ("v4: memory patterns, tensor rates per dtype (int8 included) and tf32, simt fp32 and int32 "
                   "multiply-adds, issue (fp32 add chains), alu (int32 xor-max, fp32 max-min chains), l2 gathers")


def measure_ceilings() -> dict[str, Any]:
    """What this GPU reaches, per unit (CUPTI medians): DRAM bandwidth as the best of four access patterns, the
    tensor-core rate per dtype, and the CUDA cores' rates (simt_rates)."""
    device = torch.device("cuda", torch.cuda.current_device())
    patterns = memory_patterns(device)
    rates: dict[str, float] = {}
    n = MATMUL_SIZE
    for name in ("float16", "bfloat16", "float32", "tf32"):
        a = torch.randn(n, n, device=device, dtype=DTYPES["float32" if name == "tf32" else name])
        b = torch.randn(n, n, device=device, dtype=a.dtype)
        allowed = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
        try:
            rates[name] = 2.0 * n ** 3 / (_median_us({"mm": torch.mm}, [a, b]) * 1e-6)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = allowed
    if hasattr(torch, "float8_e4m3fn") and torch.cuda.get_device_capability(device) >= (8, 9):
        a = torch.randn(n, n, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=device).to(torch.float8_e4m3fn).t()
        one = torch.ones((), device=device)
        scaled = lambda x, y: torch._scaled_mm(x, y, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
        rates["float8_e4m3fn"] = 2.0 * n ** 3 / (_median_us({"mm": scaled}, [a, b]) * 1e-6)
        rates["float8_e5m2"] = rates["float8_e4m3fn"]
    if hasattr(torch, "_int_mm") and torch.cuda.get_device_capability(device) >= (8, 0):
        # int8 tensor cores (IMMA): about twice the fp16 rate on sm_80 and sm_90, which an int8 GEMM's floor needs.
        a = torch.randint(-128, 128, (n, n), device=device, dtype=torch.int8)
        b = torch.randint(-128, 128, (n, n), device=device, dtype=torch.int8)
        rates["int8"] = 2.0 * n ** 3 / (_median_us({"mm": torch._int_mm}, [a, b]) * 1e-6)
    simt = simt_rates(device)
    return {"copy_bytes_per_s": patterns["copy"], "memory_bytes_per_s": max(patterns.values()),
            "memory_patterns_bytes_per_s": patterns, "matrix_flops_per_s": rates, **simt,
            "device": torch.cuda.get_device_name(device), "l2_bytes": l2_bytes(),
            "method": f"{CEILINGS_METHOD}; CUPTI medians over {COPY_BYTES >> 20} MiB buffers and {n}^3 torch.mm"}


def _median_us(function: dict[str, Callable[..., Any]], inputs: list[Any]) -> float:
    session = timing.time_functions(function, [inputs], l2_bytes=l2_bytes(), cold_l2=False, target_seconds=0.3,
                                    min_calls=5, max_calls=50)
    return session.calls[next(iter(function))].summary()["median_us"]


def memory_patterns(device: torch.device) -> dict[str, float]:
    """DRAM bytes per second of four patterns over buffers far above the L2: a copy (one read, one write), a sum of
    two (two reads, one write), a reduction (reads only) and a fill (writes only). Kernels that read more than
    they write beat a copy: a floor from the copy alone was read above 100% by honest oracles (vector-add 109%,
    H200, 2026-12-04), so the floor divides by the best of the four."""
    source = torch.empty(COPY_BYTES, dtype=torch.uint8, device=device).random_()
    target = torch.empty_like(source)
    floats = source.view(torch.float32)
    half = COPY_BYTES // 8  # float32 elements in half a buffer
    first, second, out = floats[:half], floats[half:2 * half], target.view(torch.float32)[:half]
    measured = {
        "copy": 2.0 * COPY_BYTES / (_median_us({"copy": lambda s, t: t.copy_(s)}, [source, target]) * 1e-6),
        "add": 3.0 * 4 * half / (_median_us({"add": lambda a, b, c: torch.add(a, b, out=c)}, [first, second, out]) * 1e-6),
        "read": float(COPY_BYTES) / (_median_us({"read": lambda x: x.sum()}, [floats]) * 1e-6),
        "write": float(COPY_BYTES) / (_median_us({"write": lambda t: t.fill_(7)}, [target]) * 1e-6),
    }
    del source, target
    return measured


def rate_kernels() -> Any:
    """The Triton kernels the CUDA cores' rates are measured with, built on first use (triton is imported here, and
    a kernel defined while TRITON_INTERPRET=1 runs on the CPU, which is how a test checks their arithmetic).

    Each lane runs four independent chains in registers, eight lanes a thread: enough independent work to keep
    every pipe busy, so the time is set by the issue rate of the chained instructions and not by their latency."""
    import triton
    import triton.language as tl

    @triton.jit
    def multiply_add_chains(out, multiplier, addend, ITERATIONS: tl.constexpr, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        a = (offsets % 7 + 1).to(out.dtype.element_ty)
        b, c, d = a + 1, a + 2, a + 3
        for _ in range(ITERATIONS):
            a = a * multiplier + addend
            b = b * multiplier + addend
            c = c * multiplier + addend
            d = d * multiplier + addend
        tl.store(out + offsets, a + b + c + d)

    @triton.jit
    def add_chains(out, addend, ITERATIONS: tl.constexpr, BLOCK: tl.constexpr):
        # fp32 adds (FADD): both FMA pipes take them, 128 lanes a clock per SM, the schedulers' issue limit
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        a = (offsets % 7 + 1).to(tl.float32)
        b, c, d = a + 1, a + 2, a + 3
        for _ in range(ITERATIONS):
            a = a + addend
            b = b + addend
            c = c + addend
            d = d + addend
        tl.store(out + offsets, a + b + c + d)

    @triton.jit
    def xor_max_chains(out, key, low, ITERATIONS: tl.constexpr, BLOCK: tl.constexpr):
        # int32 xor (LOP3) and max (IMNMX): ALU-pipe instructions only, two a step; neither folds into the other
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        a = offsets * 3 + 1
        b, c, d = a + 1, a + 2, a + 3
        for _ in range(ITERATIONS):
            a = tl.maximum(a ^ key, low)
            b = tl.maximum(b ^ key, low)
            c = tl.maximum(c ^ key, low)
            d = tl.maximum(d ^ key, low)
        tl.store(out + offsets, a ^ b ^ c ^ d)

    @triton.jit
    def clamp_chains(out, low, high, ITERATIONS: tl.constexpr, BLOCK: tl.constexpr):
        # fp32 max then min (FMNMX, the ALU pipe), two a step: the instruction of max-plus and min/max networks
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        a = (offsets % 7 + 1).to(tl.float32)
        b, c, d = a + 1, a + 2, a + 3
        for _ in range(ITERATIONS):
            a = tl.minimum(tl.maximum(a, low), high)
            b = tl.minimum(tl.maximum(b, low), high)
            c = tl.minimum(tl.maximum(c, low), high)
            d = tl.minimum(tl.maximum(d, low), high)
        tl.store(out + offsets, a + b + c + d)

    @triton.jit
    def gathers(out, table, table_mask, ITERATIONS: tl.constexpr, BLOCK: tl.constexpr):
        # scattered 4-byte loads from a table in the L2 (far above one SM's L1): a linear congruential index per lane
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        index = offsets & table_mask
        total = (offsets * 0).to(tl.float32)  # (tl.zeros is a jit function the interpreter may not patch)
        for _ in range(ITERATIONS):
            index = (index * 1103515245 + 12345) & table_mask
            total += tl.load(table + index)
        tl.store(out + offsets, total)

    return types.SimpleNamespace(multiply_add_chains=multiply_add_chains, add_chains=add_chains,
                                 xor_max_chains=xor_max_chains, clamp_chains=clamp_chains, gathers=gathers)


GATHER_TABLE_BYTES = 16 << 20  # in the L2 of an A100, H100 or H200, and 64 times one SM's L1
XOR_KEY, MAX_LOW = 0x5BD1E995, -7  # what the int32 alu chains xor with and hold above
CLAMP_LOW, CLAMP_HIGH = 2.5, 4.5  # the fp32 alu chains' bounds


def simt_rates(device: torch.device) -> dict[str, float]:
    """The CUDA cores' rates: fp32 and int32 multiply-adds (2 FLOPs or ops each), instructions at the issue limit
    (fp32 adds), ALU-pipe instructions (the faster of int32 xor-max and fp32 max-min chains) and L2 gathers
    (4-byte loads at random from a 16 MiB table), each per second over the whole GPU. On sm_90 the chains compile
    to FFMA, IMAD, FADD, LOP3 + VIMNMX and FMNMX alone (cuobjdump -sass of a 16-step unrolled build)."""
    kernels = rate_kernels()
    properties = torch.cuda.get_device_properties(device)
    block, iterations = 1024, 2048
    programs = properties.multi_processor_count * 16

    def per_second(kernel: Any, dtype: torch.dtype, arguments: tuple, per_lane_step: int, steps: int = iterations) -> float:
        out = torch.empty(programs * block, dtype=dtype, device=device)
        launch = lambda o: kernel[(programs,)](o, *arguments, ITERATIONS=steps, BLOCK=block)  # noqa: E731
        launch(out)  # compiled before it is timed
        return per_lane_step * steps * programs * block / (_median_us({"chains": launch}, [out]) * 1e-6)

    table = torch.randn(GATHER_TABLE_BYTES // 4, device=device)
    return {
        "simt_fp32_flops_per_s": per_second(kernels.multiply_add_chains, torch.float32, (0.999, 0.001), 4 * 2),
        "simt_int32_ops_per_s": per_second(kernels.multiply_add_chains, torch.int32, (3, 1), 4 * 2),
        "issue_instructions_per_s": per_second(kernels.add_chains, torch.float32, (0.001,), 4),
        "alu_instructions_per_s": max(
            per_second(kernels.xor_max_chains, torch.int32, (XOR_KEY, MAX_LOW), 4 * 2),
            per_second(kernels.clamp_chains, torch.float32, (CLAMP_LOW, CLAMP_HIGH), 4 * 2)),
        "l2_gathers_per_s": per_second(kernels.gathers, torch.float32, (table, table.numel() - 1), 1, 64),
    }


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


def speed_of_light_us(work: dict[str, float], dtype: str, ceilings: dict[str, Any], unit: str = "tensor") -> float | None:
    """max(FLOPs / the rate of the task's compute unit, bytes / DRAM bandwidth), in µs; None without formulas.
    Every rate is the fastest that applies, so the floor is never too high (docs/task-format.md)."""
    floors = []
    if work.get("bytes"):
        floors.append(work["bytes"] / ceilings.get("memory_bytes_per_s", ceilings["copy_bytes_per_s"]))
    if work.get("flops") and unit != "memory":
        floors.append(work["flops"] / compute_rate(ceilings, dtype, unit))
    floors = [f for f in floors if math.isfinite(f) and f > 0]
    return max(floors) * 1e6 if floors else None


def compute_rate(ceilings: dict[str, Any], dtype: str, unit: str) -> float:
    """FLOPs (or ops, or for issue, alu and l2-gather instructions) per second of `unit` for work in `dtype`. tensor: the fastest tensor-core rate the dtype may
    use (fp32 work may run as TF32 and 16-bit work as fp16/bf16; only fp8 inputs reach the fp8 rate and only int8
    inputs the int8 rate). A rate this machine's ceilings lack falls back to the fastest one measured, which can
    only lower the floor."""
    rates = ceilings["matrix_flops_per_s"]
    fastest = max(rates.values())
    if unit == "simt":
        return float(ceilings.get("simt_fp32_flops_per_s", fastest))
    if unit == "int":
        return float(ceilings.get("simt_int32_ops_per_s", fastest))
    if unit in INSTRUCTION_RATES:  # instructions (or gathers) per second; the flops formula counts them
        return float(ceilings.get(INSTRUCTION_RATES[unit], fastest))
    if unit == "tf32":
        return float(rates.get("tf32", fastest))
    narrow = ("float8", "int8")  # rates only inputs of that very format reach
    usable = [value for name, value in rates.items()
              if not name.startswith(narrow) or dtype.startswith(name.split("_")[0])]
    return max(usable or rates.values())


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


def offered(task: dict[str, Any]) -> list[str]:
    """The baselines a task has: all but `triton` for a task without triton_baseline.py."""
    return [name for name in BASELINES if name != "triton" or task.get("triton_baseline_path")]


def baseline_key(machine: str, files: str, task_id: str, dims: dict[str, Any], dtype: str, cold_l2: bool,
                 which: Sequence[str] = UNNAMED_SET) -> str:
    """The cache key of one shape's baselines. UNNAMED_SET keeps the key it had before `which` existed;
    any other set names itself, so that its entry is never taken for another set's."""
    parts: list[Any] = [machine, files, task_id, dims, dtype, cold_l2, timing.METHOD]
    chosen = sorted(set(which))
    if chosen != sorted(UNNAMED_SET):
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
                       compile_problem: str = "",
                       triton: Callable[..., Any] | None = None) -> tuple[dict[str, Callable[..., Any]], dict[str, str]]:
    """The functions to time, of `which`, in BASELINES order, and the problems of those that could not be
    made. `compile_problem` (an earlier shape's compile failure) skips torch.compile. `triton` is the task's
    plain-Triton baseline (None: the task has none)."""
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
    if "triton" in which and triton is not None:
        functions["triton"] = triton
    return functions, problems


def untimed(cold_l2: bool) -> str:
    """A baseline entry's `cold_l2` where nothing was timed (the timing loop's own wording otherwise)."""
    return "nothing timed (cold L2 asked)" if cold_l2 else "nothing timed (warm L2 asked)"


def time_baselines(reference: Callable[..., Any], oracle: Callable[..., Any] | None,
                   input_sets: list[list[Any]], cold_l2: bool = True,
                   compile_seconds: float = COMPILE_SECONDS, compile_problem: str = "",
                   which: Sequence[str] = BASELINES, triton: Callable[..., Any] | None = None) -> dict[str, Any]:
    """Those of eager, torch.compile, the oracle and the plain-Triton baseline that `which` names, interleaved
    call by call over the same input sets."""
    functions, problems = baseline_functions(reference, oracle, input_sets, which, compile_seconds, compile_problem,
                                             triton)
    # How the L2 was kept cold, as the timing loop words it ("rotation over 4 input set(s), ..."): `untimed` here.
    out: dict[str, Any] = {"cold_l2": untimed(cold_l2), "problems": problems, "timed": list(functions)}
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
