"""Runtime integrity checks for the candidate's own process (the forked child that times it).

API:

    Snapshot.take(extra: Iterable[str] = ()) -> Snapshot
        Before the candidate module is imported (and after the harness's own wrappers are in place: GpuTurns,
        the autotuner's, kernel_frontends): the identity of every function and class the harness
        relies on (WATCHED, every callable of the loaded tritongym_worker.* and tritongym_native modules,
        every builtin, sys.modules entries of the key modules, the trace/profile hooks and the torch
        function/dispatch mode stacks).
    Snapshot.changed() -> list[str]
        After the candidate ran: the dotted names that no longer resolve to the same object, e.g.
        ["time.perf_counter", "torch.cuda.Event.elapsed_time"]; "sys.gettrace()" when a trace hook was set;
        "torch function mode stack" when a TorchFunctionMode was left pushed. Empty when nothing changed.
    ThreadBaseline.take() -> ThreadBaseline
        The Python threads (threading.enumerate) and OS threads (/proc/self/task) alive now. Take it after
        CUDA is initialised (the driver starts threads of its own) and before the candidate is imported.
    threads_alive(baseline: ThreadBaseline, ignore_os_names: Sequence[str] = DRIVER_THREAD_PREFIXES,
                  settle_s: float = OS_THREAD_SETTLE_S) -> list[str]
        Threads that exist now and did not then: "python thread 'Thread-1 (work)' (daemon, native id 1234)",
        "os thread 1235 'python3'". OS threads that are a listed Python thread are not listed twice; OS
        threads whose name starts with one of ignore_os_names (CUDA/CUPTI/PyTorch runtime threads) are skipped;
        other OS threads are listed only if they are still there after settle_s (a joined thread exiting).
    tensor_problem(x: object, device: str | None = None) -> str
        "" for a plain, materialised torch.Tensor (exact class, strided, real storage, not meta/fake/lazy,
        no lazy conj/neg bit, not a functorch wrapper, on `device`'s type if given), else why not.
    is_plain_tensor(x: object, device: str | None = None) -> bool
    outputs_identical(a, b) -> bool
        Bitwise equality of two tensors or two sequences of tensors (NaN payloads included): the
        determinism check on identical inputs.
    shares_memory(a, b) -> bool
        True when the storages of two tensors overlap (an output aliasing an input or a cached buffer).
    output_payload(outputs, inputs, originals) -> dict
        What the child saves for the trusted re-check: the outputs on the CPU, and either
        "inputs_unchanged": True (the inputs are bitwise what `originals`, the loaded file, held) or the
        inputs as they are now ("inputs_after"), for the reference worker to say which one changed. It
        saves copying and re-reading every input (gigabytes per final score at H200 sizes).
    clone_all(values) -> list
        Deep copies of the tensors in values (others kept as they are), to check later with
        outputs_identical that inputs were not modified.
    persisting_l2_bytes() -> int | None
        The context's persisting-L2 set-aside (cuCtxGetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE)) through
        libcuda: > 0 means L2 is reserved for access-policy windows. None without a driver or a
        current context (it never initialises CUDA itself).
    clear_persisting_l2() -> int | None
        Sets that set-aside to 0 before the candidate is imported (the driver may reserve some by
        default), so that any set-aside after a call was the candidate's; returns the limit read back.
    scrub(tensors) -> None
        Fills tensors with 0xFF bytes (NaN for floats) before they are freed, so that a later
        torch.empty cannot hand the candidate a block that still holds a correct result (run it on the
        outputs of baselines computed in the candidate's process).

What this cannot do: the candidate runs in this very process, so it can in principle replace anything in
Python, this module included, after the snapshot; the snapshot keeps references to the original objects
and compares identities, which catches replacement by assignment but not in-place mutation of a code object
(`f.__code__ = ...`) of a pure-Python function, which is compared separately for the WATCHED Python functions.
Ctypes writes into memory are out of reach of any in-process check (docs/anti-cheat.md).
"""
from __future__ import annotations

import builtins
import importlib
import inspect
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

