"""Compiles Gluon kernels for an H100/H200 (sm_90) on a machine with no GPU: a stand-in driver names the target,
and every launch (`kernel[grid](...)`) compiles through ptxas to a cubin instead of running. The entry function
runs on CPU tensors, which is enough for the compiler: it specializes on dtypes, divisibility by 16 and constexpr
values, never on the data. A kernel that compiles here can still fail on the GPU (wrong results, a hang, a launch
refused); one that fails here fails there too.

Used by scripts/compile-gluon.py (a report over the Gluon tasks) and by the worker tests that hold every Gluon
oracle and guide example to it (tests/worker/test_gluon_sm90_compile.py, test_gluon_guide_compiles.py)."""
from __future__ import annotations

import contextlib
import functools
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Iterator

import torch
import triton
from triton.backends.compiler import GPUTarget
from triton.backends.driver import DriverBase
from triton.runtime import autotuner as triton_autotuner
from triton.runtime import jit as triton_jit
from triton.runtime.driver import driver

SM90 = GPUTarget("cuda", 90, 32)
SM90_SHARED_BYTES = 232448  # the most one program may use on an H100/H200 (227 KiB)
SM90_MULTIPROCESSORS = 132


# What a kernel's PTX shows of the sm_90 features (a report, not a check): name -> a text only that feature emits.
FEATURES = {"wgmma": "wgmma.mma_async", "tma": "cp.async.bulk.tensor", "mbarrier": "mbarrier.",
            "cp.async": "cp.async.c", "setmaxnreg": "setmaxnreg"}


@dataclass
class CompiledKernel:
    name: str
    shared_bytes: int = 0
    num_warps: int = 0
    registers: int = 0  # per thread, from the cubin
    local_bytes: int = 0  # per thread: the stack frame (spills, warp-specialized partitions' call frames), local arrays
    spill_bytes: int = 0  # per thread: ptxas's spill stores (0 without reading ptxas when local_bytes is 0)
    frontend: str = ""  # "gluon" or "triton"
    config: str = ""  # the autotuner config it was compiled for, "" for a plain launch
    features: list[str] = field(default_factory=list)  # FEATURES its PTX shows
    error: str = ""  # why it did not compile (keep_going only); the other fields are then empty

    def __str__(self) -> str:
        where = f"{self.name}{' [' + self.config + ']' if self.config else ''}"
        if self.error:
            return f"{where}: FAILED: {self.error}"
        return (f"{where}: {self.num_warps} warps, {self.registers} registers, {self.local_bytes} B local "
                f"({self.spill_bytes} B spilled), {self.shared_bytes} B shared")


class _CompileOnlyDriver(DriverBase):
    """Answers what the JIT asks before it compiles; a launch never reaches it."""

    @classmethod
    def is_active(cls):
        return False

    def map_python_to_cpp_type(self, ty):
        raise NotImplementedError("compile-only driver")

    def get_current_target(self):
        return SM90

    def get_active_torch_device(self):
        return torch.device("cpu")

    def get_benchmarker(self):
        raise NotImplementedError("compile-only driver: nothing runs")

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0


class _Properties:
    multi_processor_count = SM90_MULTIPROCESSORS
    name = "compile-only sm_90"


@functools.lru_cache(maxsize=512)  # a kernel compiled once is launched at several shapes: ask cuobjdump once
def _resources(name: str, cubin: bytes) -> tuple[int, int]:
    cuobjdump = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    with tempfile.NamedTemporaryFile(suffix=".cubin") as handle:
        handle.write(cubin)
        handle.flush()
        usage = subprocess.run([cuobjdump, "-res-usage", handle.name], capture_output=True, text=True, check=True).stdout
    found = re.search(r"Function " + re.escape(name) + r":\s*\n\s*REG:(\d+) STACK:(\d+) SHARED:\d+ LOCAL:(\d+)", usage)
    if not found:
        raise RuntimeError(f"cuobjdump shows no resource usage for {name}:\n{usage}")
    # ptxas puts spilled registers in the stack frame (STACK); LOCAL counts other local arrays: both are local memory.
    return int(found.group(1)), int(found.group(2)) + int(found.group(3))


