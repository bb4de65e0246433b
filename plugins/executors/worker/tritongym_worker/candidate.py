"""The candidate role: a fork server. The parent imports torch and triton once and never runs
candidate code; each request runs in a forked child, in its own process group and folder, under
Landlock, that reports over a pipe and exits. A hang, a crash or a CUDA fault kills only the child."""
from __future__ import annotations

import collections
import hashlib
import importlib.util
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from typing import Any

from . import (diagnostics, handover, integrity, interpreter_shims, kernel_frontends, plain_files, safe_json, sandbox,
               triton_cache)
from .autotune_bench import AutotuneBench
from .autotune_compile import AutotuneCompiles
from .gpu_turns import GpuTurns

MAX_CAPTURE_BYTES = 64 * 1024
# What a paused child says of its cases (the `run` reply's `cases`) before it is timed, in its folder: the fork
# server passes it on with `ready_to_time`, and the host compares them before it times the candidate.
CHECKED_FILE = "checked.json"
MAX_CHECKED_BYTES = 4 * 1024 * 1024
CODE_CACHES = 16  # Triton caches of recent code kept by a fork server (CandidateRole._code_cache)
SPARE_READY_SECONDS = 60.0  # the longest a fork server waits for a spare child to ready itself


class CandidateRole:
    def __init__(self, device: str, root: str, triton_cache: str, memory_limit_bytes: int,
                 channel: Any = None) -> None:
        self.device = device
        # The host's channel: with `pause_before_timing`, the run reports "ready_to_time" on it and reads the
        # host's go-ahead from it in the middle of the request (docs/worker-protocol.md).
        self.channel = channel
        self.root = root
        self.triton_cache = triton_cache
        # Created here, before any child is confined: Landlock grants write access only to folders that
        # exist, and a confined child could not create it.
        os.makedirs(triton_cache, exist_ok=True)
        self.memory_limit_bytes = memory_limit_bytes
        # Triton's first compile, paid here once rather than by every child (warmup.py). Not on the
        # interpreter, which compiles nothing.
        self.warmup: dict[str, Any] = {}
        if device.startswith("cuda") and os.environ.get("TRITON_INTERPRET") != "1":
            from .warmup import warm_triton_compiler

            self.warmup = warm_triton_compiler()
        self.sandbox = "not applied yet"
        self._count = 0
        self._paused_s = 0.0  # how long the last run's child waited for the host's go-aheads
        self._spare: _Spare | None = None
        self._code_caches: collections.OrderedDict[str, str] = collections.OrderedDict()  # most recent last

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        self._count += 1
        folder = os.path.join(self.root, f"eval-{self._count}")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        source_path = os.path.join(folder, "candidate.py")
        with open(source_path, "w") as handle:
            handle.write(request["code"])
        # The pause before timing: the child says "ready" on one pipe and waits for the go-ahead on the other.
        pause = bool(request.get("pause_before_timing")) and bool(request.get("timing")) and self.channel is not None
        spare = self._take_spare()
        started = time.monotonic()
        message = json.dumps({"request": request, "folder": folder, "source": source_path, "pause": pause,
                              "code_cache": self._code_cache(request["code"])}).encode()
        try:
            view = memoryview(message)
            while view:
                view = view[os.write(spare.request_fd, view):]
        except OSError:  # the spare died after it was checked: its exit is read below, as a crash
            pass
        os.close(spare.request_fd)
        # The next child readies itself while this one runs, under this evaluation's share of the GPU: the
        # host hears nothing of this run's turns until it has (_Spare.wait_readied).
        self._spare = self._fork_spare(wait=False)
        reply = self._wait(spare.pid, spare.report_fd, float(request.get("timeout_s", 60.0)),
                           spare.ready_fd if pause else -1, spare.go_fd if pause else -1, folder)
        for fd in (spare.ready_fd, spare.go_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        reply["wall_seconds"] = time.monotonic() - started - self._paused_s  # the child's own time
        reply["stdout"] = _read_capped(os.path.join(folder, "stdout.txt"))
        reply["stderr"] = _read_capped(os.path.join(folder, "stderr.txt"))
        reply["folder"] = folder
        if not request.get("keep_folder"):
            _remove_later(self.root, folder)
        if self._spare is not None:  # a run that ended before the next child was ready waits for it here
            self._spare.wait_readied()
        return reply

    def _code_cache(self, code: str) -> str:
        """The Triton cache of the children that run this code (triton_cache.py): the compile, test and
        benchmark calls of one candidate share what they compile; different code never does. The last
        CODE_CACHES of them are kept."""
        key = hashlib.sha256(code.encode()).hexdigest()[:32]
        folder = self._code_caches.pop(key, None) or os.path.join(self.root, "triton-cache-by-code", key)
        self._code_caches[key] = folder
        os.makedirs(folder, exist_ok=True)
        while len(self._code_caches) > CODE_CACHES:
            _, oldest = self._code_caches.popitem(last=False)
            shutil.rmtree(oldest, ignore_errors=True)
        return folder

    def _take_spare(self) -> "_Spare":
        """The child forked ahead for this request, or a new one if it is missing or died."""
        spare, self._spare = self._spare, None
        if spare is not None:
            finished, _ = os.waitpid(spare.pid, os.WNOHANG)
            if finished == 0:
                return spare
            spare.close()
        return self._fork_spare()

    def _fork_spare(self, wait: bool = True) -> "_Spare":
        """Forks the next child before its request comes: on CUDA it creates its context, loads the native module
        and takes the integrity snapshot then, off the evaluation's time (CUPTI waits for the checks). It then
        waits for the request on a pipe; the fork server's end closing (the server gone) makes it exit.

        Creating a CUDA context keeps the GPU busy for milliseconds, which must not fall in another candidate's
        turn alone on it: the child readies itself while the evaluation that forked it holds its share of the GPU,
        and the fork server tells the host nothing (neither a turn nor the run's end) until the child has said so
        (`wait`: at once; else _Spare.wait_readied). Before this, spares readied whenever they were forked, and
        the host's sampler saw 2.9 to 13.7 ms of such work in other candidates' turns (H200, 2026-12-01)."""
        request_read, request_write = os.pipe()
        report_read, report_write = os.pipe()
        ready_read, ready_write = os.pipe()
        go_read, go_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            _spare_main(self, request_read, report_write, ready_write, go_read)
        for fd in (request_read, report_write, ready_write, go_read):
            os.close(fd)
        spare = _Spare(pid, request_write, report_read, ready_read, go_write)
        if wait:
            spare.wait_readied()
        return spare

    def close(self) -> None:
        """Ends the spare child (the worker is exiting)."""
        if self._spare is not None:
            self._spare.close()
            self._spare = None

    def _wait(self, pid: int, read_fd: int, timeout_s: float, ready_fd: int = -1, go_fd: int = -1,
              folder: str = "") -> dict[str, Any]:
        """Reads the child's report until the child exits (not until the pipe closes: a process the
        candidate started may hold the pipe open) or the time runs out. With the pause pipes, passes the
        child's turns on the GPU (gpu_turns.py) on to the host: when the child wants its share back, the GPU
        alone for its autotuner, or is ready to be timed, waits for the host's go-ahead (those waits do not
        count against the child's time; `ready_to_time` carries the child's cases and its folder, so that the
        host can compare them before it times a candidate); after its autotuner, one `gpu_alone_done`; after its timed calls, one
        `timed`; a byte out of turn ends what is passed on. Nor does the time the host held the child while
        another evaluation was timed, which the host writes to holds/<pid>."""
        deadline = time.monotonic() + timeout_s
        self._paused_s = 0.0
        held_file = os.path.join(self.root, "holds", str(pid))
        _remove(held_file)  # a file of an earlier process of that pid
        data = b""
        timed_out = False
        being_timed = False  # said ready, and the host said go
        status = None
        os.set_blocking(read_fd, False)

        def apart(wait: Any) -> tuple[Any, float]:
            """What `wait()` returns, and the seconds it took that no hold counts already: the host may hold
            the child (holds/<pid>) while it answers, and those seconds are taken out once, below."""
            began, held = time.monotonic(), _held_seconds(held_file)
            answer = wait()
            return answer, max(0.0, time.monotonic() - began - (_held_seconds(held_file) - held))

        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while True:
                remaining = deadline + _held_seconds(held_file) - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                ready, _, _ = select.select([pipe] + ([ready_fd] if ready_fd >= 0 else []), [], [],
                                            min(remaining, 0.05))
                if ready_fd >= 0 and ready_fd in ready:
                    said = os.read(ready_fd, 1)
                    listening = True
                    if self._spare is not None:  # the host may let go of the share at this: the next child first
                        _, waited = apart(self._spare.wait_readied)  # not the child's time
                        self._paused_s += waited
                        deadline += waited
                    if being_timed:  # only b"d" (timed: its share of the GPU is enough from now on) comes now
                        if said == b"d":  # the child waits while the host closes its window on the device
                            _, waited = apart(lambda: self._tell_host("timed"))
                            self._paused_s += waited
                            deadline += waited
                            try:
                                os.write(go_fd, b"g")
                            except OSError:
                                pass
                        listening = False
                    elif said == b"i":  # compiling: its share of the GPU is free (gpu_turns.py)
                        self._tell_host("gpu_idle", pid=pid)
                    elif said == b"t":  # its autotuner's benchmarks are done: its share is enough again
                        self._tell_host("gpu_alone_done", pid=pid)
                    elif said in (b"w", b"r", b"a"):  # wants its share back, the GPU alone to be timed or to tune
                        go, waited = apart(
                            lambda: self._tell_host("gpu_wanted", pid=pid) if said == b"w"
                            else self._tell_host("gpu_alone_wanted", pid=pid) if said == b"a"
                            else self._tell_host("ready_to_time", answer="time", pid=pid,
                                                 more={"folder": folder, "cases": _checked_cases(folder)}))
                        self._paused_s += waited
                        deadline += waited
                        try:
                            os.write(go_fd, b"g" if go else b"s")
                        except OSError:  # the child is gone; its exit is read below
                            pass
                        being_timed = said == b"r" and go
                        listening = said in (b"w", b"a") or go
                    else:  # closed, or out of turn: nothing more is passed on
                        listening = False
                    if not listening:
                        ready_fd = -1
                if pipe in ready:
                    data += _drain(pipe)
                finished, wait_status = os.waitpid(pid, os.WNOHANG)
                if finished == pid:
                    status = wait_status
                    data += _drain(pipe)
                    break
        if timed_out:
            _kill_group(pid)
            _, status = os.waitpid(pid, 0)
        self._paused_s += _held_seconds(held_file)  # not the child's own time either
        _remove(held_file)
        survivors = _kill_group(pid)  # whatever the candidate started dies with it
        if timed_out:
            return {"ok": True, "verdict": "timeout",
                    "message": f"the candidate did not finish within {timeout_s:g} s and was killed"}
        try:
            reply = json.loads(data) if data else {"ok": True}
            unreadable = "" if isinstance(reply, dict) else f"a JSON {type(reply).__name__}, not an object"
        except ValueError as error:  # cut short by a signal, or not the harness's writing
            unreadable = f"{type(error).__name__}: {error}"
        # The fork server's reply, whatever the child wrote: `ok` says the run request was served.
        reply = {"ok": True} if unreadable else {**reply, "ok": True}
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else str(number)
            hint = " (possibly out of memory)" if number == signal.SIGKILL else ""
            reply.update({"verdict": "crash", "message": f"the candidate's process was killed by {name}{hint}"
                          + (f" after: {reply.get('message')}" if reply.get("message") else "")})
        elif unreadable:  # the child exited, but what it reported cannot be read: not the candidate's verdict
            reply.update({"verdict": "harness_error",
                          "message": "the candidate's process reported nothing the harness can read "
                                     f"({unreadable[:300]}; exit code {os.WEXITSTATUS(status)})"})
        elif not data:
            reply.update({"verdict": "crash",
                          "message": f"the candidate's process exited with code {os.WEXITSTATUS(status)} "
                                     "before reporting (did it call exit()?)"})
        elif survivors and reply.get("verdict") in (None, "passed"):
            # The host fails a candidate that would pass for it, and says it beside any other failure (a wrong
            # answer's mismatch stays its verdict): a thread left compiling (ptxas) is caught here too.
            reply["outlived"] = ("processes the candidate started (or a thread of it left running started) "
                                 "outlived it; candidates may not fork")
        return reply


    def _tell_host(self, event: str, answer: str = "continue", pid: int = 0,
                   more: dict[str, Any] | None = None) -> bool:
        """An event in the middle of the run request: the host answers each one; True if it said `answer`
        ({"op": "time"} lets a child that is ready be timed; anything else skips timing). `pid`: the child's,
        which the host holds through the driver while the child says it is idle (idle_hold.hpp)."""
        self.channel.send({"ok": True, "event": event, **({"pid": pid} if pid else {}), **(more or {})})
        reply = self.channel.receive()
        return reply is not None and reply.get("op") == answer


class _Spare:
    """A forked child waiting for its request, and the fork server's ends of its pipes."""

    def __init__(self, pid: int, request_fd: int, report_fd: int, ready_fd: int, go_fd: int) -> None:
        self.pid, self.request_fd, self.report_fd, self.ready_fd, self.go_fd = pid, request_fd, report_fd, ready_fd, go_fd
        self.readied = False

    def wait_readied(self) -> float:
        """Until the child has readied itself (its b"R"), died, or SPARE_READY_SECONDS passed; the seconds waited."""
        if self.readied:
            return 0.0
        self.readied = True
        started = time.monotonic()
        try:
            ready, _, _ = select.select([self.ready_fd], [], [], SPARE_READY_SECONDS)
            if ready:
                os.read(self.ready_fd, 1)  # b"R"; or nothing, when it died (read as a crash when it is used)
        except OSError:
            pass
        return time.monotonic() - started

    def close(self) -> None:
        for fd in (self.request_fd, self.report_fd, self.ready_fd, self.go_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        _kill_group(self.pid)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _held_seconds(path: str) -> float:
    """How long the host has held the child (docs/worker-protocol.md): "<seconds before> <since>" in `path`,
    `since` the CLOCK_MONOTONIC time the hold now in force began (0: none is). 0 without a readable file."""
    try:
        with open(path) as handle:
            before, since = (float(word) for word in handle.read().split()[:2])
    except (OSError, ValueError):
        return 0.0
    return max(0.0, before) + (max(0.0, time.monotonic() - since) if since > 0 else 0.0)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


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


def _spare_main(role: CandidateRole, request_fd: int, report_fd: int, ready_fd: int, go_fd: int) -> None:
    namespaces = None
    try:
        os.setpgid(0, 0)
        sandbox.die_with_parent()  # a spare in its own group outlives a killed fork server otherwise
        # Nothing of the fork server's may reach candidate code: above all not the host's channel (fds 3 and
        # 4), on which a candidate could otherwise send the host a reply of its own making.
        _close_inherited(keep={request_fd, report_fd, ready_fd, go_fd})
        # Network and IPC namespaces of its own while it has one thread: a namespace is a thread's, and CUDA's
        # threads, started next, would otherwise stay in the host's (sandbox.enter_namespaces).
        namespaces = sandbox.enter_namespaces()
        ahead: _Ahead | None = _Ahead(role.device)
    except BaseException:  # readied nothing: the request still runs, and readies what it needs itself
        ahead = None
    try:
        os.write(ready_fd, b"R")  # readied: the fork server waits for this before it answers the run before
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
        pause = (ready_fd, go_fd) if message["pause"] else None
        if pause is None:
            for fd in (ready_fd, go_fd):
                os.close(fd)
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


def _child_main(role: CandidateRole, request: dict[str, Any], folder: str, source_path: str, report_fd: int,
                pause: tuple[int, int] | None = None, ahead: "_Ahead | None" = None, code_cache: str = "",
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
        role.sandbox = sandbox.confine_child(sandbox.system_read_paths() + input_folders + [role.triton_cache],
                                             [folder, own_cache, *sandbox.device_paths(), "/proc/self"], namespaces,
                                             policy)
        reply["sandbox"] = role.sandbox
        if role.sandbox["missing"] and policy == "required":
            reply.update({"verdict": "harness_error", "message": sandbox.refusal_message(role.sandbox)})
        else:
            reply.update(_run_candidate(role, request, source_path, pause, ahead))
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


def _run_candidate(role: CandidateRole, request: dict[str, Any], source_path: str,
                   pause: tuple[int, int] | None = None, ahead: "_Ahead | None" = None) -> dict[str, Any]:
    import torch

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
    # Its turns on a shared GPU: the compile gate goes in before the integrity snapshot, which then holds it.
    # The spare child readied both ahead of the request; only if that failed are they made here.
    turns = None
    if pause is not None:
        turns = ahead.turns if ahead is not None else None
        if turns is None:
            turns = GpuTurns()
            turns.install_compile_gate()
        turns.attach(*pause)
    # An autotuned kernel's configs compile at once, before its autotuner benchmarks them (autotune_compile.py).
    autotune = ahead.autotune if ahead is not None else None
    if autotune is None:
        autotune = AutotuneCompiles()
        autotune.install(turns)
    # Its autotuners benchmark with the GPU alone, on the executor's budget (autotune_bench.py).
    tuning = ahead.tuning if ahead is not None else None
    if tuning is None:
        tuning = AutotuneBench()
        tuning.install(turns)
    tuning.configure(request.get("autotune"))
    # On the interpreter: what a GPU would run that the interpreter can be made to (interpreter_shims.py).
    shims = ahead.shims if ahead is not None else None
    if shims is None:
        shims = interpreter_shims.Shims()
        shims.install()
    # Every kernel launched or compiled from here on, with its frontend: before the snapshot, which holds its wrappers.
    frontends = ahead.frontends if ahead is not None else None
    if frontends is None:
        frontends = kernel_frontends.KernelFrontends()
        frontends.install()
    guard = None
    if plan:
        guard = (ahead.guard if ahead is not None else None) or _TimingGuard(role.device)  # before the candidate
        guard.before_import()
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

    results = []
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
            return reply
        finally:
            if imported is not None:
                originals = []
                handover.close_quietly(imported)
        results.append(outcome)
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
    try:  # which config the autotuner chose per key: informative only, and read from the candidate's objects
        choices = diagnostics.autotune_choices(module)
    except Exception:  # noqa: BLE001
        choices = {}
    if choices:
        reply["autotune_choices"] = choices
    if autotune.kernels:
        reply["autotune_compiled"] = {"kernels": autotune.kernels, "batches": autotune.batches}
    if shims.first_config_keys:
        reply["interpreter_autotune"] = {"keys_first_config": shims.first_config_keys,
                                         "how": "the first config after pruning, unbenchmarked (interpreter)"}
    if tuning.keys_alone or tuning.configs_on_budget or tuning.timings:
        reply["autotune_benchmarks"] = {"keys_alone": tuning.keys_alone, "configs_on_budget": tuning.configs_on_budget,
                                        "warmup_ms": tuning.warmup_ms, "rep_ms": tuning.rep_ms,
                                        "timings_us": tuning.timings}
    return reply


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

        from . import integrity, timing

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
        from . import integrity

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


def _drain(pipe: Any) -> bytes:
    data = b""
    while True:
        try:
            chunk = pipe.read(1 << 16)
        except BlockingIOError:
            return data
        if not chunk:
            return data
        data += chunk


def _kill_group(pid: int) -> bool:
    """Kills the process group of a child; True if anything was still alive in it."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def _checked_cases(folder: str) -> list[Any] | None:
    """The cases a paused child wrote to its folder (CHECKED_FILE); None if it wrote none the host can read. A
    plain file only: the candidate's code may have put a link or a pipe (which would block this read) there."""
    try:
        with plain_files.open_plain(os.path.join(folder, CHECKED_FILE)) as handle:
            data = handle.read(MAX_CHECKED_BYTES + 1)
        cases = json.loads(data) if len(data) <= MAX_CHECKED_BYTES else None
    except (OSError, ValueError):
        return None
    return cases if isinstance(cases, list) and all(isinstance(case, dict) for case in cases) else None


def _read_capped(path: str) -> str:
    """The child's stdout or stderr, cut at MAX_CAPTURE_BYTES; "" for anything but the plain file it should be."""
    try:
        with plain_files.open_plain(path) as handle:
            data = handle.read(MAX_CAPTURE_BYTES + 1)
    except OSError:
        return ""
    text = data[:MAX_CAPTURE_BYTES].decode(errors="replace")
    return text + ("\n... (output truncated)" if len(data) > MAX_CAPTURE_BYTES else "")


def _remove_later(root: str, keep: str) -> None:
    """Keeps the last folder (useful when debugging) and removes older ones."""
    for name in os.listdir(root):
        path = os.path.join(root, name)
        if name.startswith("eval-") and path != keep:
            shutil.rmtree(path, ignore_errors=True)