WATCHED: tuple[str, ...] = (
    # timers
    "time.perf_counter", "time.perf_counter_ns", "time.time", "time.time_ns", "time.monotonic",
    "time.monotonic_ns", "time.process_time", "time.process_time_ns", "time.thread_time", "time.sleep",
    # statistics the timing loop computes with
    "statistics.median", "statistics.mean", "statistics.fmean", "statistics.stdev", "statistics.pstdev",
    "statistics.quantiles", "statistics.median_low", "statistics.median_high",
    "math.isclose", "math.isfinite", "math.isnan", "math.fsum", "math.sqrt",
    # CUDA timing and synchronisation
    "torch.cuda.synchronize", "torch.cuda.Event", "torch.cuda.Event.elapsed_time", "torch.cuda.Event.record",
    "torch.cuda.Event.synchronize", "torch.cuda.Event.query", "torch.cuda.Event.wait", "torch.cuda.Event.__init__",
    "torch.cuda.Event.__new__", "torch._C._CudaEventBase", "torch._C._CudaEventBase.elapsed_time",
    "torch._C._CudaEventBase.record", "torch._C._CudaEventBase.synchronize", "torch.cuda.Stream",
    "torch.cuda.Stream.synchronize", "torch.cuda.Stream.wait_event", "torch.cuda.current_stream",
    "torch.cuda.default_stream", "torch.cuda.set_stream", "torch.cuda.stream", "torch.cuda.is_available",
    "torch.cuda.memory_allocated", "torch.cuda.empty_cache",
    # comparison and checks of outputs
    "torch.allclose", "torch.isclose", "torch.equal", "torch.isfinite", "torch.isnan", "torch.testing.assert_close",
    "torch.Tensor", "torch.Tensor.__eq__", "torch.Tensor.__ne__", "torch.Tensor.__lt__", "torch.Tensor.__le__",
    "torch.Tensor.__gt__", "torch.Tensor.__ge__", "torch.Tensor.__bool__", "torch.Tensor.__sub__",
    "torch.Tensor.__abs__", "torch.Tensor.allclose", "torch.Tensor.equal", "torch.Tensor.abs", "torch.Tensor.max",
    "torch.Tensor.all", "torch.Tensor.any", "torch.Tensor.item", "torch.Tensor.tolist", "torch.Tensor.numpy",
    "torch.Tensor.cpu", "torch.Tensor.to", "torch.Tensor.clone", "torch.Tensor.copy_", "torch.Tensor.detach",
    "torch.Tensor.contiguous", "torch.Tensor.view", "torch.Tensor.reshape", "torch.Tensor.data_ptr",
    "torch.Tensor.untyped_storage", "torch.Tensor.__torch_function__", "torch.Tensor.__torch_dispatch__",
    "torch.Tensor.__getattribute__", "torch.Tensor.__setattr__", "torch.Tensor.__reduce_ex__",
    "torch.Tensor.__class__", "torch._C.TensorBase", "torch._C.TensorBase.__eq__",
    "torch.save", "torch.load", "torch.empty", "torch.empty_like", "torch.no_grad",
    # what the harness uses to report
    "json.dumps", "json.loads", "os.write", "os._exit", "os.listdir", "os.getpid", "pickle.dumps",
    "threading.enumerate", "threading.Thread.is_alive", "threading.active_count", "gc.collect",
    "importlib.import_module", "inspect.getattr_static",
    # how the harness sees which kernels ran, and their frontends (kernel_frontends.py wraps these; GpuTurns the
    # package's compile too)
    "triton.runtime.jit.JITFunction.run", "triton.compiler.compile", "triton.compiler.compiler.compile",
)
MODULE_PREFIXES = ("tritongym_worker", "tritongym_native")
KEY_MODULES = ("time", "torch", "torch.cuda", "statistics", "builtins", "threading", "json", "os", "math",
               "triton", "tritongym_native", "gc")
DRIVER_THREAD_PREFIXES = ("cuda", "CUPTI", "cupti", "pt_", "nvidia", "NVIDIA")

_MISSING = object()


def _resolve(name: str) -> Any:
    """The object a dotted name stands for, found without running descriptors or lazy module hooks."""
    parts = name.split(".")
    try:
        current: Any = sys.modules.get(parts[0]) or importlib.import_module(parts[0])
    except Exception:
        return _MISSING
    path = parts[0]
    for part in parts[1:]:
        path += "." + part
        try:
            current = inspect.getattr_static(current, part)
        except AttributeError:
            if inspect.ismodule(current):
                try:
                    current = importlib.import_module(path)
                    continue
                except Exception:
                    return _MISSING
            return _MISSING
    return current


