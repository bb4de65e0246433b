"""What a worker's child gives up besides the sandbox: every capability, its life past its parent's, address space
(interpreter children)."""
from __future__ import annotations

import ctypes
import os
import resource

class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> str:
    """Gives up every capability (a candidate running as root loses CAP_SYS_PTRACE, CAP_DAC_OVERRIDE, ...),
    so that it cannot read the memory or /proc files of the host or of other workers. Returns what it did."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in range(64):  # the bounding set first: nothing can be regained through exec
        if libc.prctl(24, capability, 0, 0, 0) != 0 and ctypes.get_errno() == 22:  # PR_CAPBSET_DROP; EINVAL: past the last
            break
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    if libc.syscall(126, ctypes.byref(header), data) != 0:  # capset
        return f"capabilities kept (capset: errno {ctypes.get_errno()})"
    return "capabilities dropped"


_PR_SET_PDEATHSIG = 1


def die_with_parent() -> bool:
    """SIGKILL this process when its parent exits (Linux); True if the kernel took it. Then exits at once if
    the parent is already gone (it died between the fork and this call)."""
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        armed = libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0) == 0
    except (OSError, AttributeError):
        armed = False
    if os.getppid() != parent:
        os._exit(0)
    return armed


def limit_memory(max_bytes: int) -> None:
    """Caps the address space (interpreter children only: CUDA reserves more address space than it uses)."""
    if max_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))
