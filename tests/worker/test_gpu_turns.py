"""A timed child's turns on a shared GPU (gpu_turns.py): while Triton compiles one of the candidate's kernels
the child hands its share of the GPU back and asks for it again after, and the fork server passes both on to
the host as events in the middle of the run request. Real fork server and child processes on the CPU; the
kernel is compiled for an explicit CUDA target, which needs no GPU."""
import os
import time

import torch

from tritongym_worker.candidate import CandidateRole
from tritongym_worker.gpu_turns import GpuTurns

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


class Host:
    """The host's side of the channel: every event it was told, and its answers; "gpu_wanted" answered
    after `share_delay_s` (another evaluation was being timed)."""

    def __init__(self, share_delay_s=0.0):
        self.sent, self.pids, self.share_delay_s = [], [], share_delay_s

    def send(self, message):
        self.sent.append(message["event"])
        self.pids.append(message.get("pid"))

    def receive(self):
        if self.sent[-1] == "gpu_wanted":
            time.sleep(self.share_delay_s)
        return {"op": "time"} if self.sent[-1] == "ready_to_time" else {"op": "continue"}


def _run(tmp_path, monkeypatch, code, host, blocks=(128,), timeout_s=60.0, extra=None):
    cache = tmp_path / "worker" / "triton-cache"
    monkeypatch.setenv("TRITON_CACHE_DIR", str(cache))
    inputs = tmp_path / "inputs" / "case.pt"
    inputs.parent.mkdir()
    torch.save({"inputs": [torch.arange(8.0)]}, inputs)
    role = CandidateRole("cpu", str(tmp_path / "worker"), str(cache), 0, host)
    cases = [{"key": f"s/seed-{i}", "inputs": str(inputs), "output": f"out-{i}.pt"} for i in range(len(blocks))]
    results = []
    for block in blocks:  # one request per block size: each is a new kernel specialisation to compile
        request = {"code": f"BLOCK = {block}\n" + code, "entry": "double", "timeout_s": timeout_s,
                   "pause_before_timing": True, "cases": cases[:1],
                   "timing": {"shapes": [{"key": "s", "sets": [str(inputs)], "recheck": []}], "target_seconds": 0.01},
                   **(extra or {})}
        started = time.monotonic()
        results.append((role.run(request), time.monotonic() - started))
    return results


def test_a_compile_hands_the_gpu_back_and_takes_it_again(tmp_path, monkeypatch):
    host = Host()
    [(reply, _)] = _run(tmp_path, monkeypatch, COMPILES, host)
    assert reply.get("verdict") is None, reply
    assert host.sent == ["gpu_idle", "gpu_wanted", "ready_to_time"]
    assert reply["compiles_off_gpu"] == 1
    # Each names the child, whom the host holds through the driver while it says it is idle (idle_hold.hpp).
    child = host.pids[0]
    assert host.pids == [child] * 3 and child not in (None, 0, os.getpid())
    assert [case["status"] for case in reply["cases"]] == ["ok"]


def test_waiting_for_the_share_is_not_the_childs_time(tmp_path, monkeypatch):
    host = Host(share_delay_s=3.0)
    [(reply, elapsed)] = _run(tmp_path, monkeypatch, COMPILES, host, timeout_s=2.5)
    assert elapsed > 3.0
    assert reply.get("verdict") is None, reply  # not a timeout: it waited 3 s for the GPU, not for itself
    assert reply["wall_seconds"] < elapsed - 2.9


class HoldingHost(Host):
    """Holds the child (as a timing beside it would, through the driver) for `held_s` while it compiles, and
    writes holds/<pid> as the executor does (check_suspension.hpp): a hold in force, then its total."""

    def __init__(self, root, held_s, content=None):
        super().__init__()
        self.root, self.held_s, self.content = root, held_s, content

    def send(self, message):
        super().send(message)
        if message["event"] == "gpu_idle":
            path = os.path.join(self.root, "holds", str(message["pid"]))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                handle.write(self.content if self.content is not None else f"0.0 {time.monotonic():.6f}\n")
            if self.content is None:
                time.sleep(self.held_s)
                with open(path, "w") as handle:
                    handle.write(f"{self.held_s:.6f} 0\n")


SLEEPS = COMPILES.replace("    return x * 2\n", "    import time\n    time.sleep(1.5)\n    return x * 2\n")


def test_the_time_the_host_held_the_child_is_not_the_childs_time(tmp_path, monkeypatch):
    # 2.0 s of limit; the child sleeps 1.5 s after its compile, and the host says it held the child 1.2 s.
    host = HoldingHost(str(tmp_path / "worker"), held_s=1.2)
    [(reply, elapsed)] = _run(tmp_path, monkeypatch, SLEEPS, host, timeout_s=2.0)
    assert elapsed > 2.7
    assert reply.get("verdict") is None, reply  # not a timeout: 1.2 s of it the child was held
    assert reply["wall_seconds"] < elapsed - 1.1
    assert not os.listdir(tmp_path / "worker" / "holds")  # the fork server removes the file with the child


class HoldingWhileAnsweringHost(Host):
    """Holds the child for `held_s` while it waits for its share back: another evaluation had the GPU alone and
    held the checking children meanwhile (on the H200, 2026-12-02, for a torch.compile baseline's 283 s)."""

    def __init__(self, root, held_s):
        super().__init__()
        self.root, self.held_s = root, held_s

    def receive(self):
        if self.sent[-1] == "gpu_wanted":
            path = os.path.join(self.root, "holds", str(self.pids[-1]))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                handle.write(f"0.0 {time.monotonic():.6f}\n")
            time.sleep(self.held_s)
            with open(path, "w") as handle:
                handle.write(f"{self.held_s:.6f} 0\n")
        return super().receive()


