"""A candidate's child is confined (sandbox.py): it reaches no network (TCP and UDP, IPv4 and IPv6, the loopback
included), listens on nothing, reaches no Unix socket but its own pairs, shares no SysV or POSIX IPC object and no
/dev/shm with the host, may neither ptrace nor signal processes outside its own Landlock domain (not the GPU's
sampler, a worker or another evaluation's child, though all run under the same user), and a refused attempt is a
verdict that names it while the worker keeps serving. Real fork server and children on the CPU, sandboxed as on a
GPU, against listeners these tests start on the loopback; each kernel mechanism is also tried alone, in a forked
process of its own, with nothing in front of it."""
import ctypes
import errno
import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import torch

from one_case import request
from one_case import role as fork_server
from tritongym_worker import sandbox, sandbox_landlock, sandbox_seccomp
from tritongym_worker.sandbox import landlock_abi

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "adversarial"
DOUBLE = "def double(x):\n    return x * 2\n"
PROBE = sandbox.probe()
NAMESPACES = "namespace" in PROBE["network"]

SIGNALS = '''
import os
import signal
import subprocess


def double(x):
    for number in (signal.SIGSTOP, signal.SIGKILL):  # not its fork server: here that is the test's own process
        try:
            os.kill(VICTIM, number)
            print("victim", number.name, "sent")
        except PermissionError:
            print("victim", number.name, "refused")
    own = subprocess.Popen(["sleep", "30"])
    own.kill()
    print("own child", own.wait())
    return x * 2
'''


@pytest.mark.skipif(landlock_abi() < 6, reason=f"Landlock ABI {landlock_abi()} cannot scope signals (needs 6)")
def test_a_candidate_cannot_signal_other_processes_but_can_signal_its_own_children(tmp_path):
    victim = subprocess.Popen(["sleep", "60"])  # stands for the sampler: a process of the same user
    role = fork_server(tmp_path)
    try:
        reply = role.run(request(tmp_path, SIGNALS.replace("VICTIM", str(victim.pid))))
        assert reply.get("verdict") is None, reply
        assert reply["sandbox"]["signals"].startswith("landlock v"), reply["sandbox"]
        for line in ("victim SIGSTOP refused", "victim SIGKILL refused", f"own child {-signal.SIGKILL}"):
            assert line in reply["stdout"], reply["stdout"]
        assert victim.poll() is None
        with open(f"/proc/{victim.pid}/stat") as stat:
            assert stat.read().split(") ")[1][0] == "S"  # asleep, not stopped
        # The fork server still serves: a second candidate runs.
        again = role.run(request(tmp_path, DOUBLE))
        assert again.get("verdict") is None, again
    finally:
        role.close()
        victim.kill()
        victim.wait()


def test_the_record_says_what_confined_the_child(tmp_path):
    role = fork_server(tmp_path)
    try:
        reply = role.run(request(tmp_path, DOUBLE))
    finally:
        role.close()
    assert reply.get("verdict") is None, reply
    record = reply["sandbox"]
    assert record["policy"] == "required" and record["confined"] and record["missing"] == [], record
    assert record["network"] == PROBE["network"], (record, PROBE)  # what doctor says is what a child gets
    assert "seccomp" in record["network"]
    assert record["files"] == f"landlock v{landlock_abi()}"
    assert record["capabilities"] == "capabilities dropped"
    assert set(record["seconds"]) == {"namespaces", "seccomp", "landlock"}
    if NAMESPACES:
        assert record["ipc"] == "namespace"


# ---------------------------------------------------------------- the fixtures, each against a listener of its own


