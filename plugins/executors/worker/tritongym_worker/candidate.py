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

from . import gpu_turns, plain_files, protocol
# The child's code, imported here once so that every forked child finds it (and torch and triton) loaded.
from .candidate_child import spare_main

MAX_CAPTURE_BYTES = 64 * 1024
CODE_CACHES = 16  # Triton caches of recent code kept by a fork server (CandidateRole._code_cache)
SPARE_READY_SECONDS = 60.0  # the longest a fork server waits for a spare child to ready itself
# The fields of a run's reply the fork server writes itself, whatever the child reported.
_FORK_SERVER_SAYS = {"ok": True, "stdout": "", "stderr": "", "folder": "", "wall_seconds": 0.0}


class CandidateRole:
    def __init__(self, device: str, root: str, triton_cache: str, memory_limit_bytes: int,
                 turn_fd: int = -1) -> None:
        self.device = device
        # The turn socket (gpu_turns.py): with `pause_before_timing`, the child asks the host for its turns on it,
        # directly; this server only names the child and says when the next one has readied. -1: none (no pause).
        self.turn_fd = turn_fd
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
        # The pause before timing: the child asks the host for its turns itself, on the turn socket.
        pause = bool(request.get("pause_before_timing")) and bool(request.get("timing")) and self.turn_fd >= 0
        spare = self._take_spare()
        _remove(os.path.join(self.root, "holds", str(spare.pid)))  # a file of an earlier process of that pid
        if pause:  # before the child has its request: the host counts this child's words only
            gpu_turns.name_child(self.turn_fd, spare.pid, folder)
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
        # host counts none of this child's turns until it hears that it has (`R`).
        self._spare = self._fork_spare(wait=False)
        reply = self._wait(spare.pid, spare.report_fd, float(request.get("timeout_s", 60.0)), pause)
        spare.close_ready()
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
        and the host counts none of the running child's turns, nor hears the run's end, until the fork server has
        told it so (`wait`: at once; else `R` on the turn socket, and _Spare.wait_readied before the reply). Before this, spares readied whenever they were forked, and
        the host's sampler saw 2.9 to 13.7 ms of such work in other candidates' turns (H200, 2026-12-01)."""
        request_read, request_write = os.pipe()
        report_read, report_write = os.pipe()
        ready_read, ready_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            spare_main(self, request_read, report_write, ready_write, self.turn_fd)
        for fd in (request_read, report_write, ready_write):
            os.close(fd)
        spare = _Spare(pid, request_write, report_read, ready_read)
        if wait:
            spare.wait_readied()
        return spare

    def close(self) -> None:
        """Ends the spare child (the worker is exiting)."""
        if self._spare is not None:
            self._spare.close()
            self._spare = None

    def _wait(self, pid: int, read_fd: int, timeout_s: float, pause: bool = False) -> dict[str, Any]:
        """Reads the child's report until the child exits (not until the pipe closes: a process the
        candidate started may hold the pipe open) or the time runs out. The child talks to the host about its
        turns on the GPU itself (gpu_turns.py); with `pause`, this server says on the turn socket when the next
        child has readied itself (`R`), as soon as it has. The time the host kept the child waiting (its answers,
        its holds while another evaluation was timed), which it writes to holds/<pid>, counts neither against
        the child's limit nor in its wall time."""
        deadline = time.monotonic() + timeout_s
        self._paused_s = 0.0
        held_file = os.path.join(self.root, "holds", str(pid))  # the host may write it from the child's first word
        data = b""
        timed_out = False
        status = None
        os.set_blocking(read_fd, False)
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while True:
                remaining = deadline + _held_seconds(held_file) - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                readying = self._spare if pause and self._spare is not None and not self._spare.readied else None
                ready, _, _ = select.select([pipe] + ([readying.ready_fd] if readying else []), [], [],
                                            min(remaining, 0.05))
                if readying is not None and readying.ready_fd in ready:
                    readying.wait_readied()  # said (or died): at once
                    gpu_turns.announce(self.turn_fd, gpu_turns.SPARE_READIED)
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
            if not unreadable:  # what the host will read of it: the run's reply (protocol.json)
                protocol.SCHEMA.check("run.reply", {**reply, **_FORK_SERVER_SAYS})
        except ValueError as error:  # cut short by a signal, or not the harness's writing (ProtocolError too)
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


class _Spare:
    """A forked child waiting for its request, and the fork server's ends of its pipes."""

    def __init__(self, pid: int, request_fd: int, report_fd: int, ready_fd: int) -> None:
        self.pid, self.request_fd, self.report_fd, self.ready_fd = pid, request_fd, report_fd, ready_fd
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

    def close_ready(self) -> None:
        """Its run is over: the pipe it said it had readied on is no longer needed."""
        try:
            os.close(self.ready_fd)
        except OSError:
            pass

    def close(self) -> None:
        for fd in (self.request_fd, self.report_fd, self.ready_fd):
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
