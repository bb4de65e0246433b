"""A candidate's child: what runs in the process forked from the fork server (candidate.py) for one request. It
closes what it inherited, enters its own namespaces, readies the timing and autotune hooks ahead of its request,
confines itself (sandbox.py), imports the candidate, runs every case, writes its outputs, and, when timed, times
itself (measure.py) after the host lets it; it reports over a pipe and exits. It never returns into the fork
server's code, and it imports nothing of the trusted side (no reference, no expected outputs)."""
from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import time
import traceback
from typing import Any

from . import diagnostics, handover, integrity, interpreter_shims, kernel_frontends, safe_json, sandbox, triton_cache
from .autotune_bench import AutotuneBench
from .autotune_compile import AutotuneCompiles
from .gpu_turns import GpuTurns

# What a paused child says of its cases (the `run` reply's `cases`) before it is timed, in its folder: the host reads
# it when the child says it is ready to be timed (child_turns.hpp), and compares them before it times the candidate.
CHECKED_FILE = "checked.json"


class _Ahead:
    """What a spare child readied before its request: the compile gate (inactive until a timed request), the
    autotuner's wrappers, the interpreter's shims, the record of the kernels' frontends and, on CUDA, the timing
    guard (context, native module, integrity snapshot; CUPTI comes after the checks)."""

    def __init__(self, device: str) -> None:
        started = time.perf_counter()
        self.turns = GpuTurns()
        self.turns.install_compile_gate()
        self.autotune = AutotuneCompiles()
        self.autotune.install(self.turns)
        self.tuning = AutotuneBench()
        self.tuning.install(self.turns)
        self.shims = interpreter_shims.Shims()
        self.shims.install()
        self.frontends = kernel_frontends.KernelFrontends()
        self.frontends.install()
        self.guard = _TimingGuard(device) if device.startswith("cuda") else None
        self.seconds = time.perf_counter() - started
        self.namespaces_seconds = 0.0  # entering the sandbox's namespaces, just before this (spare_main)


def spare_main(role: Any, request_fd: int, report_fd: int, ready_fd: int, turn_fd: int) -> None:
    """A spare child: readies itself, says so on `ready_fd`, waits for its request on `request_fd`, runs it and
    reports on `report_fd`. `turn_fd`: the worker's turn socket (gpu_turns.py, -1: none), kept only for a timed
    request, on which it then asks the host for its turns itself."""
    namespaces = None
    try:
        os.setpgid(0, 0)
        sandbox.die_with_parent()  # a spare in its own group outlives a killed fork server otherwise
        # Nothing of the fork server's may reach candidate code: above all not the host's channel (fds 3 and
        # 4), on which a candidate could otherwise send the host a reply of its own making.
        _close_inherited(keep={request_fd, report_fd, ready_fd, turn_fd})
        # Network and IPC namespaces of its own while it has one thread: a namespace is a thread's, and CUDA's
        # threads, started next, would otherwise stay in the host's (sandbox.enter_namespaces).
        started = time.perf_counter()
        namespaces = sandbox.enter_namespaces()
        namespaces_seconds = time.perf_counter() - started
        ahead: _Ahead | None = _Ahead(role.device)
        ahead.namespaces_seconds = namespaces_seconds
    except BaseException:  # readied nothing: the request still runs, and readies what it needs itself
        ahead = None
    try:
        os.write(ready_fd, b"R")  # readied: the fork server tells the host, and waits for this before it answers
        os.close(ready_fd)
    except OSError:
        pass
    try:
        data = b""
        while True:
            chunk = os.read(request_fd, 1 << 16)
            if not chunk:
                break
            data += chunk
        os.close(request_fd)
        if not data:  # the fork server is gone, or ended this spare
            os._exit(0)
        message = json.loads(data)
        pause = turn_fd if message["pause"] and turn_fd >= 0 else None
        if pause is None and turn_fd >= 0:  # not timed: nothing of the host's reaches the candidate
            os.close(turn_fd)
        _child_main(role, message["request"], message["folder"], message["source"], report_fd, pause, ahead,
                    message.get("code_cache", ""), namespaces)
    finally:  # never back into the fork server's code: a forked child that returned would serve its channel
        os._exit(5)


def _close_inherited(keep: set[int]) -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:  # the listing's own descriptor, already closed
                pass


