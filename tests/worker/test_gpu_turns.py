"""A timed child's turns on a shared GPU (gpu_turns.py): while Triton compiles one of the candidate's kernels
the child hands its share of the GPU back and asks for it again after, straight to the host on the turn socket
(here the stand-in of turn_host.py); the fork server only names the child and says when the next one has readied.
Real fork server and child processes on the CPU; the kernel is compiled for an explicit CUDA target, which needs no
GPU."""
import os
import socket
import time

import torch

from tritongym_worker.candidate import CandidateRole
from tritongym_worker.gpu_turns import GpuTurns
from turn_host import TurnHost

COMPILES = '''
import triton
import triton.compiler
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def _twice(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2, mask=offsets < n)


def double(x):
    source = triton.compiler.ASTSource(_twice, {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {(2,): BLOCK})
    triton.compiler.compile(source, target=GPUTarget("cuda", 80, 32))
    return x * 2
'''
PLAIN = "def double(x):\n    return x * 2\n"


def _run(tmp_path, monkeypatch, code, host=None, blocks=(128,), timeout_s=60.0, extra=None):
    """Runs `code` once per block size, timed, against `host` (a TurnHost on the worker's folder; made if None).
    Returns [(reply, seconds)] and leaves the host in `_run.host`."""
    host = host or TurnHost(str(tmp_path / "worker"))
    _run.host = host
    cache = tmp_path / "worker" / "triton-cache"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))
    inputs = tmp_path / "inputs" / "case.pt"
    inputs.parent.mkdir()
    torch.save({"inputs": [torch.arange(8.0)]}, inputs)
    role = CandidateRole("cpu", str(tmp_path / "worker"), str(cache), 0, host.worker_fd)
    cases = [{"key": f"s/seed-{i}", "inputs": str(inputs), "output": f"out-{i}.pt"} for i in range(len(blocks))]
    results = []
    for block in blocks:  # one request per block size: each is a new kernel specialisation to compile
        request = {"code": f"BLOCK = {block}\n" + code, "entry": "double", "timeout_s": timeout_s,
                   "pause_before_timing": True, "cases": cases[:1],
                   "timing": {"shapes": [{"key": "s", "sets": [str(inputs)], "recheck": []}], "target_seconds": 0.01},
                   **(extra or {})}
        started = time.monotonic()
        try:
            results.append((role.run(request), time.monotonic() - started))
        except BaseException:
            role.close()
            host.close()
            raise
    role.close()
    host.close()
    return results


def test_a_compile_hands_the_gpu_back_and_takes_it_again(tmp_path, monkeypatch):
    [(reply, _)] = _run(tmp_path, monkeypatch, COMPILES)
    host = _run.host
    assert reply.get("verdict") is None, reply
    assert host.sent == ["gpu_idle", "gpu_wanted", "ready_to_time"]
    assert reply["compiles_off_gpu"] == 1
    # Each is the child's (the kernel says who wrote it), whom the host holds through the driver while it says it
    # is idle (idle_hold.hpp); the fork server named it.
    child = host.pids[0]
    assert host.pids == [child] * 3 and child not in (None, 0, os.getpid())
    assert [case["status"] for case in reply["cases"]] == ["ok"]


def test_waiting_for_the_share_is_not_the_childs_time(tmp_path, monkeypatch):
    host = TurnHost(str(tmp_path / "worker"), delays={"gpu_wanted": 3.0})
    [(reply, elapsed)] = _run(tmp_path, monkeypatch, COMPILES, host, timeout_s=2.5)
    assert elapsed > 3.0
    assert reply.get("verdict") is None, reply  # not a timeout: it waited 3 s for the GPU, not for itself
    assert reply["wall_seconds"] < elapsed - 2.9


def holding_host(root, held_s, on, content=None):
    """A host that holds the child (as a timing beside it would, through the driver) for `held_s` when it says `on`,
    before it answers, and writes holds/<pid> as the executor does (held_clock.hpp): a hold in force, then its
    total; or `content` and no hold."""
    def hold(event, pid):
        if event != on:
            return
        path = os.path.join(root, "holds", str(pid))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(content if content is not None else f"0.0 {time.monotonic():.6f}\n")
        if content is None:
            time.sleep(held_s)
            with open(path, "w") as handle:
                handle.write(f"{held_s:.6f} 0\n")

    return TurnHost(root, on_event=hold, count_waits=False)


SLEEPS = COMPILES.replace("    return x * 2\n", "    import time\n    time.sleep(1.5)\n    return x * 2\n")


