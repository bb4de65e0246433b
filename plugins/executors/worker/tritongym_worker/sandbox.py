"""Confinement of a candidate's child process: namespaces, a seccomp filter, Landlock rules and resource limits.

Each mechanism is the kernel's own, and each is applied where the kernel has it (docs/anti-cheat.md, "The sandbox",
says what each kernel generation gets):
- network and IPC namespaces of the child's own (`enter_namespaces`, from the spare child's first step, before any
  thread): no interface but a loopback that is down, abstract Unix sockets of its own, SysV IPC and POSIX message
  queues of its own. As root directly; otherwise inside a user namespace of its own.
- a seccomp filter on every thread (`refuse_sockets`): no socket but a connected Unix pair (IPv4 and IPv6 only
  inside its own network namespace, which reaches nothing), no bind, no listen, no io_uring (which would
  open sockets past the filter), no ptrace-like access to another process.
- Landlock (Linux >= 5.13; `confine`): the child may read the system, Python and its own folder, and write only
  its own folder and the Triton cache of its code. The reference cache and the rest of the host's files are out
  of its reach, and so (Landlock's ptrace rule) is every process outside its domain. From ABI 4 (Linux 6.7) it
  may neither connect nor bind a TCP socket; from ABI 6 (Linux 6.12) it may not signal a process outside its
  domain (the GPU's sampler, a worker, another evaluation's child, all run under the same user) nor reach an
  abstract Unix socket made outside it. Its own children share its domain and remain its to signal.
- `explain_network_refusals`: the socket module raises PermissionError("network access is not allowed: connect
  to 127.0.0.1:8080") before the kernel refuses; an explanation only, the kernel's mechanisms are the block.
`confine_child` applies them in order and says, per evaluation, which were in force (the reply's `sandbox`)."""
from __future__ import annotations

import ctypes
import errno
import json
import os
import platform
import resource
import sys
import time
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


# ---------------------------------------------------------------- namespaces

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


# ---------------------------------------------------------------- seccomp

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


# ---------------------------------------------------------------- the explanation

REFUSAL = "network access is not allowed"


def _address_text(address: Any) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        host = str(address[0])
        return f"[{host}]:{address[1]}" if ":" in host else f"{host}:{address[1]}"
    if isinstance(address, (bytes, bytearray)):
        address = bytes(address).decode(errors="replace")
    if isinstance(address, str) and address.startswith("\0"):
        return f"@{address[1:]} (an abstract Unix socket)"
    return repr(address) if not isinstance(address, str) else address


def explain_network_refusals() -> None:
    """Makes the socket module refuse, with a sentence that names the call and its address, what the kernel's
    mechanisms refuse anyway: connect, bind, listen, sendto and sendmsg to an address, a socket() the filter
    refuses, and a name lookup that needs the network. An explanation only: code that bypasses the socket module
    meets the kernel's refusal (EPERM, EACCES, ENETUNREACH) instead of this sentence."""
    import socket

    def refuse(what: str, cause: BaseException | None = None) -> None:
        raise PermissionError(errno.EPERM, f"{REFUSAL}: {what}") from cause

    def family_name(value: Any) -> str:
        try:
            return socket.AddressFamily(value).name
        except ValueError:
            return str(value)

    def kind_name(value: Any) -> str:
        try:
            return socket.SocketKind(value & _SOCK_TYPE_MASK).name
        except ValueError:
            return str(value)

    cls = socket.socket
    original_init = cls.__init__

    def __init__(self: Any, family: int = -1, type: int = -1, proto: int = -1, fileno: Any = None) -> None:
        try:
            original_init(self, family, type, proto, fileno)
        except PermissionError as error:
            refuse(f"socket({family_name(socket.AF_INET if family == -1 else family)}, "
                   f"{kind_name(socket.SOCK_STREAM if type == -1 else type)})", error)

    def with_address(call: str, position: int, verb: str) -> Any:
        def refused(self: Any, *arguments: Any, **keywords: Any) -> Any:
            if len(arguments) > position:
                refuse(f"{verb} {_address_text(arguments[position])}")
            return getattr(super(cls, self), call)(*arguments, **keywords)
        refused.__name__ = call
        return refused

    cls.__init__ = __init__
    cls.connect = with_address("connect", 0, "connect to")
    cls.connect_ex = with_address("connect_ex", 0, "connect to")
    cls.bind = with_address("bind", 0, "bind to")
    cls.sendto = with_address("sendto", 1, "send to")  # sendto(data, address) or sendto(data, flags, address)

    def listen(self: Any, *arguments: Any) -> None:
        refuse("listen on a socket")

    def sendmsg(self: Any, buffers: Any, ancdata: Any = (), flags: int = 0, address: Any = None) -> int:
        if address is not None:
            refuse(f"send to {_address_text(address)}")
        return super(cls, self).sendmsg(buffers, ancdata, flags)

    cls.listen = listen
    cls.sendmsg = sendmsg
    original_lookup = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *arguments: Any, **keywords: Any) -> Any:
        try:
            return original_lookup(host, port, *arguments, **keywords)
        except socket.gaierror as error:  # a name this machine's files do not hold: the lookup needs the network
            refuse(f"name lookup of {host}", error)

    socket.getaddrinfo = getaddrinfo


