"""bench/sweep_ahead.py against the real CLI on the interpreter: both settings run, alternating, and the report
lays out each run's tasks and the ratio of the medians."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))


@pytest.mark.skipif(not os.environ.get("TRITONGYM_CLI"), reason="TRITONGYM_CLI (the built tritongym) is not set")
def test_the_sweep_runs_with_and_without_cases_made_ahead_and_reports_both(tmp_path, monkeypatch, capsys):
    import sweep_ahead

    out = tmp_path / "sweep.md"
    monkeypatch.setattr(sys, "argv", ["sweep_ahead.py", "standard/row-sum", "standard/cumsum", "--rounds", "1",
                                      "--tritongym", os.environ["TRITONGYM_CLI"],
                                      "--executor", "tritongym.executor.triton-interpreter", "--out", str(out)])
    assert sweep_ahead.main() == 0
    report = out.read_text()
    assert "| 1 | default |" in report and "| 2 | 0 (off) |" in report
    assert "every task ok in every run: True" in report
    assert "off / on " in report
    assert "(failed)" not in report and "(missing)" not in report
