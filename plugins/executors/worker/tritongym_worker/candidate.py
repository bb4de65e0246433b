"""The candidate role: a fork server. The parent imports torch and triton once and never runs
candidate code; each request runs in a forked child (candidate_child.py), in its own process group and folder,
under the sandbox, that reports over a pipe and exits. A hang, a crash or a CUDA fault kills only the child."""
from __future__ import annotations

import collections
import hashlib
import json
import os
import select
import shutil
import signal
import time
from typing import Any

from . import plain_files
# The child's code, imported here once so that every forked child finds it (and torch and triton) loaded.
from .candidate_child import CHECKED_FILE, spare_main

MAX_CAPTURE_BYTES = 64 * 1024
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
            spare_main(self, request_read, report_write, ready_write, go_read)
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
