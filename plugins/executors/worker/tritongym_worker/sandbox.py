"""Confinement of a candidate's child process: Landlock rules and resource limits.

Landlock (Linux >= 5.13) lets an unprivileged process give up access for good: the child may read the
system, Python and its own folder, and write only its own folder and the Triton cache. The reference
cache and the rest of the host's files are out of its reach, and so (Landlock's ptrace rule) is every
process outside its domain. From Landlock ABI 6 (Linux 6.12) it may not signal them either: a
candidate cannot kill or stop the GPU's sampler, a worker or another evaluation's child, all of which
run under the same user. Its own children share its domain and remain its to signal."""
from __future__ import annotations

import ctypes
import os
import resource
import sys
from typing import Iterable

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # x86_64 and aarch64 alike
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_WRITE_ALL_V1 = sum(1 << bit for bit in range(4, 13))  # remove, make dir/reg/sock/fifo/block/sym/char
_REFER, _TRUNCATE = 1 << 13, 1 << 14
_READ = _EXECUTE | _READ_FILE | _READ_DIR


_SCOPE_SIGNAL_ABI = 6
_SCOPE_SIGNAL = 1 << 1  # LANDLOCK_SCOPE_SIGNAL


class _RulesetAttr(ctypes.Structure):
    # Older kernels take the larger struct as long as the fields they do not know are zero.
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is unavailable."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        version = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
        return max(int(version), 0)
    except OSError:
        return 0


def confine(read_paths: Iterable[str], write_paths: Iterable[str]) -> str:
    """Allows reading only under read_paths and writing only under write_paths and, where the kernel can
    (Landlock ABI 6), signalling no process outside this one and its descendants; for this process and its
    descendants, irreversibly. Returns what it did ("landlock v<N>: files, signals") or why it could not."""
    abi = landlock_abi()
    if abi < 1:
        return "unavailable (kernel without Landlock)"
    libc = ctypes.CDLL(None, use_errno=True)
    write = _WRITE_FILE | _WRITE_ALL_V1 | (_REFER if abi >= 2 else 0) | (_TRUNCATE if abi >= 3 else 0)
    handled = _READ | write
    scoped = _SCOPE_SIGNAL if abi >= _SCOPE_SIGNAL_ABI else 0
    attr = _RulesetAttr(handled, 0, scoped)
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        return f"unavailable (landlock_create_ruleset: errno {ctypes.get_errno()})"
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
    if scoped:
        return f"landlock v{abi}: files, signals"
    return f"landlock v{abi}: files (signals to other processes need Landlock ABI {_SCOPE_SIGNAL_ABI})"


def system_read_paths() -> list[str]:
    """What a Python process with torch and triton needs to read: the system, the interpreter and its
    packages, the CUDA toolkit and driver."""
    paths = ["/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/opt", "/usr/local", "/run"]
    paths += [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    paths += [entry for entry in sys.path if entry and os.path.isabs(entry)]
    return sorted(set(paths))


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
