"""The host's side of a candidate worker's turn socket, for the worker's tests: what the executor's arbiter
(child_turns.hpp) does with it, in a thread. It reads the fork server's words (the child it names, `C`, and that the
next child has readied, `R`) and the named child's bytes, counts none of them before `R`, turns each into the event
the executor's stages see, answers those the child waits on, and writes holds/<pid> for the time the child waited
for an answer (held_clock.hpp). A byte out of turn ends what counts, as in the executor."""
import json
import os
import socket
import stat
import struct
import threading
import time

EVENTS = {b"i": "gpu_idle", b"w": "gpu_wanted", b"a": "gpu_alone_wanted", b"t": "gpu_alone_done",
          b"r": "ready_to_time", b"d": "timed"}
ANSWERED = (b"w", b"a", b"r", b"d")


class TurnHost:
    def __init__(self, root, be_timed=True, delays=None, on_event=None, count_waits=True):
        """`root`: the worker's folder; `be_timed`: the answer to ready_to_time; `delays`: seconds to wait before
        answering, per event; `on_event(event, pid)`: called as each is handled, before its answer; `count_waits`:
        write the child's waits to holds/<pid> (a test that writes it itself turns this off)."""
        self.root, self.be_timed, self.delays, self.on_event = root, be_timed, delays or {}, on_event
        self.count_waits = count_waits
        self.host, worker = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.host.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.worker_fd = worker.detach()  # the candidate worker's fd 5: CandidateRole(..., turn_fd=)
        self.sent, self.pids, self.at = [], [], []  # the events, whose they were, when each was heard
        self.checked = None  # what ready_to_time said of the child's folder and cases
        self.readied_at = []  # when each `R` came
        self.ignored = []  # (sender, bytes) that did not count
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def close(self):
        self.host.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=10)
        self.host.close()
        os.close(self.worker_fd)

    def _serve(self):
        child, folder, readied, counting, timed = 0, "", False, True, False
        queued = []
        waited_before, open_since = 0.0, None  # the child's waits: ended, and the one open since
        while True:
            try:
                data, ancillary, _, _ = self.host.recvmsg(4096, socket.CMSG_SPACE(struct.calcsize("3i")))
            except OSError:
                return
            if not data:
                return
            sender = next((struct.unpack("3i", d)[0] for level, kind, d in ancillary
                           if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS), 0)
            if sender == os.getpid():  # the fork server: CandidateRole runs in this process
                if data == b"R":
                    readied = True
                    self.readied_at.append(time.time())
                elif data[:1] == b"C":
                    named = json.loads(data[1:])
                    child, folder, readied, counting, timed, queued = named["pid"], named["folder"], False, True, False, []
                    waited_before, open_since = 0.0, None
            elif sender != child or not counting:
                self.ignored.append((sender, data))
                continue
            else:
                queued.append((data, time.monotonic()))
                # Held back until the next child has readied, or waiting for an answer: not the child's time.
                if (data in ANSWERED or not readied) and self.count_waits and open_since is None:
                    open_since = queued[-1][1]
                    self._write_held(child, waited_before, open_since)
            if readied and open_since is not None and not (queued and queued[0][0] in ANSWERED):
                waited_before += time.monotonic() - open_since  # the wait for the next child ends here
                open_since = None
                self._write_held(child, waited_before, 0.0)
            while readied and queued and counting:
                byte, received = queued.pop(0)
                event = EVENTS.get(byte)
                if event is None or timed != (byte == b"d"):
                    counting = False
                    break
                self.sent.append(event)
                self.pids.append(child)
                self.at.append(time.time())
                if byte == b"r":
                    self.checked = {"folder": folder, "cases": _checked_cases(folder)}
                if self.on_event:
                    self.on_event(event, child)
                time.sleep(self.delays.get(event, 0.0))
                if byte in ANSWERED:
                    go = self.be_timed if byte == b"r" else True
                    self.host.send(b"g" if go else b"s")
                    if open_since is not None:
                        waited_before += time.monotonic() - open_since
                        open_since = None
                        self._write_held(child, waited_before, 0.0)
                    if byte == b"r":
                        timed, counting = go, go
                    if byte == b"d":
                        counting = False
            if not counting and open_since is not None:  # waits nothing will answer end here
                waited_before += time.monotonic() - open_since
                open_since = None
                self._write_held(child, waited_before, 0.0)

    def _write_held(self, pid, before, since):
        path = os.path.join(self.root, "holds", str(pid))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".part", "w") as handle:
            handle.write(f"{before:.6f} {since:.6f}\n")
        os.replace(path + ".part", path)


def _checked_cases(folder):
    try:
        fd = os.open(os.path.join(folder, "checked.json"), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        cases = json.loads(os.read(fd, 4 << 20))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return cases if isinstance(cases, list) and all(isinstance(case, dict) for case in cases) else None