def test_the_time_the_host_held_the_child_is_not_the_childs_time(tmp_path, monkeypatch):
    # 2.0 s of limit; the child sleeps 1.5 s after its compile, and the host says it held the child 1.2 s.
    host = holding_host(str(tmp_path / "worker"), 1.2, "gpu_idle")
    [(reply, elapsed)] = _run(tmp_path, monkeypatch, SLEEPS, host, timeout_s=2.0)
    assert elapsed > 2.7
    assert reply.get("verdict") is None, reply  # not a timeout: 1.2 s of it the child was held
    assert reply["wall_seconds"] < elapsed - 1.1
    assert not os.listdir(tmp_path / "worker" / "holds")  # the fork server removes the file with the child


def test_a_hold_while_the_child_waits_for_its_share_is_taken_out_of_its_time_once(tmp_path, monkeypatch):
    # Counted as a wait and as a hold, the same 2 s came out twice, and the child's time read below zero. The host
    # now counts both in one file (held_clock.hpp), which the fork server reads once.
    host = holding_host(str(tmp_path / "worker"), 2.0, "gpu_wanted")
    [(reply, elapsed)] = _run(tmp_path, monkeypatch, COMPILES, host)
    assert host.sent == ["gpu_idle", "gpu_wanted", "ready_to_time"]
    assert reply.get("verdict") is None, reply
    assert 0.0 < reply["wall_seconds"] < elapsed - 1.9, (reply["wall_seconds"], elapsed)
    assert reply["wall_seconds"] > elapsed - 2.0 - 1.0  # and only once: the rest is the child's own


def test_a_held_file_that_says_nothing_readable_extends_nothing(tmp_path, monkeypatch):
    host = holding_host(str(tmp_path / "worker"), 0.0, "gpu_idle", content="ten seconds")
    [(reply, _)] = _run(tmp_path, monkeypatch, SLEEPS, host, timeout_s=1.0)
    assert reply.get("verdict") == "timeout", reply


def test_a_candidate_that_compiles_nothing_only_says_it_is_ready(tmp_path, monkeypatch):
    [(reply, _)] = _run(tmp_path, monkeypatch, PLAIN)
    host = _run.host
    assert host.sent == ["ready_to_time"]
    assert reply["compiles_off_gpu"] == 0


def test_a_compile_that_fails_still_takes_the_share_back(tmp_path, monkeypatch):
    broken = COMPILES.replace("* 2, mask", "* undefined_name, mask")
    [(reply, _)] = _run(tmp_path, monkeypatch, broken)
    host = _run.host
    assert reply["verdict"] in ("compile_error", "runtime_error"), reply
    assert host.sent == ["gpu_idle", "gpu_wanted"]  # and never ready to be timed


def _socket(*answers):
    """A GpuTurns attached to a fresh turn socket, the host's answers already waiting: (turns, the host's end)."""
    host, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    for answer in answers:
        host.send(answer)
    turns = GpuTurns()
    turns.attach(child.detach())
    return turns, host


def _said(host):
    said = b""
    while chunk := host.recv(16):  # b"" once every copy of the child's end is closed
        said += chunk
    host.close()
    return said


def test_after_its_timed_calls_the_child_says_so_once_and_lets_go_of_its_socket():
    turns, host = _socket(b"g", b"g")  # to its ready_to_time, and to its timed_calls_done
    assert turns.ready_to_time()
    turns.timed_calls_done()
    turns.timed_calls_done()  # a second call says nothing more
    assert _said(host) == b"rd"  # its end closed: the read sees the end


def test_a_child_not_let_be_timed_says_nothing_after():
    turns, host = _socket(b"s")
    assert not turns.ready_to_time()
    turns.timed_calls_done()
    assert _said(host) == b"r"


class _TimedGuard:
    """Stands in for the CUDA timing guard on the CPU: its timed calls are one call of the entry, after which
    it says they are done, as measure.time_candidate does."""

    def __init__(self, device):
        pass

    def before_import(self):
        pass

    def start_tracing(self):
        pass

    def measure(self, entry, plan, compiled, timed=None):
        entry(torch.arange(8.0))
        if timed is not None:
            timed()
        return {"shapes": [], "flags": [], "phases": {"timed_calls": 0.0}}


def test_the_host_hears_when_the_timed_calls_are_done(tmp_path, monkeypatch):
    import tritongym_worker.candidate_child as candidate

    monkeypatch.setattr(candidate, "_TimingGuard", _TimedGuard)  # forked children inherit it
    [(reply, _)] = _run(tmp_path, monkeypatch, COMPILES)
    host = _run.host
    assert reply.get("verdict") is None, reply
    assert host.sent == ["gpu_idle", "gpu_wanted", "ready_to_time", "timed"]
    assert "error" not in reply["timing"], reply["timing"]


