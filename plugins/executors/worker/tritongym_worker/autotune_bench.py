"""How Triton's autotuner benchmarks a candidate's configs in a timed run (docs/timing.md, "Autotuning"):
with the GPU to the child alone, and on a budget the executor sets.

Triton's autotuner times every config of a new key with `triton.testing.do_bench` (25 ms of warm-up and
100 ms of repetitions per config unless the kernel says otherwise). On a GPU that other evaluations share,
those timings include their work and the choice can go to a config that only looked fast; and 100 ms for
each of a dozen configs, per key, is most of what an autotuned candidate costs to judge.

Here, in a timed run, the first benchmark of a new key asks the host for the GPU alone (GpuTurns.
alone_for_tuning: other evaluations' checks are held, as for a timing) and the child gives it back when that
autotuner's launch returns. Where the kernel left the benchmark to Triton (no `do_bench`, `warmup` or `rep`
of its own), its configs are timed with Triton's own `do_bench` on `warmup_ms` and `rep_ms`; a kernel that
chose its own benchmark keeps it. The autotuner still picks the config it measured fastest, and every config
Triton would benchmark is benchmarked.

Only the main thread's autotuners take the GPU alone; nothing is changed on the interpreter."""
from __future__ import annotations

import functools
import math
import os
import threading
from typing import Any


class AutotuneBench:
    """Counts what it did: keys benchmarked with the GPU alone, and configs timed on the executor's budget."""

    def __init__(self) -> None:
        self.warmup_ms = 0.0  # 0: the autotuner's own (Triton: 25 ms)
        self.rep_ms = 0.0     # 0: the autotuner's own (Triton: 100 ms)
        self.alone = False    # take the GPU alone while a new key is benchmarked (a timed run's turns)
        self.keys_alone = 0
        self.configs_on_budget = 0
        # What each new key's benchmarks measured: {kernel: {key: {config: median µs}}}, so that a choice that
        # differs from another run's can be told from a near tie (bench/eval_throughput.py).
        self.timings: dict[str, dict[str, dict[str, float]]] = {}
        self._turns: Any = None
        self._holding = False  # the GPU is this child's alone for an autotuner's benchmarks now
        self._asked = False    # asked for it during this launch (once: a host that said no is not asked again)
        self._tuned_before: set | None = None  # the autotuner's keys before this launch benchmarked; None: it has not
        self._installed = False

    def configure(self, request: dict[str, Any] | None) -> None:
        """The run request's `autotune` {warmup_ms, rep_ms, alone}, set before the candidate is imported."""
        wanted = request or {}
        self.warmup_ms = max(0.0, float(wanted.get("warmup_ms", 0.0)))
        self.rep_ms = max(0.0, float(wanted.get("rep_ms", 0.0)))
        self.alone = bool(wanted.get("alone", False))

    def install(self, turns: Any | None = None) -> bool:
        """Wraps Autotuner._bench (one config's benchmark) and Autotuner.run (a launch, which benchmarks a new
        key first). Before the candidate is imported and before the integrity snapshot. False where it does
        not apply (the interpreter)."""
        if self._installed:
            return True
        if os.environ.get("TRITON_INTERPRET") == "1":
            return False
        from triton.runtime.autotuner import Autotuner

        original_bench, original_run = Autotuner._bench, Autotuner.run
        bench = self

        @functools.wraps(original_bench)
        def _bench(autotuner: Any, *args: Any, **kwargs: Any) -> Any:
            if threading.current_thread() is threading.main_thread():
                if bench._tuned_before is None:  # the launch's first benchmark: its new key is not cached yet
                    bench._tuned_before = set(getattr(autotuner, "cache", None) or ())
                bench._take_alone()
                bench._set_budget(autotuner)
            return original_bench(autotuner, *args, **kwargs)

        @functools.wraps(original_run)
        def run(autotuner: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return original_run(autotuner, *args, **kwargs)
            finally:  # a launch that benchmarked nothing (every timed call) does nothing more here
                if bench._tuned_before is not None and threading.current_thread() is threading.main_thread():
                    bench._give_back()
                    bench._record(autotuner, bench._tuned_before)
                    bench._tuned_before = None

        Autotuner._bench = _bench
        Autotuner.run = run
        self._turns = turns
        self._installed = True
        return True

    def _take_alone(self) -> None:
        if self._asked or not self.alone or self._turns is None:
            return
        self._asked = True
        if self._turns.alone_for_tuning():
            self._holding = True
            self.keys_alone += 1

    def _give_back(self) -> None:
        self._asked = False
        if self._holding:
            self._holding = False
            self._turns.tuning_done()

    def _record(self, autotuner: Any, tuned_before: set) -> None:
        """The timings behind the key this launch tuned, if it tuned one (Autotuner.configs_timings holds the
        last key's: {config: [median, 20th, 80th percentile] ms}, or a number). A config the autotuner could
        not run (Triton times one that does not fit the GPU, or does not compile, as inf) is recorded as null."""
        try:
            new = [key for key in (getattr(autotuner, "cache", None) or {}) if key not in tuned_before]
            timings = getattr(autotuner, "configs_timings", None)
            if len(new) != 1 or not isinstance(timings, dict):
                return
            from .diagnostics import key_text

            name = getattr(getattr(autotuner, "base_fn", None), "__name__", "?")
            self.timings.setdefault(name, {})[key_text(new[0])] = {
                str(config): _microseconds(measured[0] if isinstance(measured, (list, tuple)) else measured)
                for config, measured in timings.items()}
        except Exception:  # noqa: BLE001  (a report only: whatever the candidate's autotuner holds)
            pass

    def _set_budget(self, autotuner: Any) -> None:
        """Triton's do_bench on the executor's budget, for an autotuner whose kernel chose no benchmark of its
        own (`do_bench` is a cached property of the instance: set before its first use, it is used instead)."""
        if not self.rep_ms or getattr(autotuner, "_do_bench", None) is not None:
            return
        if "do_bench" not in vars(autotuner):
            warmup_ms, rep_ms = self.warmup_ms or 25.0, self.rep_ms

            def do_bench(kernel_call: Any, quantiles: Any = None) -> Any:
                import triton.testing

                return triton.testing.do_bench(kernel_call, warmup=warmup_ms, rep=rep_ms, quantiles=quantiles)

            do_bench.tritongym_budget = (warmup_ms, rep_ms)  # type: ignore[attr-defined]
            vars(autotuner)["do_bench"] = do_bench
        if getattr(vars(autotuner).get("do_bench"), "tritongym_budget", None) is not None:
            self.configs_on_budget += 1


def _microseconds(milliseconds: Any) -> float | None:
    """A config's median in µs, None for one the autotuner could not run (inf)."""
    value = 1000.0 * float(milliseconds)
    return round(value, 3) if math.isfinite(value) else None