def _code_of(value: Any) -> Any:
    function = getattr(value, "__func__", value)
    return getattr(function, "__code__", None)


def _modes() -> dict[str, int]:
    """Lengths of the torch function-mode and dispatch-mode stacks (a mode left pushed intercepts every op)."""
    lengths: dict[str, int] = {}
    torch = sys.modules.get("torch")
    if torch is None:
        return lengths
    for label, attribute in (("torch function mode stack", "_len_torch_function_stack"),
                             ("torch dispatch mode stack", "_len_torch_dispatch_stack")):
        function = getattr(torch._C, attribute, None)
        if function is not None:
            try:
                lengths[label] = int(function())
            except Exception:
                pass
    return lengths


@dataclass
class Snapshot:
    objects: dict[str, Any] = field(default_factory=dict)
    codes: dict[str, Any] = field(default_factory=dict)
    hooks: dict[str, Any] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    builtin_names: frozenset = frozenset()

    @classmethod
    def take(cls, extra: Iterable[str] = ()) -> "Snapshot":
        try:  # the native timing module, if this worker has it
            importlib.import_module("tritongym_native")
        except Exception:
            pass
        snapshot = cls()
        names = list(WATCHED) + list(extra)
        for module_name, module in list(sys.modules.items()):
            if module is not None and module_name.split(".")[0] in MODULE_PREFIXES:
                for attribute, value in list(vars(module).items()):
                    if not attribute.startswith("__") and (callable(value) or inspect.ismodule(value)):
                        names.append(f"{module_name}.{attribute}")
        for name in names:
            value = _resolve(name)
            if value is not _MISSING:
                snapshot.objects[name] = value
                code = _code_of(value)
                if code is not None:
                    snapshot.codes[name] = code
        for name, value in vars(builtins).items():
            snapshot.objects[f"builtins.{name}"] = value
        snapshot.builtin_names = frozenset(vars(builtins))
        for name in KEY_MODULES:
            if name in sys.modules:
                snapshot.objects[f"sys.modules[{name!r}]"] = sys.modules[name]
        snapshot.hooks = {"sys.gettrace()": sys.gettrace(), "sys.getprofile()": sys.getprofile(),
                          "threading.gettrace()": getattr(threading, "gettrace", lambda: None)(),
                          "threading.getprofile()": getattr(threading, "getprofile", lambda: None)(),
                          "sys.excepthook": sys.excepthook, "threading.excepthook": threading.excepthook}
        snapshot.modes = _modes()
        return snapshot

    @property
    def names(self) -> list[str]:
        return sorted(self.objects)

    def changed(self) -> list[str]:
        found: list[str] = []
        for name, original in self.objects.items():
            if name.startswith("sys.modules["):
                current = sys.modules.get(name[len("sys.modules['"):-2], _MISSING)
            elif name.startswith("builtins."):
                current = vars(builtins).get(name[len("builtins."):], _MISSING)
            else:
                current = _resolve(name)
            if current is not original:
                found.append(name)
            elif name in self.codes and _code_of(current) is not self.codes[name]:
                found.append(f"{name}.__code__")
        for name in sorted(set(vars(builtins)) - self.builtin_names):
            found.append(f"builtins.{name} (added)")
        hooks_now = {"sys.gettrace()": sys.gettrace(), "sys.getprofile()": sys.getprofile(),
                     "threading.gettrace()": getattr(threading, "gettrace", lambda: None)(),
                     "threading.getprofile()": getattr(threading, "getprofile", lambda: None)(),
                     "sys.excepthook": sys.excepthook, "threading.excepthook": threading.excepthook}
        found += [name for name, value in hooks_now.items() if value is not self.hooks.get(name)]
        modes_now = _modes()
        found += [label for label, length in modes_now.items() if length != self.modes.get(label, length)]
        return sorted(set(found))


def _os_threads() -> dict[int, str]:
    threads: dict[int, str] = {}
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return threads
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/comm") as handle:
                threads[int(tid)] = handle.read().strip()
        except (OSError, ValueError):
            continue
    return threads