OUT_OF_TURN = '''
import gc
import os

from tritongym_worker.gpu_turns import GpuTurns

turns = [o for o in gc.get_objects() if isinstance(o, GpuTurns)][0]
os.write(turns._ready, b"d")  # "timed" before it was even let be timed


def double(x):
    return x * 2
'''


def test_a_byte_out_of_turn_ends_what_counts_and_the_child_waits_until_its_limit(tmp_path, monkeypatch):
    import tritongym_worker.candidate_child as candidate

    monkeypatch.setattr(candidate, "_TimingGuard", _TimedGuard)
    [(reply, elapsed)] = _run(tmp_path, monkeypatch, OUT_OF_TURN, timeout_s=3.0)
    host = _run.host
    assert host.sent == []  # neither the forged "timed" nor, after it, "ready_to_time"
    assert reply["verdict"] == "timeout", reply
    assert elapsed < 30


AUTOTUNED = '''
import triton
from triton.runtime.autotuner import Autotuner


class _Launch:  # what the Autotuner wraps in place of a @triton.jit function: there is no GPU to launch on
    def __init__(self):
        self.fn = lambda x_ptr, n: None

    def run(self, *args, grid, warmup, BLOCK, **kwargs):
        return None


_tuner = Autotuner(_Launch(), ["x_ptr", "n"], [triton.Config({"BLOCK": b}) for b in (32, 64)], key=["n"],
                   reset_to_zero=None, restore_value=None, do_bench=lambda kernel_call, quantiles: [1.0] * 3)


def double(x):
    _tuner.run(x, x.numel(), grid=(1,), warmup=False)
    _tuner.run(x, x.numel(), grid=(1,), warmup=False)  # tuned already: no second turn
    return x * 2
'''


def test_an_autotuner_has_the_gpu_alone_while_it_benchmarks_a_new_key(tmp_path, monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    [(reply, _)] = _run(tmp_path, monkeypatch, AUTOTUNED, extra={"autotune": {"alone": True, "rep_ms": 10}})
    host = _run.host
    assert reply.get("verdict") is None, reply
    assert host.sent == ["gpu_alone_wanted", "gpu_alone_done", "ready_to_time"]
    assert len(set(host.pids)) == 1
    # Its own benchmark (do_bench=...) was kept: no config on the executor's budget.
    benchmarks = reply["autotune_benchmarks"]
    assert (benchmarks["keys_alone"], benchmarks["configs_on_budget"], benchmarks["rep_ms"]) == (1, 0, 10.0)
    # What the one key's benchmarks measured (1 ms each, the candidate's own benchmark says).
    [(kernel, keys)] = benchmarks["timings_us"].items()
    assert kernel == "<lambda>" and list(keys) == ["8, float32"]
    assert sorted(keys["8, float32"].values()) == [1000.0, 1000.0]


def test_without_alone_in_the_request_an_autotuner_takes_no_turn(tmp_path, monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    [(reply, _)] = _run(tmp_path, monkeypatch, AUTOTUNED)
    host = _run.host
    assert reply.get("verdict") is None, reply
    assert host.sent == ["ready_to_time"]
    assert reply["autotune_benchmarks"]["keys_alone"] == 0  # its timings are still reported


def test_the_host_hears_no_turn_before_the_next_child_has_readied_itself(tmp_path, monkeypatch):
    # The next child is forked as this one starts and readies itself meanwhile (on CUDA: a context, whose creation
    # keeps the GPU busy). The host may let go of this evaluation's share at any turn, so the fork server says when
    # the next child has readied (`R`), and the host counts no turn before: its readying falls under this share.
    import tritongym_worker.candidate_child as candidate

    readied = tmp_path / "readied"
    readied.mkdir()

    class SlowAhead(candidate._Ahead):
        def __init__(self, device):
            time.sleep(0.6)
            super().__init__(device)
            (readied / str(os.getpid())).write_text(repr(time.time()))

    monkeypatch.setattr(candidate, "_Ahead", SlowAhead)  # forked children inherit it
    [(reply, _)] = _run(tmp_path, monkeypatch, COMPILES)
    host = _run.host
    assert reply.get("verdict") is None, reply
    assert host.sent == ["gpu_idle", "gpu_wanted", "ready_to_time"]
    marks = {int(path.name): float(path.read_text()) for path in readied.iterdir()}
    assert len(marks) == 2  # the child that ran, and the next one, forked as it started
    next_readied = max(marks.values())
    assert host.readied_at and host.readied_at[0] >= next_readied, (host.readied_at, next_readied)
