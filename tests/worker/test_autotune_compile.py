"""autotune_compile.py: an autotuned kernel's configs are compiled at once on a pool of threads, before Triton's
own Autotuner benchmarks them, and the autotuner then finds them compiled. On the CPU the stand-in for a
@triton.jit function submits real Triton compiles (for an explicit CUDA target, which needs no GPU) the way
JITFunction.run does under an active asynchronous compile."""
import os
import socket
import threading

import pytest
import triton
import triton.compiler
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.runtime import _async_compile
from triton.runtime.autotuner import Autotuner

from tritongym_worker.autotune_compile import THREAD_PREFIX, AutotuneCompiles
from tritongym_worker.gpu_turns import GpuTurns


@triton.jit
def _scale(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 3, mask=offsets < n)


class StandIn:
    """Compiles `_scale` for the launch's BLOCK as JITFunction.run does: through the active asynchronous
    compile when there is one (submitted, kept on finalize), else at once; a launch without warmup records
    which kernel it found compiled."""

    def __init__(self):
        self.fn = _scale.fn  # the Python function, which the Autotuner looks for under .fn
        self.compiled = {}  # BLOCK -> kernel
        self.compile_threads = []
        self.launches = []  # (BLOCK, already compiled?)
        self.lock = threading.Lock()

    def _compile(self, block):
        with self.lock:
            self.compile_threads.append(threading.current_thread().name)
        source = triton.compiler.ASTSource(_scale, {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                                           {(2,): block})
        return triton.compiler.compile(source, target=GPUTarget("cuda", 80, 32))

    def run(self, *args, grid, warmup, BLOCK, **kwargs):
        if BLOCK not in self.compiled:
            mode = _async_compile.active_mode.get()
            if mode is not None:
                mode.submit(("scale", BLOCK), lambda: self._compile(BLOCK),
                            lambda kernel: self.compiled.__setitem__(BLOCK, kernel))
                return None
            was_compiled = False
            self.compiled[BLOCK] = self._compile(BLOCK)
        else:
            was_compiled = True
        if not warmup:
            self.launches.append((BLOCK, was_compiled))
        return self.compiled[BLOCK]


@pytest.fixture
def installed(monkeypatch):
    monkeypatch.setattr(Autotuner, "prune_configs", Autotuner.prune_configs)  # undone after the test
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    return AutotuneCompiles()


def _autotuner(fn, blocks):
    configs = [triton.Config({"BLOCK": block}, num_warps=4) for block in blocks]
    bench = lambda kernel_call, quantiles: (kernel_call(), [1.0, 1.0, 1.0])[1]  # noqa: E731
    return Autotuner(fn, ["x_ptr", "n"], configs, key=["n"], reset_to_zero=None, restore_value=None, do_bench=bench)


def test_a_new_key_compiles_every_config_on_the_pool_before_the_autotuner_benchmarks(installed, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    assert installed.install()
    fn = StandIn()
    tuner = _autotuner(fn, (32, 64, 128, 256))
    tuner.run(None, 1000, grid=(1,), warmup=False)
    assert sorted(fn.compiled) == [32, 64, 128, 256]
    # Every compile ran on the pool, none in the autotuner's own loop: each benchmark found its kernel compiled.
    assert len(fn.compile_threads) == 4 and all(name.startswith(THREAD_PREFIX) for name in fn.compile_threads)
    assert all(was_compiled for _, was_compiled in fn.launches)
    assert {block for block, _ in fn.launches} == {32, 64, 128, 256}
    assert (installed.kernels, installed.batches) == (4, 1)
    assert not [t for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX)]  # the pool is gone

    # A key already tuned benchmarks nothing; a new key whose configs are all compiled compiles nothing.
    tuner.run(None, 1000, grid=(1,), warmup=False)
    tuner.run(None, 2000, grid=(1,), warmup=False)
    assert (installed.kernels, installed.batches) == (4, 1)


def test_a_config_that_does_not_compile_is_left_to_the_autotuner(installed, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    installed.install()
    fn = StandIn()
    original = fn._compile

    def fails_at_64(block):
        if block == 64:
            raise RuntimeError("no")
        return original(block)

    fn._compile = fails_at_64
    tuner = _autotuner(fn, (32, 64))
    with pytest.raises(RuntimeError, match="no"):  # raised again by the autotuner's own compile of BLOCK=64
        tuner.run(None, 1000, grid=(1,), warmup=False)
    assert sorted(fn.compiled) == [32]


def test_outside_a_launch_or_under_the_interpreter_nothing_is_compiled_ahead(installed, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    installed.install()
    fn = StandIn()
    tuner = _autotuner(fn, (32, 64))
    tuner.nargs = {"x_ptr": None, "n": 10}
    tuner.prune_configs({})  # Autotuner.warmup's call: no grid
    assert installed.kernels == 0 and not fn.compiled
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert AutotuneCompiles().install() is False


def test_a_batch_hands_the_gpu_back_once_for_all_its_compiles(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(triton.compiler, "compile", triton.compiler.compile)  # the gate is undone after the test
    monkeypatch.setattr(Autotuner, "prune_configs", Autotuner.prune_configs)
    host, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # the turn socket
    host.send(b"g")  # the host's answer to "wants its share back"
    turns = GpuTurns()
    turns.install_compile_gate()
    turns.attach(child.detach())
    compiles = AutotuneCompiles()
    compiles.install(turns)
    fn = StandIn()
    fn._compile = lambda block: triton.compiler.compile(  # through the gate, as JITFunction's compiles go
        triton.compiler.ASTSource(_scale, {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {(2,): block}),
        target=GPUTarget("cuda", 80, 32))
    _autotuner(fn, (32, 64, 128)).run(None, 1000, grid=(1,), warmup=False)
    assert compiles.kernels == 3
    said = host.recv(16, socket.MSG_DONTWAIT) + host.recv(16, socket.MSG_DONTWAIT)
    assert said == b"iw"  # idle once, wanted once: one turn for three compiles
    with pytest.raises(BlockingIOError):
        host.recv(16, socket.MSG_DONTWAIT)
    assert turns.handed_back == 1
    host.close()
    os.close(turns._ready)


def test_the_config_chosen_per_key_is_reported(installed, tmp_path, monkeypatch):
    import types

    from tritongym_worker.diagnostics import autotune_choices

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    fn = StandIn()
    timings = {32: 3.0, 64: 1.0}  # the stand-in benchmark: BLOCK 64 is the faster
    configs = [triton.Config({"BLOCK": block}, num_warps=4) for block in (32, 64)]


    def bench(kernel_call, quantiles):
        kernel_call()  # launches the config being benchmarked: the stand-in records its BLOCK
        return [timings[fn.launches[-1][0]]] * 3

    tuner = Autotuner(fn, ["x_ptr", "n"], configs, key=["n"], reset_to_zero=None, restore_value=None, do_bench=bench)
    module = types.SimpleNamespace(kernel=tuner, other=42)
    assert autotune_choices(module) == {}  # nothing tuned yet
    tuner.run(None, 1000, grid=(1,), warmup=False)
    [(kernel, choices)] = autotune_choices(module).items()
    assert kernel == "_scale"
    assert list(choices) == ["1000"]
    assert choices["1000"].startswith("BLOCK: 64")

