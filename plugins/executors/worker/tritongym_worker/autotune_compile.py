"""Compiles the configs of an autotuned kernel at once, on a pool of threads, before Triton's autotuner
benchmarks them one after the other (docs/worker-protocol.md, "Turns on the GPU").

Triton's autotuner compiles each config when it first benchmarks it: six configs are six compiles in a row,
each mostly CPU work (code generation, LLVM, ptxas in a subprocess). Here, when the autotuner is about to
benchmark a new key, every config it will benchmark is compiled first through Triton's own asynchronous
compile (`triton.runtime._async_compile.AsyncCompileMode`), on as many threads as there are configs and cores.
The kernels are the same ones Triton would compile (the same specialisation, options and cache key); the
autotuner then finds them compiled, and benchmarks and chooses exactly as it would have. On a GPU shared with
other evaluations the batch is one turn: once every compile is submitted, the main thread hands the GPU back
while it waits for them (GpuTurns.hand_back_while_waiting).

Left to Triton as it is: the interpreter (nothing compiles), a nested or already active asynchronous compile,
configs that would come from the autotuner's disk cache, and anything that fails here (a config that does
not compile is compiled again by the autotuner, which reports it as it always does)."""
from __future__ import annotations

import functools
import os
import threading
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from typing import Any

THREAD_PREFIX = "tritongym-autotune-compile"
MAX_THREADS = 8


class AutotuneCompiles:
    """Counts what it compiled ahead: kernels (compiles run on the pool) and batches (new autotune keys that
    needed at least one)."""

    def __init__(self) -> None:
        self.kernels = 0
        self.batches = 0
        self._installed = False

    def install(self, turns: Any | None = None, threads: int | None = None) -> bool:
        """Wraps triton.runtime.autotuner.Autotuner.prune_configs, which the autotuner calls exactly when a
        new key is to be benchmarked, with the launch's arguments in `self.nargs`. Before the candidate is
        imported and before the integrity snapshot. False where it does not apply (the interpreter)."""
        if self._installed:
            return True
        if os.environ.get("TRITON_INTERPRET") == "1":
            return False
        from triton.runtime.autotuner import Autotuner

        original = Autotuner.prune_configs
        compiles = self

        @functools.wraps(original)
        def prune_configs(autotuner: Any, kwargs: dict) -> list:
            configs = original(autotuner, kwargs)
            # A launch (it has a grid), from the main thread, with more than one config to benchmark.
            if ("grid" in kwargs and len(configs) > 1 and not getattr(autotuner, "cache_results", False)
                    and threading.current_thread() is threading.main_thread()):
                compiles.compile_ahead(autotuner.fn, tuple((autotuner.nargs or {}).values()), kwargs, configs,
                                       turns, threads)
            return configs

        Autotuner.prune_configs = prune_configs
        self._installed = True
        return True

    def compile_ahead(self, fn: Any, args: tuple, kwargs: dict, configs: list, turns: Any | None = None,
                      threads: int | None = None) -> int:
        """Compiles `fn` for each config on a pool of threads and waits for them; the number of compiles (a
        config already compiled in this process is not one)."""
        try:
            from triton.runtime._async_compile import AsyncCompileMode, active_mode
        except ImportError:  # a Triton without asynchronous compiles
            return 0
        if active_mode.get() is not None:
            return 0
        workers = threads or min(len(configs), MAX_THREADS, len(os.sched_getaffinity(0)))
        compiled, handed = 0, False
        pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix=THREAD_PREFIX)
        try:
            with AsyncCompileMode(pool, ignore_errors=True) as mode:
                for config in configs:
                    try:
                        fn.run(*args, **{**kwargs, **config.all_kwargs(), "warmup": True})
                    except Exception:  # noqa: BLE001  (the autotuner meets it again, and says it)
                        continue
                compiled = len(mode.raw_futures)
                # Submitted: from here the main thread only waits, and the batch is one turn off the GPU.
                handed = bool(compiled) and turns is not None and turns.hand_back_while_waiting()
                futures.wait(mode.raw_futures)
        except Exception:  # noqa: BLE001  (whatever failed is compiled again by the autotuner)
            pass
        finally:
            pool.shutdown(wait=True)  # no thread outlives the batch: the timing counts the threads alive
            if handed:
                turns.take_back()
        self.kernels += compiled
        self.batches += 1 if compiled else 0
        return compiled
