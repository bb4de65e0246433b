"""Network and IPC namespaces of the child's own, entered before any thread (sandbox.py puts it together)."""
from __future__ import annotations

import ctypes
import os
import time
from typing import Any

from .sandbox_landlock import _libc

_CLONE_NEWIPC, _CLONE_NEWUSER, _CLONE_NEWNET = 0x08000000, 0x10000000, 0x40000000


def enter_namespaces() -> dict[str, Any]:
    """Moves this process into a network namespace and an IPC namespace of its own: no interface but a loopback
    that is down (no TCP or UDP reaches anything, 127.0.0.1 and ::1 included), abstract Unix sockets of its own,
    SysV shared memory, semaphores and message queues and POSIX message queues of its own. As root (or with
    CAP_SYS_ADMIN) directly; otherwise inside a user namespace of its own, its user and group mapped to
    themselves. A namespace belongs to a thread: call this before the process starts any (CUDA, OpenMP), and
    a user namespace needs a process of one thread. Returns {"network", "ipc": "namespace" or "", "how",
    "problem", "seconds"}."""
    started = time.perf_counter()
    libc = _libc()
    record: dict[str, Any] = {"network": "", "ipc": "", "how": "", "problem": ""}
    if libc.unshare(_CLONE_NEWNET | _CLONE_NEWIPC) == 0:
        record.update(network="namespace", ipc="namespace", how="with CAP_SYS_ADMIN")
    else:
        direct = os.strerror(ctypes.get_errno())
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET | _CLONE_NEWIPC) != 0:
            record["problem"] = (f"unshare(CLONE_NEWNET): {direct}; in a user namespace: "
                                 f"{os.strerror(ctypes.get_errno())}")
        else:
            record.update(network="namespace", ipc="namespace", how="in a user namespace")
            try:  # its user and group are themselves inside (files it makes stay its own); no setgroups
                for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                    with open(f"/proc/self/{name}", "w") as handle:
                        handle.write(text)
            except OSError as error:  # the namespaces hold all the same; its ids read as the overflow id
                record["problem"] = f"the user namespace's id maps: {error}"
    record["seconds"] = time.perf_counter() - started
    return record
