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
`confine_child` applies them in order and says, per evaluation, which were in force (the reply's `sandbox`). Each
mechanism lives in a module of its own: sandbox_namespaces, sandbox_seccomp, sandbox_landlock, sandbox_refusals;
process_limits holds what a child gives up besides."""
from __future__ import annotations

import json
import os
import time
from typing import Any, Iterable

from .process_limits import die_with_parent, drop_capabilities, limit_memory
from .sandbox_landlock import (_NET_TCP_ABI, _SCOPE_SIGNAL_ABI, SANDBOX_POLICIES, confine, device_paths,
                               landlock_abi, system_read_paths)
from .sandbox_namespaces import enter_namespaces
from .sandbox_refusals import REFUSAL, explain_network_refusals
from .sandbox_seccomp import refuse_sockets

# What the worker uses, whichever module holds it.
__all__ = ["SANDBOX_POLICIES", "REFUSAL", "confine", "confine_child", "device_paths", "die_with_parent",
           "drop_capabilities", "enter_namespaces", "explain_network_refusals", "landlock_abi", "limit_memory",
           "probe", "refusal_message", "refuse_sockets", "system_read_paths"]


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


if __name__ == "__main__":  # python -m tritongym_worker.sandbox: the probe, as JSON (tritongym doctor)
    print(json.dumps(probe()))
