"""The result of one evaluation, as `tritongym eval --json` and `tritongym serve` write it (docs/serve.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

# Verdicts of docs/tool-contract.md. Only "passed" is a pass; "not_judged" and "harness_error" say nothing of the
# candidate (the executor could not run what it uses, or the harness failed).
VERDICTS = ("passed", "compile_error", "runtime_error", "timeout", "crash", "oom", "wrong_answer", "flagged",
            "harness_error", "not_judged")


@dataclass(frozen=True)
class Timing:
    """How fast one shape ran (a timing executor, in the benchmark, profile and final stages). Microseconds."""

    median_us: float
    eager_us: Optional[float] = None
    compile_us: Optional[float] = None
    oracle_us: Optional[float] = None
    speed_of_light_us: Optional[float] = None
    spread_pct: float = 0.0
    repetitions: int = 0


@dataclass(frozen=True)
class ShapeResult:
    shape: str
    passed: bool
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    first_mismatch: str = ""
    timing: Optional[Timing] = None


@dataclass(frozen=True)
class Evaluation:
    """One judged candidate. `endpoint` is the address this client sent it to; `raw` is the whole JSON the server
    sent (its own "endpoint" is the address it advertises)."""

    verdict: str
    message: str
    shapes: List[ShapeResult]
    flags: List[str]
    warnings: List[str]
    stdout: str
    stderr: str
    wall_seconds: float
    gpu_seconds: float
    executor: str
    id: str
    endpoint: str
    record: Dict[str, Any] = field(default_factory=dict)
    raw: Dict[str, Any] = field(default_factory=dict)
    # What was asked again before this answer ("127.0.0.1:8001: HTTP 429: ..."), the last 20; empty when the
    # first try was judged.
    retried: List[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    def speedup(self, baseline: str = "eager") -> Optional[float]:
        """Geometric mean over the timed shapes of baseline latency / candidate latency; None when no shape has
        both ("eager": PyTorch, the reference; "compile": torch.compile; "oracle": the task's own kernel).
        As docs/metrics.md computes a run's speedups."""
        ratios = []
        for shape in self.shapes:
            if shape.timing is None:
                continue
            base = getattr(shape.timing, f"{baseline}_us")
            if base and base > 0 and shape.timing.median_us > 0:
                ratios.append(base / shape.timing.median_us)
        if not ratios:
            return None
        return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def _timing(data: Optional[Mapping[str, Any]]) -> Optional[Timing]:
    if not data:
        return None
    return Timing(median_us=float(data.get("median_us") or 0.0), eager_us=data.get("eager_us"),
                  compile_us=data.get("compile_us"), oracle_us=data.get("oracle_us"),
                  speed_of_light_us=data.get("speed_of_light_us"), spread_pct=float(data.get("spread_pct") or 0.0),
                  repetitions=int(data.get("repetitions") or 0))


def evaluation_from_json(data: Mapping[str, Any]) -> Evaluation:
    """An Evaluation from the server's result JSON; ValueError when it has no known verdict."""
    verdict = data.get("verdict")
    if verdict not in VERDICTS:
        raise ValueError(f"the result's verdict {verdict!r} is none of {', '.join(VERDICTS)}")
    shapes = [ShapeResult(shape=str(s.get("shape", "")), passed=bool(s.get("passed")),
                          max_abs_error=float(s.get("max_abs_error") or 0.0),
                          max_rel_error=float(s.get("max_rel_error") or 0.0),
                          first_mismatch=str(s.get("first_mismatch") or ""), timing=_timing(s.get("timing")))
              for s in data.get("shapes") or []]
    record = data.get("record")
    return Evaluation(verdict=verdict, message=str(data.get("message") or ""), shapes=shapes,
                      flags=list(data.get("flags") or []), warnings=list(data.get("warnings") or []),
                      stdout=str(data.get("stdout") or ""), stderr=str(data.get("stderr") or ""),
                      wall_seconds=float(data.get("wall_seconds") or 0.0),
                      gpu_seconds=float(data.get("gpu_seconds") or 0.0), executor=str(data.get("executor") or ""),
                      id=str(data.get("id") or ""), endpoint=str(data.get("endpoint") or ""),
                      record=record if isinstance(record, dict) else {}, raw=dict(data))
