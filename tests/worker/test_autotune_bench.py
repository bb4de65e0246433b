"""autotune_bench.py: in a timed run, Triton's autotuner benchmarks a new key with the GPU to the child alone
(one b"a" before the first config, one b"t" when the launch returns), on the executor's budget unless the
kernel chose its own benchmark. Triton's real Autotuner, around a stand-in for the @triton.jit function
(the CPU has no GPU to launch on). test_gpu_turns.py runs one through a real fork server and child."""
import os
import socket

import pytest
import triton
import triton.testing
from triton.runtime.autotuner import Autotuner

from tritongym_worker.autotune_bench import AutotuneBench
from tritongym_worker.gpu_turns import GpuTurns


class StandIn:
    """What the Autotuner wraps: `fn` for its name and arguments, `run` for a launch (records the BLOCK)."""

    def __init__(self):
        self.fn = lambda x_ptr, n: None
        self.fn.__name__ = "_scale"
        self.launches = []

    def run(self, *args, grid, warmup, BLOCK, **kwargs):
        if not warmup:
            self.launches.append(BLOCK)


def _tuner(fn, blocks=(32, 64, 128), **options):
    configs = [triton.Config({"BLOCK": block}, num_warps=4) for block in blocks]
    return Autotuner(fn, ["x_ptr", "n"], configs, key=["n"], reset_to_zero=None, restore_value=None, **options)


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.setattr(Autotuner, "_bench", Autotuner._bench)  # both wrappers are undone after the test
    monkeypatch.setattr(Autotuner, "run", Autotuner.run)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    return AutotuneBench()


@pytest.fixture
def timed_with(monkeypatch):
    """triton.testing.do_bench replaced by one that launches once and says BLOCK 64 is fastest; returns the
    budgets it was called with."""
    calls = []

    def do_bench(kernel_call, warmup=25, rep=100, quantiles=None, **_):
        calls.append((warmup, rep))
        kernel_call()
        return [1.0, 1.0, 1.0]

    monkeypatch.setattr(triton.testing, "do_bench", do_bench)
    return calls


def test_configs_are_timed_with_tritons_do_bench_on_the_executors_budget(bench, timed_with):
    bench.install()
    bench.configure({"warmup_ms": 2, "rep_ms": 10})
    fn = StandIn()
    tuner = _tuner(fn)
    tuner.run(None, 1000, grid=(1,), warmup=False)
    assert timed_with == [(2.0, 10.0)] * 3
    assert bench.configs_on_budget == 3
    assert fn.launches[:3] == [32, 64, 128] and len(fn.launches) == 4  # each config, then the chosen one
    # What each config measured, for the key it tuned: a choice can be told from a near tie.
    assert bench.timings == {"_scale": {"1000": {str(config): 1000.0 for config in tuner.configs}}}
    tuner.run(None, 1000, grid=(1,), warmup=False)  # a key already tuned benchmarks nothing
    assert len(timed_with) == 3 and bench.configs_on_budget == 3


def test_a_kernel_that_chose_its_own_benchmark_keeps_it(bench, timed_with):
    bench.install()
    bench.configure({"warmup_ms": 2, "rep_ms": 10})
    own = []
    tuner = _tuner(StandIn(), do_bench=lambda kernel_call, quantiles: (own.append(1), kernel_call(), [1.0] * 3)[2])
    tuner.run(None, 1000, grid=(1,), warmup=False)
    assert len(own) == 3 and timed_with == [] and bench.configs_on_budget == 0


def test_without_a_budget_the_autotuner_keeps_its_own(bench, timed_with, monkeypatch):
    import types

    from triton.runtime import driver

    # The CPU has no active driver: one whose benchmarker is Triton's do_bench, as the CUDA driver's is.
    monkeypatch.setattr(driver, "_active",
                        types.SimpleNamespace(get_benchmarker=lambda: triton.testing.do_bench))
    bench.install()
    bench.configure({"rep_ms": 0})
    tuner = _tuner(StandIn())
    tuner.run(None, 1000, grid=(1,), warmup=False)
    assert timed_with == [(25, 100)] * 3  # Triton's defaults, through the autotuner's own benchmark
    assert bench.configs_on_budget == 0


class _TimedTurns:
    """A timed request's turns on the GPU over a real turn socket, the host's answers to "alone" asks sent ahead;
    `said()`: every byte the child wrote."""

    def __init__(self, answers):
        self.host, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        for answer in answers:
            self.host.send(bytes([answer]))
        self.turns = GpuTurns()
        self.turns.attach(child.detach())
        self.turns._gating = True  # as in a timed request (attach() gates only with the compile gate installed)

    def said(self):
        said = b""
        while True:
            try:
                said += self.host.recv(16, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return said

    def close(self):
        self.host.close()
        if self.turns._ready >= 0:
            os.close(self.turns._ready)


@pytest.fixture
def alone(bench):
    """`bench` installed with turns, on the executor's budget, asking for the GPU alone: a function of the host's
    answers that returns the turns."""
    made = []

    def make(answers):
        made.append(_TimedTurns(answers))
        bench.install(made[-1].turns)
        bench.configure({"rep_ms": 10, "alone": True})
        return made[-1]

    yield make
    for turns in made:
        turns.close()


def test_each_new_key_is_benchmarked_with_the_gpu_alone_and_given_back_after(bench, alone, timed_with):
    turns = alone(b"gg")  # the host's answers to two "alone" asks
    tuner = _tuner(StandIn())
    tuner.run(None, 1000, grid=(1,), warmup=False)
    tuner.run(None, 1000, grid=(1,), warmup=False)  # tuned: no turn
    tuner.run(None, 2000, grid=(1,), warmup=False)
    assert turns.said() == b"atat"
    assert bench.keys_alone == 2


def test_a_host_that_says_no_leaves_the_child_on_its_share(bench, alone, timed_with):
    turns = alone(b"s")
    _tuner(StandIn()).run(None, 1000, grid=(1,), warmup=False)
    assert turns.said() == b"a"  # asked, refused, and so nothing to give back
    assert bench.keys_alone == 0 and len(timed_with) == 3


def test_a_benchmark_that_raises_still_gives_the_gpu_back(bench, alone, monkeypatch):
    def broken(kernel_call, warmup=25, rep=100, quantiles=None, **_):
        raise RuntimeError("the benchmark broke")

    monkeypatch.setattr(triton.testing, "do_bench", broken)
    turns = alone(b"g")
    with pytest.raises(RuntimeError, match="the benchmark broke"):
        _tuner(StandIn()).run(None, 1000, grid=(1,), warmup=False)
    assert turns.said() == b"at"
