"""A timed candidate's turns on a GPU it shares with other evaluations (docs/worker-protocol.md, "Turns on
the GPU").

Evaluations on one GPU share it while they check, and a timing takes it alone. The child of a timed run starts
with its share. While Triton compiles one of its kernels (CPU work, most of what a check costs) it hands the
share back, so that another candidate's timing need not wait for that compile, and it asks for the share
again before it goes on. When its checks are done it says it is ready to be timed and waits until it has the
GPU to itself; when its timed calls are done it says so, and goes on with its share only (the determinism
check and handing over the timed calls' outputs need no quiet GPU). While Triton's autotuner benchmarks the
configs of a new key it has the GPU alone as well (autotune_bench.py), and then goes on with its share.

One byte per message, straight to the host's arbiter (child_turns.hpp), on the candidate worker's turn socket: a
SOCK_SEQPACKET pair the executor makes before the worker starts, whose end the worker gets as fd 5 and every child it
forks inherits (the fork server relays nothing). The kernel stamps each message with its sender's pid, and the host
counts only the child its fork server named for the run (`C` below):
  b"i"  idle: compiling, every stream synchronised; no answer
  b"w"  wants its share back; waits for the answer
  b"r"  ready to be timed; waits for the answer
  b"d"  the timed calls are done: its share is enough from now on; waits for the answer (the host closes its
        window on the device's counters first, so that nothing this child does next falls inside it)
  b"a"  wants the GPU alone while its autotuner benchmarks; waits for the answer
  b"t"  the autotuner's benchmarks are done: its share is enough again; no answer
The answer, on the same socket: b"g" (go on) or b"s" (stop: no timing). The fork server's own words on it, for a
timed run: `C{"pid", "folder"}`, the child of this run and its folder, before the child has its request (answers a
child of an earlier run left unread are dropped first), and `R` once the next child, forked as this one starts, has
readied itself: the host counts none of this child's messages before (a CUDA context's creation falls under this
evaluation's share, never in another candidate's turn alone)."""
from __future__ import annotations

import functools
import json
import os
import socket
import threading
from typing import Any

CHILD = b"C"  # the fork server names a run's child (and its folder) to the host
SPARE_READIED = b"R"  # the fork server: the next child has readied itself


def announce(turn_fd: int, word: bytes) -> None:
    """The fork server's word to the host on the turn socket (one message)."""
    try:
        os.write(turn_fd, word)
    except OSError:  # the host is gone; the run's reply tells it nothing it needs then
        pass


def name_child(turn_fd: int, pid: int, folder: str) -> None:
    """Before a timed run's child has its request: which child it is, and its folder (where it writes its checked
    cases). Drops first the answers an earlier child left unread (it died waiting), so that none reaches this one."""
    with socket.socket(fileno=os.dup(turn_fd)) as sock:
        for _ in range(4096):
            try:
                sock.recv(16, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
    announce(turn_fd, CHILD + json.dumps({"pid": pid, "folder": folder}).encode())


class GpuTurns:
    def __init__(self) -> None:
        self._ready = -1
        self._go = -1
        self._installed = False
        self._gating = False  # hands the GPU back during compiles (between attach and ready_to_time)
        self._compiling = 0
        self._alone = False  # has the GPU alone for an autotuner's benchmarks (between b"a" and b"t")
        self.handed_back = 0  # compiles (or batches of them) during which the GPU was handed back

    def attach(self, turn_fd: int) -> None:
        """The turn socket, for a timed request: from now on compiles hand the GPU back. (`_ready` is where the
        child writes, `_go` where it reads the answer: the one socket.)"""
        self._ready = self._go = turn_fd
        self._gating = self._installed

    def install_compile_gate(self) -> None:
        """Wraps triton.compiler.compile, which every @triton.jit kernel calls on its first launch with new
        specialisations (JITFunction.create_binder reads it from the package). Called before the candidate is
        imported and before the integrity snapshot, so the snapshot holds the wrapper; inactive until attach."""
        import triton.compiler

        original = triton.compiler.compile
        turns = self

        @functools.wraps(original)
        def compile(*args: Any, **kwargs: Any) -> Any:  # noqa: A001  (the name Triton looks up)
            # Only the main thread's compiles, one level deep. A candidate thread that launches work meanwhile
            # could only slow another candidate's timing, never speed it, and its own timing flags threads.
            # Nor while it has the GPU alone for its autotuner (a config that failed to compile ahead).
            if (not turns._gating or turns._compiling or turns._alone
                    or threading.current_thread() is not threading.main_thread()):
                return original(*args, **kwargs)
            turns._compiling += 1
            handed = turns._hand_back()
            try:
                return original(*args, **kwargs)
            finally:
                if handed:
                    turns._take_back()
                turns._compiling -= 1

        triton.compiler.compile = compile
        self._installed = True

    def hand_back_while_waiting(self) -> bool:
        """For the main thread, before it waits for CPU work done elsewhere (a batch of compiles on a pool of
        threads, autotune_compile.py): hands the GPU back if compiles do now. True: take_back() after the wait."""
        if not self._gating or self._compiling or self._alone:
            return False
        return self._hand_back()

    def take_back(self) -> None:
        """After hand_back_while_waiting() said True."""
        self._take_back()

    def alone_for_tuning(self) -> bool:
        """Before an autotuner benchmarks a new key's configs (main thread, with its share): asks for the GPU
        alone and waits for it. True: tuning_done() once the benchmarks are over."""
        if not self._gating or self._compiling or self._alone:
            return False
        _synchronise()
        try:
            os.write(self._ready, b"a")
            answer = os.read(self._go, 1)
        except OSError:
            return False
        self._alone = answer == b"g"
        return self._alone

    def tuning_done(self) -> None:
        """After alone_for_tuning() said True: the GPU is shared again."""
        if not self._alone:
            return
        self._alone = False
        _synchronise()  # its benchmarks' work is done before others come back
        try:
            os.write(self._ready, b"t")
        except OSError:
            pass

    def ready_to_time(self) -> bool:
        """Checked and idle: says so and waits until the host has the GPU alone for this child. True: time it."""
        self.tuning_done()  # (an autotuner that never returned from its launch)
        self._gating = False
        _synchronise()  # a broken context is left to the timing stage to report
        os.write(self._ready, b"r")
        answer = os.read(self._go, 1)
        if answer != b"g":
            self._close()
        return answer == b"g"

    def timed_calls_done(self) -> None:
        """The GPU need not be this child's alone any longer (after ready_to_time said go). Returns once the host
        has closed the window in which it checks this child's report against the device (docs/anti-cheat.md)."""
        if self._ready < 0:
            return
        try:
            os.write(self._ready, b"d")
            os.read(self._go, 1)
        except OSError:
            pass
        self._close()

    def _close(self) -> None:
        try:
            os.close(self._ready)
        except OSError:
            pass
        self._ready = self._go = -1

    def _hand_back(self) -> bool:
        if not _synchronise():  # work still queued or a broken context: keep the share
            return False
        try:
            os.write(self._ready, b"i")
        except OSError:
            return False
        self.handed_back += 1
        return True

    def _take_back(self) -> None:
        try:
            os.write(self._ready, b"w")
            os.read(self._go, 1)  # whatever the answer: without the share the child cannot go on otherwise
        except OSError:
            pass


def _synchronise() -> bool:
    """Waits for every stream of this process's device; False if that failed."""
    try:
        import torch

        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.synchronize()
        return True
    except Exception:  # noqa: BLE001
        return False