@dataclass(frozen=True)
class ThreadBaseline:
    python: frozenset
    os_threads: frozenset

    @classmethod
    def take(cls) -> "ThreadBaseline":
        return cls(frozenset(t.ident for t in threading.enumerate()), frozenset(_os_threads()))

    def started_by(self, harness_step: Any) -> "ThreadBaseline":
        """Runs a step of the harness's own (starting CUPTI) and returns the baseline with the OS threads that
        appeared meanwhile added: they are the harness's, not the candidate's."""
        before = set(_os_threads())
        harness_step()
        return ThreadBaseline(self.python, self.os_threads | frozenset(set(_os_threads()) - before))


OS_THREAD_SETTLE_S = 0.05  # how long an OS thread unaccounted for is given to finish exiting
_SETTLE_STEP_S = 0.005
_sleep = time.sleep  # taken at import, before any candidate code exists


def threads_alive(baseline: ThreadBaseline, ignore_os_names: Sequence[str] = DRIVER_THREAD_PREFIXES,
                  settle_s: float = OS_THREAD_SETTLE_S) -> list[str]:
    """Threads alive now that were not alive at the baseline (see the module docstring). A Python thread that
    has been joined can still be listed by the OS for a moment while it exits (seen under load on this
    repository's CPU machine, 2026-12-01): an OS thread that no Python thread accounts for is reported only if
    it is still there after `settle_s`."""
    found: list[str] = []
    accounted: set[int] = set()
    for thread in threading.enumerate():
        if thread.ident in baseline.python or not thread.is_alive():
            continue
        native = getattr(thread, "native_id", None)
        if native is not None:
            accounted.add(native)
        found.append(f"python thread {thread.name!r} ({'daemon, ' if thread.daemon else ''}native id {native})")

    def unaccounted() -> dict[int, str]:
        return {tid: name for tid, name in _os_threads().items()
                if tid not in baseline.os_threads and tid not in accounted and not name.startswith(tuple(ignore_os_names))}

    extra = unaccounted()
    for _ in range(int(settle_s / _SETTLE_STEP_S)):  # counted, not timed: the candidate may have replaced the clocks
        if not extra:
            break
        _sleep(_SETTLE_STEP_S)
        extra = {tid: name for tid, name in unaccounted().items() if tid in extra}  # no newcomer extends it
    found.extend(f"os thread {tid} {name!r}" for tid, name in sorted(extra.items()))
    return found


def tensor_problem(x: object, device: Optional[str] = None) -> str:
    import torch

    kind = type(x)
    if kind is not torch.Tensor:
        return f"a {kind.__module__}.{kind.__qualname__}, not a plain torch.Tensor"
    tensor: torch.Tensor = x  # type: ignore[assignment]
    if tensor.layout != torch.strided:
        return f"layout {tensor.layout}, not strided"
    if tensor.is_meta or tensor.device.type in ("meta", "lazy", "xla"):
        return f"a tensor on {tensor.device} holds no data"
    if getattr(tensor, "is_nested", False):
        return "a nested tensor"
    if tensor.is_conj() or tensor.is_neg():
        return "a tensor with a lazy conjugate or negation bit"
    functorch = getattr(getattr(torch._C, "_functorch", None), "is_functorch_wrapped_tensor", None)
    if functorch is not None and functorch(tensor):
        return "a functorch-wrapped tensor"
    try:
        storage = tensor.untyped_storage()
        if tensor.numel() > 0 and (storage.data_ptr() == 0 or storage.nbytes() == 0):
            return "a tensor without storage"
    except Exception as error:  # FakeTensor, functional tensors, ...
        return f"a tensor without accessible storage ({type(error).__name__})"
    if device is not None and tensor.device.type != torch.device(device).type:
        return f"on {tensor.device}, expected {device}"
    return ""


def is_plain_tensor(x: object, device: Optional[str] = None) -> bool:
    return not tensor_problem(x, device)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def outputs_identical(a: Any, b: Any) -> bool:
    import torch

    first, second = _as_list(a), _as_list(b)
    if len(first) != len(second):
        return False
    for x, y in zip(first, second):
        if not (isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor)):
            if x != y:
                return False
            continue
        if x.shape != y.shape or x.dtype != y.dtype or x.device != y.device:
            return False
        if x.numel() == 0:
            continue
        raw_x = x.detach().contiguous().reshape(-1).view(torch.uint8)
        raw_y = y.detach().contiguous().reshape(-1).view(torch.uint8)
        if not torch.equal(raw_x, raw_y):
            return False
    return True