def _child_main(role: Any, request: dict[str, Any], folder: str, source_path: str, report_fd: int,
                pause: int | None = None, ahead: "_Ahead | None" = None, code_cache: str = "",
                namespaces: dict[str, Any] | None = None) -> None:
    exit_code = 0
    reply: dict[str, Any] = {"ok": True}
    try:
        for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
            target = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(target, fd)
            os.close(target)
        sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
        sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
        os.environ.update({"TMPDIR": folder, "HOME": folder})
        tempfile.tempdir = folder  # the fork server may have fixed it already (Triton's compiles use it)
        os.chdir(folder)
        if not role.device.startswith("cuda"):
            sandbox.limit_memory(role.memory_limit_bytes)
        # Input files (the file transport; the GPU data plane sends descriptors of device memory instead).
        timing_sets = [path for shape in (request.get("timing") or {}).get("shapes", []) for path in shape["sets"]]
        input_folders = sorted({os.path.dirname(path) for path in
                                [case["inputs"] for case in request.get("cases", [])] + timing_sets
                                if isinstance(path, str)})
        # The Triton cache of its code, over the fork server's (triton_cache.py): nothing it compiles or leaves
        # there is found by a candidate of other code.
        own_cache = code_cache or os.path.join(folder, "triton-cache")
        triton_cache.use_own_cache(own_cache, role.triton_cache)
        # Writes: its folder, its code's Triton cache, the devices it needs (not /dev/shm, not the disks), and its
        # own /proc entry (the CUDA driver needs it); the fork server's Triton cache it may read only. Signals: to
        # itself and its own children only.
        # Network: none (its own namespace, the seccomp filter, Landlock's TCP rules). The executor's `sandbox`
        # policy says whether a child that lacks any of it may run its candidate at all.
        policy = "best_effort" if request.get("sandbox") == "best_effort" else "required"
        confine_started = time.perf_counter()
        role.sandbox = sandbox.confine_child(sandbox.system_read_paths() + input_folders + [role.triton_cache],
                                             [folder, own_cache, *sandbox.device_paths(), "/proc/self"], namespaces,
                                             policy)
        confine_seconds = time.perf_counter() - confine_started
        reply["sandbox"] = role.sandbox
        if role.sandbox["missing"] and policy == "required":
            reply.update({"verdict": "harness_error", "message": sandbox.refusal_message(role.sandbox)})
        else:
            reply.update(_run_candidate(role, request, source_path, pause, ahead))
            # What the sandbox costs a candidate: its confinement here, on the request's path, and its namespaces,
            # entered ahead of the request (not the candidate's time, like `ahead`).
            phases = reply.setdefault("phases", {})
            phases["sandbox"] = confine_seconds
            if ahead is not None:
                phases["sandbox_ahead"] = ahead.namespaces_seconds
        exit_code = 3 if reply.get("cuda_fault") else 0
    except BaseException as error:  # the harness's own failure inside the child
        reply = {"ok": True, "verdict": "runtime_error",
                 "message": "harness error in the candidate process: " + "".join(
                     traceback.format_exception_only(type(error), error)).strip()}
        exit_code = 4
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        payload = safe_json.encode(reply, run=True)
        view = memoryview(payload)
        while view:
            view = view[os.write(report_fd, view):]
    finally:
        os._exit(exit_code)