def test_a_hold_while_the_child_waits_for_its_share_is_taken_out_of_its_time_once(tmp_path, monkeypatch):
    # Counted as a wait and as a hold, the same 2 s came out twice, and the child's time read below zero.
    host = HoldingWhileAnsweringHost(str(tmp_path / "worker"), held_s=2.0)
    [(reply, elapsed)] = _run(tmp_path, monkeypatch, COMPILES, host)
    assert host.sent == ["gpu_idle", "gpu_wanted", "ready_to_time"]
    assert reply.get("verdict") is None, reply
    assert 0.0 < reply["wall_seconds"] < elapsed - 1.9, (reply["wall_seconds"], elapsed)
    assert reply["wall_seconds"] > elapsed - 2.0 - 1.0  # and only once: the rest is the child's own


def test_a_held_file_that_says_nothing_readable_extends_nothing(tmp_path, monkeypatch):
    host = HoldingHost(str(tmp_path / "worker"), held_s=0.0, content="ten seconds")
    [(reply, _)] = _run(tmp_path, monkeypatch, SLEEPS, host, timeout_s=1.0)
    assert reply.get("verdict") == "timeout", reply


def test_a_candidate_that_compiles_nothing_only_says_it_is_ready(tmp_path, monkeypatch):
    host = Host()
    [(reply, _)] = _run(tmp_path, monkeypatch, PLAIN, host)
    assert host.sent == ["ready_to_time"]
    assert reply["compiles_off_gpu"] == 0


def test_a_compile_that_fails_still_takes_the_share_back(tmp_path, monkeypatch):
    host = Host()
    broken = COMPILES.replace("* 2, mask", "* undefined_name, mask")
    [(reply, _)] = _run(tmp_path, monkeypatch, broken, host)
    assert reply["verdict"] in ("compile_error", "runtime_error"), reply
    assert host.sent == ["gpu_idle", "gpu_wanted"]  # and never ready to be timed


def _pipes(answer):
    """A GpuTurns attached to fresh pipes, the host's answer already waiting: (turns, what the child said)."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    os.write(go_w, answer)
    os.close(go_w)
    turns = GpuTurns()
    turns.attach(ready_w, go_r)
    return turns, ready_r


def _said(read_fd):
    said = b""
    while chunk := os.read(read_fd, 16):
        said += chunk
    os.close(read_fd)
    return said


def test_after_its_timed_calls_the_child_says_so_once_and_lets_go_of_its_pipes():
    turns, said = _pipes(b"g")
    assert turns.ready_to_time()
    turns.timed_calls_done()
    turns.timed_calls_done()  # a second call says nothing more
    assert _said(said) == b"rd"  # both pipes closed: the read sees their end


def test_a_child_not_let_be_timed_says_nothing_after():
    turns, said = _pipes(b"s")
    assert not turns.ready_to_time()
    turns.timed_calls_done()
    assert _said(said) == b"r"


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
    host = Host()
    [(reply, _)] = _run(tmp_path, monkeypatch, COMPILES, host)
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


def test_a_byte_out_of_turn_is_not_passed_on_and_the_child_waits_until_its_limit(tmp_path, monkeypatch):
    import tritongym_worker.candidate_child as candidate

    monkeypatch.setattr(candidate, "_TimingGuard", _TimedGuard)
    host = Host()
    [(reply, elapsed)] = _run(tmp_path, monkeypatch, OUT_OF_TURN, host, timeout_s=3.0)
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
    host = Host()
    [(reply, _)] = _run(tmp_path, monkeypatch, AUTOTUNED, host, extra={"autotune": {"alone": True, "rep_ms": 10}})
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
    host = Host()
    [(reply, _)] = _run(tmp_path, monkeypatch, AUTOTUNED, host)
    assert reply.get("verdict") is None, reply
    assert host.sent == ["ready_to_time"]
    assert reply["autotune_benchmarks"]["keys_alone"] == 0  # its timings are still reported


def test_the_host_hears_no_turn_before_the_next_child_has_readied_itself(tmp_path, monkeypatch):
    # The next child is forked as this one starts and readies itself meanwhile (on CUDA: a context, whose creation
    # keeps the GPU busy). The host may let go of this evaluation's share at any turn, so none is passed on before
    # the next child has said it is ready: its readying falls under this evaluation's share.
    import tritongym_worker.candidate_child as candidate

    readied = tmp_path / "readied"
    readied.mkdir()

    class SlowAhead(candidate._Ahead):
        def __init__(self, device):
            time.sleep(0.6)
            super().__init__(device)
            (readied / str(os.getpid())).write_text(repr(time.time()))

    class TimedHost(Host):
        def __init__(self):
            super().__init__()
            self.at = []

        def send(self, message):
            self.at.append(time.time())
            super().send(message)

    monkeypatch.setattr(candidate, "_Ahead", SlowAhead)  # forked children inherit it
    host = TimedHost()
    [(reply, _)] = _run(tmp_path, monkeypatch, COMPILES, host)
    assert reply.get("verdict") is None, reply
    assert host.sent == ["gpu_idle", "gpu_wanted", "ready_to_time"]
    marks = {int(path.name): float(path.read_text()) for path in readied.iterdir()}
    assert len(marks) == 2  # the child that ran, and the next one, forked as it started
    next_readied = max(marks.values())
    assert host.at[0] >= next_readied, (host.at[0], next_readied)