@functools.lru_cache(maxsize=512)  # ptxas again for every launch of one kernel took seconds each
def _spill_stores(ptx: str) -> int:
    """ptxas's own count of spill stores (bytes per thread) for a kernel with a stack frame, which may hold call
    frames (warp-specialized partitions are called functions) rather than spills."""
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
    with tempfile.TemporaryDirectory() as folder:
        source = os.path.join(folder, "kernel.ptx")
        with open(source, "w") as handle:
            handle.write(ptx)
        arch = re.search(r"^\.target\s+(sm_\w+)", ptx, re.MULTILINE)
        report = subprocess.run([ptxas, "-v", f"-arch={arch.group(1) if arch else 'sm_90a'}", source, "-o",
                                 os.path.join(folder, "kernel.cubin")], capture_output=True, text=True, check=True)
    spills = [int(n) for n in re.findall(r"(\d+) bytes spill stores", report.stderr + report.stdout)]
    if not spills:
        raise RuntimeError(f"ptxas -v said nothing of spills:\n{report.stderr}")
    return max(spills)


@contextlib.contextmanager
def compile_only_sm90(keep_going: bool = False) -> Iterator[list[CompiledKernel]]:
    """Within the block, every Triton or Gluon launch compiles for sm_90 and returns without running; the list
    yielded receives one CompiledKernel per launch (per config of an autotuned kernel).
    torch.cuda.get_device_properties answers for an H100 (132 SMs), so entry functions that size a persistent grid
    run too. `keep_going`: an autotuner config that does not compile is recorded (its `error`) and skipped, as the
    autotuner skips one that runs out of resources; otherwise, and for a plain launch always, the error is raised."""
    compiled: list[CompiledKernel] = []
    original_run = triton_jit.JITFunction.run
    original_properties = torch.cuda.get_device_properties
    config_now = [""]  # the autotuner config being compiled

    def run(self, *args, grid, warmup, **kwargs):
        kernel = original_run(self, *args, grid=grid, warmup=True, **kwargs)
        name = kernel.metadata.name
        registers, local_bytes = _resources(name, kernel.asm["cubin"])
        spill_bytes = _spill_stores(kernel.asm["ptx"]) if local_bytes else 0
        ptx = kernel.asm.get("ptx", "")
        compiled.append(CompiledKernel(name, kernel.metadata.shared, kernel.metadata.num_warps, registers, local_bytes,
                                       spill_bytes, "gluon" if self.is_gluon() else "triton", config_now[0],
                                       [feature for feature, text in FEATURES.items() if text in ptx]))
        return kernel

    def bench(self, *args, config, **meta):  # every config of an autotuned kernel is compiled, none is timed
        current = dict(meta, **config.all_kwargs())
        if config.pre_hook:  # as the autotuner's own benchmark: a config may set descriptor block shapes
            config.pre_hook({**self.nargs, **current})
        config_now[0] = str(config)
        try:
            self.fn.run(*args, **current)
        except Exception as error:
            if not keep_going:
                raise
            compiled.append(CompiledKernel(self.fn.fn.__name__, config=str(config), error=_innermost(error)))
            return [float("inf")] * 3
        finally:
            config_now[0] = ""
        return [0.0, 0.0, 0.0]

    original_bench = triton_autotuner.Autotuner._bench
    triton_autotuner.Autotuner._bench = bench
    triton_jit.JITFunction.run = run
    torch.cuda.get_device_properties = lambda *args, **kwargs: _Properties()
    driver.set_active(_CompileOnlyDriver())
    try:
        yield compiled
    finally:
        triton_jit.JITFunction.run = original_run
        torch.cuda.get_device_properties = original_properties
        triton_autotuner.Autotuner._bench = original_bench
        driver._active = None  # reset_active() would make the default driver, which needs a GPU


def compile_entry(entry: Callable, args: list) -> list[CompiledKernel]:
    """Calls `entry(*args)` with launches compiled for sm_90 and returns the kernels it launched."""
    with compile_only_sm90() as compiled:
        entry(*args)
    return compiled


def _innermost(error: BaseException, lines: int = 14) -> str:
    """The compiler's innermost error (where and why), its first lines joined."""
    while error.__cause__ is not None:
        error = error.__cause__
    return f"{type(error).__name__}: " + " | ".join(str(error).strip().splitlines()[:lines])