def _vector_add_request(tmp_path, code):
    inputs = tmp_path / "vector-add-inputs" / "case.pt"
    if not inputs.exists():
        inputs.parent.mkdir(exist_ok=True)
        torch.save({"inputs": [torch.arange(8.0), torch.ones(8)]}, inputs)
    return {"code": code, "entry": "vector_add", "timeout_s": 30.0,
            "cases": [{"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}]}


def _fixture(name, old, new):
    code = (FIXTURES / name).read_text()
    assert old in code, f"{name} no longer has {old!r}"
    return code.replace(old, new)


def _reason(name):
    for line in (FIXTURES / "README.md").read_text().splitlines():
        if line.startswith(f"| `{name}` |"):
            return line.split("|")[5].strip()
    raise AssertionError(f"{name} has no row in the README")


def _judge_and_serve_on(tmp_path, name, code):
    """Runs the fixture's code in a real child, then a correct candidate in the same fork server."""
    role = fork_server(tmp_path)
    try:
        reply = role.run(_vector_add_request(tmp_path, code))
        again = role.run(request(tmp_path, DOUBLE))
    finally:
        role.close()
    assert reply.get("verdict") == "runtime_error", reply
    assert _reason(name) in reply["message"], reply["message"]
    assert again.get("verdict") is None, again  # the pool keeps serving
    return reply


def test_tcp_to_a_loopback_listener_is_refused(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        port = listener.getsockname()[1]
        reply = _judge_and_serve_on(tmp_path, "tcp_loopback.py",
                                    _fixture("tcp_loopback.py", "PORTS = (8000, 30000, 11434, 8080)", f"PORTS = ({port},)"))
        assert f"connect to 127.0.0.1:{port}" in reply["message"]
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody came


def test_tcp_over_ipv6_is_refused(tmp_path):
    try:
        listener = socket.create_server(("::1", 0), family=socket.AF_INET6)
    except OSError as error:
        pytest.skip(f"no IPv6 loopback here: {error}")
    with listener:
        listener.setblocking(False)
        port = listener.getsockname()[1]
        reply = _judge_and_serve_on(tmp_path, "ipv6_connect.py",
                                    _fixture("ipv6_connect.py", "PORTS = (8000, 30000, 11434, 8080)", f"PORTS = ({port},)"))
        assert f"connect to [::1]:{port}" in reply["message"]
        with pytest.raises(BlockingIOError):
            listener.accept()


def test_udp_to_the_loopback_is_refused(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver:
        receiver.bind(("127.0.0.1", 0))
        receiver.setblocking(False)
        port = receiver.getsockname()[1]
        reply = _judge_and_serve_on(tmp_path, "udp_send.py", _fixture("udp_send.py", "PORTS = (8125, 5140)",
                                                                      f"PORTS = ({port},)"))
        assert f"send to 127.0.0.1:{port}" in reply["message"]
        with pytest.raises(BlockingIOError):
            receiver.recv(100)  # nothing arrived


def test_a_listening_socket_is_refused(tmp_path):
    _judge_and_serve_on(tmp_path, "listen_socket.py", (FIXTURES / "listen_socket.py").read_text())


def test_an_abstract_unix_socket_of_another_process_is_refused(tmp_path):
    name = f"\0tritongym-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(name)
        listener.listen()
        listener.setblocking(False)
        _judge_and_serve_on(tmp_path, "abstract_unix_socket.py",
                            _fixture("abstract_unix_socket.py", 'NAME = "\\0tritongym-answers"', f"NAME = {name!r}"))
        with pytest.raises(BlockingIOError):
            listener.accept()


# ---------------------------------------------------------------- the kernel's refusal, with no explanation in front

BYPASS = '''
import _socket
import socket


def attempt(what, call):
    try:
        call()
        print(what, "REACHED")
    except OSError as error:
        print(what, "refused:", errno_name(error))


def errno_name(error):
    import errno
    return errno.errorcode.get(error.errno, str(error.errno))


def tcp():
    connection = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    connection.settimeout(2)
    connection.connect(("127.0.0.1", TCP_PORT))


def udp():
    _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM).sendto(b"leak", ("127.0.0.1", UDP_PORT))


def path_unix():
    _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM).connect(UNIX_PATH)


def datagram_pair():
    socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)


def double(x):
    attempt("tcp", tcp)
    attempt("udp", udp)
    attempt("path unix socket", path_unix)
    attempt("datagram pair", datagram_pair)
    a, b = socket.socketpair()  # what the filter lets through: a connected stream pair
    a.send(b"x")
    print("stream pair", b.recv(1))
    return x * 2
'''


def test_code_that_bypasses_the_socket_module_meets_the_kernels_refusal(tmp_path):
    unix_path = str(tmp_path / "listener.sock")
    with socket.create_server(("127.0.0.1", 0)) as tcp, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, \
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
        udp.bind(("127.0.0.1", 0))
        unix.bind(unix_path)
        unix.listen()
        for listener in (tcp, udp, unix):
            listener.setblocking(False)
        code = (BYPASS.replace("TCP_PORT", str(tcp.getsockname()[1])).replace("UDP_PORT", str(udp.getsockname()[1]))
                .replace("UNIX_PATH", repr(unix_path)))
        role = fork_server(tmp_path)
        try:
            reply = role.run(request(tmp_path, code))
        finally:
            role.close()
        assert reply.get("verdict") is None, reply
        assert "REACHED" not in reply["stdout"], reply["stdout"]
        for line in ("tcp refused", "udp refused", "path unix socket refused: EPERM", "datagram pair refused: EPERM",
                     "stream pair b'x'"):
            assert line in reply["stdout"], reply["stdout"]
        with pytest.raises(BlockingIOError):
            tcp.accept()
        with pytest.raises(BlockingIOError):
            udp.recv(100)
        with pytest.raises(BlockingIOError):
            unix.accept()


def _in_a_forked_process(steps):
    """Runs steps() in a forked process and returns what it returned (JSON), so that what it gives up stays there."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            os.write(write_end, json.dumps(steps()).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    assert data, "the forked process reported nothing"
    return json.loads(data)


def _try(call):
    try:
        call()
        return "allowed"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))


@pytest.mark.skipif(not NAMESPACES, reason=f"no network namespace for a child here: {PROBE['problems']}")
def test_a_network_namespace_alone_reaches_nothing():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        port = listener.getsockname()[1]

        def steps():
            entered = sandbox.enter_namespaces()
            connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            connection.settimeout(2)
            six = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            six.settimeout(2)
            return {"entered": entered["network"], "tcp": _try(lambda: connection.connect(("127.0.0.1", port))),
                    "ipv6": _try(lambda: six.connect(("::1", port))),
                    "udp": _try(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", port)))}

        found = _in_a_forked_process(steps)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert found["entered"] == "namespace"
    assert found["tcp"] in ("ENETUNREACH", "EADDRNOTAVAIL") and found["udp"] == "ENETUNREACH", found
    assert found["ipv6"] in ("ENETUNREACH", "EADDRNOTAVAIL"), found


def test_the_seccomp_filter_alone_refuses_every_socket_but_a_stream_pair():
    def steps():
        taken = sandbox.refuse_sockets(inet_allowed=False)
        libc = ctypes.CDLL(None, use_errno=True)

        def raw(number, *arguments):
            if libc.syscall(number, *arguments) < 0:
                raise OSError(ctypes.get_errno(), "")

        numbers = sandbox_seccomp._SYSCALLS[os.uname().machine]
        return {"taken": taken["network"],
                "inet": _try(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
                "inet6": _try(lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)),
                "unix": _try(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
                "netlink": _try(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)),
                "packet": _try(lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW)),
                "vsock": _try(lambda: socket.socket(40, socket.SOCK_STREAM)),
                "stream pair": _try(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)),
                "datagram pair": _try(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)),
                "io_uring": _try(lambda: raw(numbers["refused"]["io_uring_setup"], 8, ctypes.create_string_buffer(120))),
                "ptrace": _try(lambda: raw(numbers["refused"]["ptrace"], 16, os.getppid(), 0, 0))}  # PTRACE_ATTACH

    found = _in_a_forked_process(steps)
    assert found.pop("taken") == "seccomp"
    assert found.pop("stream pair") == "allowed"
    assert found == {name: "EPERM" for name in found}, found


@pytest.mark.skipif(landlock_abi() < 4, reason=f"Landlock ABI {landlock_abi()} has no network rules (needs 4)")
def test_landlock_alone_refuses_tcp(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        port = listener.getsockname()[1]

        def steps():
            confined = sandbox.confine(sandbox.system_read_paths(), [str(tmp_path)])
            connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            return {"network": confined["network"], "tcp": _try(lambda: connection.connect(("127.0.0.1", port))),
                    "bind": _try(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).bind(("127.0.0.1", 0)))}

        found = _in_a_forked_process(steps)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert found == {"network": f"landlock v{landlock_abi()} (TCP)", "tcp": "EACCES", "bind": "EACCES"}, found


# ---------------------------------------------------------------- other channels to the host

_IPC_CREAT, _IPC_RMID = 0o1000, 0
IPC = '''
import ctypes
import errno


def double(x):
    libc = ctypes.CDLL(None, use_errno=True)
    for what, found in (("segment", libc.shmget(HOST_SEGMENT, 0, 0)), ("queue", libc.msgget(HOST_QUEUE, 0))):
        print("host", what, "found" if found >= 0 else errno.errorcode[ctypes.get_errno()])
    print("own segment", "made" if libc.shmget(OWN_SEGMENT, 4096, 0o1666) >= 0 else "not made")
    mq_open = libc.mq_open
    mq_open.restype = ctypes.c_int
    print("host message queue", "found" if mq_open(HOST_MQ, 2) >= 0 else errno.errorcode[ctypes.get_errno()])
    for path in ("/dev/shm/" + HOST_SHM_FILE, "/dev/shm/tritongym-left-behind"):
        try:
            open(path, "a").close()
            print(path, "OPENED")
        except OSError as error:
            print(path, "refused:", errno.errorcode[error.errno])
    return x * 2
'''


@pytest.mark.skipif(not NAMESPACES, reason=f"no IPC namespace for a child here: {PROBE['problems']}")
def test_a_candidate_shares_no_ipc_object_and_no_dev_shm_with_the_host(tmp_path):
    libc = ctypes.CDLL(None, use_errno=True)
    key = 0x54470000 | (os.getpid() & 0xFFFF)
    segment = libc.shmget(key, 4096, _IPC_CREAT | 0o600)
    queue = libc.msgget(key + 1, _IPC_CREAT | 0o600)
    mq_name = f"/tritongym-test-{os.getpid()}".encode()
    libc.mq_open.restype = ctypes.c_int
    mq = libc.mq_open(mq_name, os.O_CREAT | os.O_RDWR, 0o600, None)
    shm_file = f"tritongym-test-{uuid.uuid4().hex}"
    Path("/dev/shm", shm_file).write_text("the host's")
    assert segment >= 0 and queue >= 0, ctypes.get_errno()
    code = (IPC.replace("HOST_SEGMENT", hex(key)).replace("HOST_QUEUE", hex(key + 1)).replace("OWN_SEGMENT", hex(key + 2))
            .replace("HOST_MQ", repr(mq_name)).replace("HOST_SHM_FILE", repr(shm_file)))
    role = fork_server(tmp_path)
    try:
        reply = role.run(request(tmp_path, code))
    finally:
        role.close()
        libc.shmctl(segment, _IPC_RMID, None)
        libc.msgctl(queue, _IPC_RMID, None)
        if mq >= 0:
            libc.mq_unlink(mq_name)
        Path("/dev/shm", shm_file).unlink()
    assert reply.get("verdict") is None, reply
    for line in ("host segment ENOENT", "host queue ENOENT", "own segment made", f"{shm_file} refused: EACCES",
                 "tritongym-left-behind refused: EACCES"):
        assert line in reply["stdout"], reply["stdout"]
    if mq >= 0:
        assert "host message queue ENOENT" in reply["stdout"], reply["stdout"]
    assert libc.shmget(key + 2, 0, 0) < 0  # its own segment went with its namespace
    assert not Path("/dev/shm/tritongym-left-behind").exists()


PTRACE = '''
import ctypes
import errno


def double(x):
    libc = ctypes.CDLL(None, use_errno=True)
    attached = libc.ptrace(16, VICTIM, None, None)  # PTRACE_ATTACH
    print("ptrace", "ATTACHED" if attached == 0 else errno.errorcode[ctypes.get_errno()])
    try:
        with open("/proc/VICTIM/mem", "rb") as memory:
            print("memory OPENED")
    except OSError as error:
        print("memory refused:", errno.errorcode[error.errno])
    return x * 2
'''


def test_a_candidate_cannot_trace_another_process(tmp_path):
    victim = subprocess.Popen(["sleep", "60"])  # stands for another evaluation's child: same user, dumpable
    role = fork_server(tmp_path)
    try:
        reply = role.run(request(tmp_path, PTRACE.replace("VICTIM", str(victim.pid))))
    finally:
        role.close()
        victim.kill()
        victim.wait()
    assert reply.get("verdict") is None, reply
    assert "ptrace EPERM" in reply["stdout"], reply["stdout"]
    if landlock_abi() >= 1:
        assert "memory refused: EACCES" in reply["stdout"], reply["stdout"]


# ---------------------------------------------------------------- the policy


def _unconfinable(monkeypatch):
    """A machine without Landlock and without seccomp, as the children of this test's fork server see it."""
    monkeypatch.setattr(sandbox_landlock, "landlock_abi", lambda: 0)  # where confine reads it
    monkeypatch.setattr(sandbox, "refuse_sockets", lambda inet_allowed: {
        "network": "", "problem": "seccomp(SECCOMP_SET_MODE_FILTER): Invalid argument", "seconds": 0.0})


def test_required_refuses_to_run_a_candidate_on_a_machine_that_cannot_confine_it(tmp_path, monkeypatch):
    _unconfinable(monkeypatch)
    role = fork_server(tmp_path)
    try:
        reply = role.run(request(tmp_path, "print('RAN')\n" + DOUBLE))
    finally:
        role.close()
    assert reply.get("verdict") == "harness_error", reply
    for said in ("cannot confine candidates", "files: no Landlock", "network: seccomp", "best_effort"):
        assert said in reply["message"], reply["message"]
    assert "RAN" not in reply["stdout"]
    assert reply["sandbox"]["confined"] is False and len(reply["sandbox"]["missing"]) == 2


def test_best_effort_runs_it_and_the_record_says_what_was_missing(tmp_path, monkeypatch):
    _unconfinable(monkeypatch)
    role = fork_server(tmp_path)
    try:
        reply = role.run({**request(tmp_path, DOUBLE), "sandbox": "best_effort"})
    finally:
        role.close()
    assert reply.get("verdict") is None, reply
    record = reply["sandbox"]
    assert record["policy"] == "best_effort" and record["confined"] is False, record
    assert record["files"].startswith("not confined") and "seccomp" not in record["network"], record


def test_the_probe_is_what_tritongym_doctor_prints():
    worker = ROOT / "plugins" / "executors" / "worker"
    done = subprocess.run([sys.executable, "-m", "tritongym_worker.sandbox"], capture_output=True, text=True,
                          env={"PYTHONPATH": str(worker), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["network"] == PROBE["network"] and found["confined"] == PROBE["confined"], (found, PROBE)
    assert found["landlock_abi"] == landlock_abi()


LEAVES_A_LINK = '''
import os


def double(x):
    os.remove("stdout.txt")  # its own output file, which the fork server reads after it exits
    os.symlink(SECRET, "stdout.txt")
    return x * 2
'''


# Found 2026-12-04 in issue 36's review: the fork server followed a link the candidate left in place of its output.
def test_the_fork_server_reads_no_file_through_a_link_the_candidate_left(tmp_path):
    secret = tmp_path / "outside" / "secret.txt"  # outside the child's folder: Landlock refuses it to the child
    secret.parent.mkdir()
    secret.write_text("HOST SECRET")
    role = fork_server(tmp_path)
    try:
        reply = role.run(request(tmp_path, LEAVES_A_LINK.replace("SECRET", repr(str(secret)))))
    finally:
        role.close()
    assert "HOST SECRET" not in reply["stdout"], reply["stdout"]