# ---------------------------------------------------------------- the child's confinement, as a whole


def confine_child(read_paths: Iterable[str], write_paths: Iterable[str], namespaces: dict[str, Any] | None,
                  policy: str = "required") -> dict[str, Any]:
    """Everything a candidate's child gives up before the candidate's code is imported, after `enter_namespaces`
    (`namespaces`: what it gave, None where it was not called): the seccomp filter, Landlock, every capability, and
    the socket module's explanation. Returns the record of what was in force (the reply's `sandbox`):
    {policy, files, signals, network: [mechanisms], ipc, capabilities, missing: [what a confined child has and
    this one lacks], confined, seconds}. With policy "required" the caller must not run a candidate whose record
    has `missing`; "best_effort" runs it, and the record says so."""
    namespaces = namespaces or {"network": "", "ipc": "", "problem": "not entered", "seconds": 0.0}
    in_namespace = namespaces.get("network") == "namespace"
    started = time.perf_counter()
    seccomp = refuse_sockets(inet_allowed=in_namespace)
    seccomp_seconds = time.perf_counter() - started
    started = time.perf_counter()
    landlock = confine(read_paths, write_paths)
    landlock_seconds = time.perf_counter() - started
    capabilities = drop_capabilities()
    explain_network_refusals()
    network = [name for name in ("namespace" if in_namespace else "", seccomp["network"], landlock["network"]) if name]
    missing = []
    if not landlock["files"]:
        missing.append(f"files: {landlock['problem']} (the candidate could read the harness's files, the expected "
                       "outputs among them)")
    if not seccomp["network"]:
        missing.append(f"network: {seccomp['problem']}"
                       + (" (its own network namespace holds TCP and UDP, but not Unix-domain sockets)"
                          if in_namespace else " (the candidate could open connections)"))
    record = {
        "policy": policy,
        "files": landlock["files"] or f"not confined: {landlock['problem']}",
        "signals": landlock["signals"] or f"not confined (needs Landlock ABI {_SCOPE_SIGNAL_ABI}, Linux 6.12)",
        "network": network,
        "ipc": "namespace" if namespaces.get("ipc") == "namespace" else f"shared: {namespaces.get('problem')}",
        "capabilities": capabilities,
        "missing": missing,
        "confined": not missing,
        "seconds": {"namespaces": namespaces.get("seconds", 0.0), "seccomp": seccomp_seconds,
                    "landlock": landlock_seconds},
    }
    problems = [text for text in (namespaces.get("problem"), seccomp["problem"]) if text]
    if problems:
        record["problems"] = problems
    return record


def refusal_message(record: dict[str, Any]) -> str:
    """The harness_error of a child that policy "required" keeps from running its candidate."""
    return ("this machine cannot confine candidates, and the executor's `sandbox` is `required`: "
            + "; ".join(record["missing"])
            + ". Set `sandbox: best_effort` in the executor's config to judge them unconfined, knowingly (each "
              "record then says what was missing).")


def probe() -> dict[str, Any]:
    """What a candidate's child gets on this machine, found as a child would (in a forked process that enters the
    namespaces and installs the filter, then exits): tritongym doctor's sandbox row."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            namespaces = enter_namespaces()
            seccomp = refuse_sockets(inet_allowed=namespaces["network"] == "namespace")
            if seccomp["network"]:  # the filter must really refuse: a Unix socket that is not a pair
                import socket
                try:
                    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()
                    seccomp = {**seccomp, "network": "", "problem": "the filter was taken but socket() still works"}
                except PermissionError:
                    pass
            os.write(write_end, json.dumps({"namespaces": namespaces, "seccomp": seccomp}).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    data = b""
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        data += chunk
    os.close(read_end)
    os.waitpid(pid, 0)
    found = json.loads(data) if data else {"namespaces": {"network": "", "ipc": "", "problem": "the probe died"},
                                           "seccomp": {"network": "", "problem": "the probe died"}}
    abi = landlock_abi()
    namespaces, seccomp = found["namespaces"], found["seccomp"]
    missing = []
    if abi < 1:
        missing.append("files: no Landlock in this kernel (needs Linux 5.13)")
    if not seccomp["network"]:
        missing.append(f"network: {seccomp['problem']}")
    return {
        "landlock_abi": abi,
        "files": f"landlock v{abi}" if abi >= 1 else "not confined (no Landlock)",
        "signals": f"landlock v{abi}" if abi >= _SCOPE_SIGNAL_ABI else
                   f"not confined (needs Landlock ABI {_SCOPE_SIGNAL_ABI}, Linux 6.12)",
        "network": [name for name in ("namespace" if namespaces["network"] else "", seccomp["network"],
                                      f"landlock v{abi} (TCP)" if abi >= _NET_TCP_ABI else "") if name],
        "ipc": "namespace" if namespaces["ipc"] else "shared",
        "namespaces_how": namespaces.get("how", ""),
        "problems": [text for text in (namespaces.get("problem"), seccomp.get("problem")) if text],
        "missing": missing,
        "confined": not missing,
    }


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


if __name__ == "__main__":  # python -m tritongym_worker.sandbox: the probe, as JSON (tritongym doctor)
    print(json.dumps(probe()))
