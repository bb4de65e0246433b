"""The seccomp filter on every thread of the child: no socket but a connected Unix pair, no bind, no listen, no
io_uring, no ptrace-like access to another process (sandbox.py puts it together)."""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import time
from typing import Any

from .sandbox_landlock import _PR_SET_NO_NEW_PRIVS, _libc

_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 1, 1
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_AF_UNIX, _AF_INET, _AF_INET6 = 1, 2, 10
_SOCK_STREAM, _SOCK_SEQPACKET, _SOCK_TYPE_MASK = 1, 5, 0xF
# Per architecture: its audit number, then the system calls the filter refuses or inspects.
_SYSCALLS = {
    "x86_64": {"arch": 0xC000003E, "seccomp": 317, "socket": 41, "socketpair": 53, "bind": 49, "listen": 50,
               "refused": {"ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "io_uring_setup": 425,
                           "io_uring_enter": 426, "io_uring_register": 427, "pidfd_getfd": 438}},
    "aarch64": {"arch": 0xC00000B7, "seccomp": 277, "socket": 198, "socketpair": 199, "bind": 200, "listen": 201,
                "refused": {"ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "io_uring_setup": 425,
                            "io_uring_enter": 426, "io_uring_register": 427, "pidfd_getfd": 438}},
}
_X32_SYSCALL_BIT = 0x40000000


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _filter_program(numbers: dict[str, Any], inet_allowed: bool) -> list[tuple[int, int, int, int]]:
    """The classic BPF program of refuse_sockets, as (code, jt, jf, k); jumps are counted from the next one."""
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ/JGE/JSET|K, BPF_RET|K
    refuse = _RET_ERRNO | errno.EPERM
    program: list[tuple[int, int, int, int]] = []
    labels: dict[str, int] = {}
    jumps: list[tuple[int, str, str]] = []  # (index, label if true, label if false)

    def emit(code: int, k: int, true: str = "", false: str = "") -> None:
        if true or false:
            jumps.append((len(program), true, false))
        program.append((code, 0, 0, k))

    def label(name: str) -> None:
        labels[name] = len(program)

    emit(load, 4)  # seccomp_data.arch: another ABI's calls (i386's socketcall) are refused whole
    emit(jeq, numbers["arch"], "native", "refuse")
    label("native")
    emit(load, 0)  # seccomp_data.nr
    if numbers["arch"] == _SYSCALLS["x86_64"]["arch"]:
        emit(jset, _X32_SYSCALL_BIT, "refuse", "number")
    label("number")
    emit(jeq, numbers["socket"], "socket", "not_socket")
    label("not_socket")
    emit(jeq, numbers["socketpair"], "pair", "not_pair")
    label("not_pair")
    for number in [numbers["bind"], numbers["listen"], *numbers["refused"].values()]:
        emit(jeq, number, "refuse", f"after_{number}")
        label(f"after_{number}")
    emit(ret, _RET_ALLOW)
    label("socket")
    emit(load, 16)  # args[0], the family (an int: the low half of the word)
    if inet_allowed:
        emit(jeq, _AF_INET, "allow", "not_inet")
        label("not_inet")
        emit(jeq, _AF_INET6, "allow", "refuse")
    else:
        emit(ret, refuse)
    label("pair")
    emit(load, 16)
    emit(jeq, _AF_UNIX, "pair_unix", "refuse")
    label("pair_unix")
    emit(load, 24)  # args[1], the type, less SOCK_NONBLOCK and SOCK_CLOEXEC
    emit(0x54, _SOCK_TYPE_MASK)  # BPF_ALU|AND|K
    emit(jeq, _SOCK_STREAM, "allow", "not_stream")  # a datagram pair could send to any address
    label("not_stream")
    emit(jeq, _SOCK_SEQPACKET, "allow", "refuse")
    label("allow")
    emit(ret, _RET_ALLOW)
    label("refuse")
    emit(ret, refuse)
    for index, true, false in jumps:
        code, _, _, k = program[index]
        program[index] = (code, labels[true] - index - 1, labels[false] - index - 1, k)
    return program


def refuse_sockets(inet_allowed: bool) -> dict[str, Any]:
    """Installs a seccomp filter on every thread of this process and on whatever it starts, irreversibly: socket()
    fails with EPERM for every family but AF_UNIX pairs of stream or seqpacket sockets (socketpair: connected to
    each other only), and for AF_INET and AF_INET6 too unless `inet_allowed` (only inside a network namespace of
    its own, where they reach nothing); bind, listen, io_uring (whose requests open and connect sockets without
    these calls) and ptrace-like access to other processes (ptrace, process_vm_readv/writev, pidfd_getfd) fail
    with EPERM. A Unix socket that is not a pair cannot be made at all, so none outside its folder is reached,
    abstract ones included. Returns {"network": "seccomp" or "", "problem", "seconds"}."""
    started = time.perf_counter()
    numbers = _SYSCALLS.get(platform.machine())
    if numbers is None:
        return {"network": "", "problem": f"no seccomp filter for the architecture {platform.machine()}",
                "seconds": 0.0}
    program = _filter_program(numbers, inet_allowed)
    instructions = (_SockFilter * len(program))(*[_SockFilter(*op) for op in program])
    fprog = _SockFprog(len(program), instructions)
    libc = _libc()
    problem = ""
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        problem = f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(ctypes.get_errno())}"
    else:
        answer = libc.syscall(numbers["seccomp"], ctypes.c_uint(_SECCOMP_SET_MODE_FILTER),
                              ctypes.c_uint(_SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(fprog))
        if answer < 0:
            problem = f"seccomp(SECCOMP_SET_MODE_FILTER): {os.strerror(ctypes.get_errno())}"
        elif answer > 0:  # TSYNC: the thread that could not take the filter
            problem = f"seccomp: thread {answer} could not take the filter"
    return {"network": "" if problem else "seccomp", "problem": problem, "seconds": time.perf_counter() - started}