class _Hooks:
    """What the child installs before the candidate's import, taken from the spare's `_Ahead` where it readied
    them: its GPU turns (with the compile gate), the autotuners' compile and benchmark wrappers, the interpreter's
    shims, the record of the kernels' frontends and, for a timed request, the timing guard."""

    def __init__(self, role: Any, request: dict[str, Any], pause: int | None, ahead: "_Ahead | None") -> None:
        # Its turns on a shared GPU: the compile gate goes in before the integrity snapshot, which then holds it.
        # The spare child readied both ahead of the request; only if that failed are they made here.
        self.turns = None
        if pause is not None:
            self.turns = ahead.turns if ahead is not None else None
            if self.turns is None:
                self.turns = GpuTurns()
                self.turns.install_compile_gate()
            self.turns.attach(pause)
        # An autotuned kernel's configs compile at once, before its autotuner benchmarks them (autotune_compile.py).
        self.autotune = ahead.autotune if ahead is not None else None
        if self.autotune is None:
            self.autotune = AutotuneCompiles()
            self.autotune.install(self.turns)
        # Its autotuners benchmark with the GPU alone, on the executor's budget (autotune_bench.py).
        self.tuning = ahead.tuning if ahead is not None else None
        if self.tuning is None:
            self.tuning = AutotuneBench()
            self.tuning.install(self.turns)
        self.tuning.configure(request.get("autotune"))
        # On the interpreter: what a GPU would run that the interpreter can be made to (interpreter_shims.py).
        self.shims = ahead.shims if ahead is not None else None
        if self.shims is None:
            self.shims = interpreter_shims.Shims()
            self.shims.install()
        # Every kernel launched or compiled from here on, with its frontend: before the snapshot, which holds its
        # wrappers.
        self.frontends = ahead.frontends if ahead is not None else None
        if self.frontends is None:
            self.frontends = kernel_frontends.KernelFrontends()
            self.frontends.install()
        self.guard = None
        if request.get("timing"):
            self.guard = (ahead.guard if ahead is not None else None) or _TimingGuard(role.device)
            self.guard.before_import()  # before the candidate

    def autotune_report(self, module: Any) -> dict[str, Any]:
        """What the autotuners did, for the reply: informative only, read from the candidate's objects."""
        report: dict[str, Any] = {}
        try:  # which config the autotuner chose per key
            choices = diagnostics.autotune_choices(module)
        except Exception:  # noqa: BLE001
            choices = {}
        if choices:
            report["autotune_choices"] = choices
        if self.autotune.kernels:
            report["autotune_compiled"] = {"kernels": self.autotune.kernels, "batches": self.autotune.batches}
        if self.shims.first_config_keys:
            report["interpreter_autotune"] = {"keys_first_config": self.shims.first_config_keys,
                                              "how": "the first config after pruning, unbenchmarked (interpreter)"}
        tuning = self.tuning
        if tuning.keys_alone or tuning.configs_on_budget or tuning.timings:
            report["autotune_benchmarks"] = {"keys_alone": tuning.keys_alone,
                                             "configs_on_budget": tuning.configs_on_budget,
                                             "warmup_ms": tuning.warmup_ms, "rep_ms": tuning.rep_ms,
                                             "timings_us": tuning.timings}
        return report


