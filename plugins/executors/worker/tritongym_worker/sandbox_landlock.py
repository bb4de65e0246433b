"""Landlock (Linux >= 5.13), the sandbox's file, TCP and signal rules: the child may read the system, Python and its own
folder, and write only its own folder and the Triton cache of its code (sandbox.py puts it together)."""
from __future__ import annotations

import ctypes
import os
import sys
from typing import Any, Iterable

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # x86_64 and aarch64 alike
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_WRITE_ALL_V1 = sum(1 << bit for bit in range(4, 13))  # remove, make dir/reg/sock/fifo/block/sym/char
_REFER, _TRUNCATE = 1 << 13, 1 << 14
_READ = _EXECUTE | _READ_FILE | _READ_DIR

_NET_TCP_ABI = 4
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # LANDLOCK_ACCESS_NET_*
_SCOPE_SIGNAL_ABI = 6
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # LANDLOCK_SCOPE_*

SANDBOX_POLICIES = ("required", "best_effort")


class _RulesetAttr(ctypes.Structure):
    # Older kernels take the larger struct as long as the fields they do not know are zero.
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is unavailable."""
    try:
        version = _libc().syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                                  ctypes.c_uint32(_CREATE_RULESET_VERSION))
        return max(int(version), 0)
    except OSError:
        return 0


def confine(read_paths: Iterable[str], write_paths: Iterable[str]) -> dict[str, str]:
    """Allows reading only under read_paths and writing only under write_paths and, where the kernel can, no TCP
    connect or bind (ABI 4), no signal to and no abstract Unix socket of a process outside this one and its
    descendants (ABI 6); for this process and its descendants, irreversibly. Landlock restricts the calling thread
    (and the threads it starts later) only. Returns what it did per kind ({"files", "signals", "network"}: "landlock
    v<N>"), or why not."""
    abi = landlock_abi()
    if abi < 1:
        return {"files": "", "signals": "", "network": "", "problem": "no Landlock in this kernel (needs Linux 5.13)"}
    libc = _libc()
    write = _WRITE_FILE | _WRITE_ALL_V1 | (_REFER if abi >= 2 else 0) | (_TRUNCATE if abi >= 3 else 0)
    handled = _READ | write
    network = _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= _NET_TCP_ABI else 0  # no rule: no port is allowed
    scoped = _SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX_SOCKET if abi >= _SCOPE_SIGNAL_ABI else 0
    attr = _RulesetAttr(handled, network, scoped)
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        return {"files": "", "signals": "", "network": "",
                "problem": f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}"}
    try:
        rules = [(path, _READ) for path in read_paths] + [(path, _READ | write) for path in write_paths]
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a path that does not exist here needs no rule
            try:
                if not os.path.isdir(path):
                    access &= _EXECUTE | _READ_FILE | _WRITE_FILE | (_TRUNCATE if abi >= 3 else 0)
                rule = _PathBeneathAttr(access, fd)
                if libc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                                ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule({path})")
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    name = f"landlock v{abi}"
    return {"files": name, "signals": name if scoped else "", "network": f"{name} (TCP)" if network else "",
            "problem": ""}


def system_read_paths() -> list[str]:
    """What a Python process with torch and triton needs to read: the system, the interpreter and its
    packages, the CUDA toolkit and driver."""
    paths = ["/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/opt", "/usr/local", "/run"]
    paths += [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    paths += [entry for entry in sys.path if entry and os.path.isabs(entry)]
    return sorted(set(paths))


def device_paths() -> list[str]:
    """The device files a candidate's child may open: the null and random devices and the GPU's (the NVIDIA driver's
    nodes, which it reopens after the context exists). Not the rest of /dev: a child running as root would read and
    write the disks through their nodes (their mode lets their owner), and /dev/shm holds other processes' POSIX
    shared memory and semaphores, which one evaluation could leave there for another."""
    import glob

    return ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"] + sorted(glob.glob("/dev/nvidia*"))