def changed_positions(inputs: list[Any], originals: list[Any]) -> list[int]:
    """The positions of the arguments whose values after the call differ, byte for byte, from the
    originals (both on the same device)."""
    if len(inputs) != len(originals):
        return list(range(max(len(inputs), len(originals))))
    return [index for index, (after, before) in enumerate(zip(inputs, originals)) if not outputs_identical(after, before)]


def output_payload(outputs: list[Any], inputs: list[Any], originals: list[Any]) -> dict[str, Any]:
    import torch

    def on_cpu(values: list[Any]) -> list[Any]:
        return [v.detach().cpu() if isinstance(v, torch.Tensor) else v for v in values]

    payload: dict[str, Any] = {"outputs": on_cpu(outputs)}
    moved = [o.to(i.device) if isinstance(o, torch.Tensor) and isinstance(i, torch.Tensor) else o
             for o, i in zip(originals, inputs)]
    if len(inputs) == len(originals) and outputs_identical(inputs, moved):
        payload["inputs_unchanged"] = True
    else:
        payload["inputs_after"] = on_cpu(inputs)
    return payload


def shares_memory(a: Any, b: Any) -> bool:
    import torch

    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.device != b.device:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    if sa.nbytes() == 0 or sb.nbytes() == 0:
        return False
    start_a, start_b = sa.data_ptr(), sb.data_ptr()
    return start_a < start_b + sb.nbytes() and start_b < start_a + sa.nbytes()


def clone_all(values: Iterable[Any]) -> list[Any]:
    import torch

    return [v.detach().clone() if isinstance(v, torch.Tensor) else v for v in values]


def scrub(tensors: Iterable[Any]) -> None:
    import torch

    for tensor in _as_list(tensors):
        if isinstance(tensor, torch.Tensor) and tensor.untyped_storage().nbytes() > 0:
            tensor.untyped_storage().fill_(0xFF)


def persisting_l2_bytes() -> Optional[int]:
    import ctypes

    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    value = ctypes.c_size_t(0)
    if driver.cuCtxGetLimit(ctypes.byref(value), ctypes.c_int(0x06)) != 0:  # CU_LIMIT_PERSISTING_L2_CACHE_SIZE
        return None
    return int(value.value)


def clear_persisting_l2() -> Optional[int]:
    """Sets the context's persisting-L2 set-aside to 0 (drivers may reserve some by default: 11,796,480
    bytes on the H200 seen here). With none set aside, any set-aside seen later was the candidate's doing,
    whatever size it chose. Returns the limit read afterwards, None when the driver cannot say. Needs a
    current context; touches only this process's context, never the device's clocks or state."""
    import ctypes

    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    driver.cuCtxSetLimit(ctypes.c_int(0x06), ctypes.c_size_t(0))  # refused: the reading below says so
    return persisting_l2_bytes()


def persisting_window_bytes(stream_handle: int) -> Optional[int]:
    """The bytes an access-policy window on `stream_handle` marks as persisting in L2 (0: none); None
    when the driver cannot say. Never initialises CUDA on its own."""
    import ctypes

    class Window(ctypes.Structure):  # CUaccessPolicyWindow
        _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t), ("hitRatio", ctypes.c_float),
                    ("hitProp", ctypes.c_int), ("missProp", ctypes.c_int)]

    class Value(ctypes.Union):  # CUlaunchAttributeValue: 64 bytes, the window first
        _fields_ = [("window", Window), ("pad", ctypes.c_char * 64)]

    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    value = Value()
    if driver.cuStreamGetAttribute(ctypes.c_void_p(stream_handle), ctypes.c_int(1),  # ACCESS_POLICY_WINDOW
                                   ctypes.byref(value)) != 0:
        return None
    persisting = value.window.hitProp == 2 or value.window.missProp == 2  # CU_ACCESS_PROPERTY_PERSISTING
    return int(value.window.num_bytes) if persisting and value.window.hitRatio > 0 else 0