def _run_candidate(role: Any, request: dict[str, Any], source_path: str,
                   pause: int | None = None, ahead: "_Ahead | None" = None) -> dict[str, Any]:
    entry_name = request["entry"]
    plan = request.get("timing")
    # The frontend every kernel must come from (the task's DSL; kernel_frontends.py), "" for none.
    required = str(request.get("kernel_frontend") or "")
    if required and required not in kernel_frontends.REQUIRABLE:
        return {"verdict": "harness_error",
                "message": f"the task requires kernels from the frontend '{required}', which this executor cannot "
                           f"tell (it knows {', '.join(kernel_frontends.REQUIRABLE)})"}
    # Where the child's time goes (seconds), in the reply as `phases`: the evaluation's record keeps it.
    phases = {"setup": 0.0, "import": 0.0, "load_inputs": 0.0, "run": 0.0, "save_outputs": 0.0}
    clock = time.perf_counter()
    hooks = _Hooks(role, request, pause, ahead)
    turns, guard, frontends = hooks.turns, hooks.guard, hooks.frontends
    phases["setup"] = time.perf_counter() - clock
    if ahead is not None:
        phases["ahead"] = ahead.seconds  # before the request: not the candidate's time
    try:
        clock = time.perf_counter()
        spec = importlib.util.spec_from_file_location("candidate", source_path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["candidate"] = module
        spec.loader.exec_module(module)
        phases["import"] = time.perf_counter() - clock
    except BaseException as error:
        return _failure(error, source_path, "compile_error")
    entry = getattr(module, entry_name, None)
    if not callable(entry):
        return {"verdict": "compile_error",
                "message": f"candidate.py defines no function `{entry_name}` (the task's entry point)"}

    results, failed = _run_cases(role, request, module, entry, phases, source_path)
    if failed is not None:
        return failed
    reply: dict[str, Any] = {"verdict": None, "cases": results, "kernels": diagnostics.compiled_kernels(module),
                             "phases": phases}
    broken = _frontend_rule(frontends, required, module)
    reply["kernel_frontends"] = frontends.report()
    if broken:  # judged before any output is compared, and never timed
        return {**reply, **broken}
    if guard is not None:  # CUPTI only now: until here the host may hold this process (idle_hold.hpp)
        clock = time.perf_counter()
        guard.start_tracing()
        phases["tracing_start"] = time.perf_counter() - clock
    if turns is not None:
        reply["compiles_off_gpu"] = turns.handed_back
        if guard is not None:
            try:  # a candidate that kept it from being written is timed before it is compared, as it was
                with open(os.path.join(os.path.dirname(source_path), CHECKED_FILE), "wb") as handle:
                    handle.write(safe_json.encode(results))
            except OSError:
                pass
            if not turns.ready_to_time():
                reply["timing"] = {"error": "the host did not let the candidate be timed"}
                return reply
    if guard is not None:
        clock = time.perf_counter()
        reply["timing"] = guard.measure(entry, plan, reply["kernels"], turns.timed_calls_done if turns else None)
        phases["timing"] = time.perf_counter() - clock
        phases.update({f"timing_{name}": seconds for name, seconds in reply["timing"].pop("phases", {}).items()})
        broken = _frontend_rule(frontends, required, module)  # a kernel the timed calls alone ran counts too
        reply["kernel_frontends"] = frontends.report()
        if broken:
            return {**reply, **broken}
    reply.update(hooks.autotune_report(module))
    return reply


def _run_cases(role: Any, request: dict[str, Any], module: Any, entry: Any, phases: dict[str, float],
               source_path: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The candidate on each case's inputs (copies: the originals must not change), its outputs checked and handed
    over. Returns the cases' outcomes, and the reply to send at once where a case raised (None otherwise)."""
    import torch

    results: list[dict[str, Any]] = []
    for case in request.get("cases", []):
        outcome: dict[str, Any] = {"key": case["key"], "status": "ok"}
        imported = None
        try:
            clock = time.perf_counter()
            originals, imported = handover.load_inputs(case["inputs"])
            # A copy even on the CPU: the candidate may write to its inputs, and the originals must not change.
            inputs = [value.to(role.device, copy=True) if isinstance(value, torch.Tensor) else value
                      for value in originals]
            _poison_allocator(inputs, role.device)
            started = time.perf_counter()
            phases["load_inputs"] += started - clock
            with torch.no_grad():
                returned = entry(*inputs)
            if role.device.startswith("cuda"):
                torch.cuda.synchronize()
            outcome["seconds"] = time.perf_counter() - started
            phases["run"] += outcome["seconds"]
            outputs = list(returned) if isinstance(returned, (tuple, list)) else [returned]
            problem = _check_outputs(outputs, inputs, role.device)
            if problem:
                outcome.update({"status": "bad_output", "error": problem})
            elif case.get("output"):
                clock = time.perf_counter()
                outcome.update(handover.give_outputs(case["output"], outputs, inputs, originals))
                phases["save_outputs"] += time.perf_counter() - clock
        except BaseException as error:
            results.append({**outcome, "status": "error"})
            reply = {**_failure(error, source_path, diagnostics.classify(error, during_import=False)),
                     "cases": results, "cuda_fault": diagnostics.is_cuda_fault(error)}
            if not reply["cuda_fault"]:
                reply["kernels"] = diagnostics.compiled_kernels(module)
            return results, reply
        finally:
            if imported is not None:
                originals = []
                handover.close_quietly(imported)
        results.append(outcome)
    return results, None


def _frontend_rule(frontends: kernel_frontends.KernelFrontends, required: str, module: Any) -> dict[str, str]:
    """The verdict of a candidate that broke the task's DSL rule at run time, {} when it kept it (or there is none).
    compile_error, as the DSL's static check answers the same rule (docs/candidate-contract.md, "The task's DSL")."""
    if not required:
        return {}
    replaced = frontends.replaced()
    if replaced:
        return {"verdict": "runtime_error",
                "message": f"this task's kernels must come from {kernel_frontends.FRONTENDS[required][0]}, and which "
                           f"kernels ran cannot be told: the candidate replaced {', '.join(replaced)}"}
    frontends.sweep(module)
    reason = frontends.violation(required)
    return {"verdict": "compile_error", "message": reason} if reason else {}


def _failure(error: BaseException, source_path: str, verdict: str) -> dict[str, Any]:
    """The verdict and message of an exception from the candidate's code: `verdict`, or not_judged where it shows
    what the interpreter lacks rather than a fault of the code (interpreter_shims.gap)."""
    message = diagnostics.describe(error, source_path)
    missing = interpreter_shims.gap(error)
    if missing:
        return {"verdict": "not_judged", "message": f"{missing}\n{message}"}
    return {"verdict": verdict, "message": message}


class _TimingGuard:
    """What the timing stages need from before the candidate is imported (the CUDA context, the native module,
    the identity of every function the timing relies on, and the threads alive), and CUPTI, started only once the
    candidate's checks are done. A process CUPTI is attached to cannot be held through the driver
    (cuCheckpointProcessLock answers CUDA_ERROR_NOT_SUPPORTED: H200, driver 13000, 2026-11-30), and the host holds
    the child while it says it is idle during its checks (idle_hold.hpp)."""

    def __init__(self, device: str) -> None:
        import torch

        from . import timing

        self.problem = ""
        self.tracing = False
        try:
            tracer = timing.native()
            # Taken now, before the candidate can replace them (a replacement is flagged as well: Snapshot).
            self._cupti_start, self._cupti_stop = tracer.cupti_start, tracer.cupti_stop
            self._cupti_drain = tracer.cupti_drain
            torch.zeros(1, device=device)  # the CUDA context, and the driver's own threads
        except Exception as error:  # no native module or no CUDA: the candidate is still judged, not timed
            self.problem = f"{type(error).__name__}: {error}"
        self.snapshot = integrity.Snapshot.take()
        self.threads = integrity.ThreadBaseline.take()
        self.persisting_l2 = 0

    def start_tracing(self) -> None:
        """CUPTI loaded and its threads started (they join the thread baseline): after the checks, before the
        child says it is ready to be timed. If it will not start, the candidate is judged but not timed, and
        measure() says why; a candidate that keeps the profiler from starting gains no time by it."""
        if self.problem or self.tracing:
            return

        def start() -> None:
            self._cupti_start()
            self._cupti_stop()  # CUPTI's threads exist from now on

        try:
            self.threads = self.threads.started_by(start)
            self.tracing = True
        except Exception as error:  # noqa: BLE001  (no GPU, another profiler in the process)
            self.problem = f"CUPTI did not start ({type(error).__name__}: {error})"

    def before_import(self) -> None:
        """At the request, not ahead of it: the set-aside is the device's, and another candidate may be timed
        while a spare readies itself."""
        # The driver may set some L2 aside by default; the harness sets none, so that any set-aside seen
        # after a call is the candidate's, whatever size it picked (integrity.clear_persisting_l2).
        self.persisting_l2 = integrity.clear_persisting_l2() or 0

    def measure(self, entry: Any, plan: dict[str, Any], compiled: list[dict[str, Any]],
                timed: Any = None) -> dict[str, Any]:
        """`timed`: called once the timed calls are done (the GPU is shared again from then on)."""
        from . import measure, timing

        if self.problem:  # including CUPTI's start, which came before the child said it was ready
            return {"error": "kernel timing is unavailable: " + self.problem}
        try:
            window = timing.WindowTrace(self._cupti_start, self._cupti_drain, self._cupti_stop)
            return measure.time_candidate(entry, plan, self.snapshot, self.threads, self.persisting_l2,
                                          [kernel["name"] for kernel in compiled if kernel.get("name")], timed,
                                          window)
        except Exception as error:
            return {"error": "the timed calls failed: " + diagnostics.describe(error, "candidate.py"),
                    "verdict": diagnostics.classify(error, during_import=False)}


def _check_outputs(outputs: list[Any], inputs: list[Any], device: str) -> str:
    import torch

    for index, output in enumerate(outputs):
        label = "the output" if len(outputs) == 1 else f"output {index}"
        if type(output) is not torch.Tensor:  # subclasses (lazy or deferred tensors) are not allowed
            return f"{label} is a {type(output).__module__}.{type(output).__name__}, not a plain torch.Tensor"
        if output.device.type != torch.device(device).type:
            return f"{label} is on {output.device}, expected {device}"
        start = output.untyped_storage().data_ptr()
        end = start + output.untyped_storage().nbytes()
        for position, value in enumerate(inputs):
            if isinstance(value, torch.Tensor) and value.untyped_storage().nbytes() > 0:
                other = value.untyped_storage().data_ptr()
                if start < other + value.untyped_storage().nbytes() and other < end:
                    return f"{label} shares memory with input {position}; return a new tensor"
    return ""


def _poison_allocator(inputs: list[Any], device: str) -> None:
    """Fills memory the CUDA caching allocator will hand out next with NaN (0xFF bytes), so an output
    the candidate allocates but never writes cannot pass by luck."""
    if not device.startswith("cuda"):
        return
    import torch

    nbytes = sum(v.untyped_storage().nbytes() for v in inputs if isinstance(v, torch.Tensor))
    block = torch.empty(max(4 * nbytes, 1 << 20), dtype=torch.uint8, device=device)
    block.fill_(0xFF)
    del block
