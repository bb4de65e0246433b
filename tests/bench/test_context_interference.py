"""bench/context_interference.py's report on blocks whose figures are known (the measuring needs a GPU)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

import context_interference as bench  # noqa: E402


def block(number: int, median: float, maximum: float, contexts: int) -> dict:
    return {"block": number, "disturbed": number % 2 == 1, "calls": 100, "contexts": contexts,
            "median_us": median, "mean_us": median + 1.0, "p99_us": median + 2.0, "max_us": maximum}


def test_the_disturbed_blocks_are_held_against_the_quiet_ones_of_the_same_run():
    measured = {"device": "a GPU", "elements": 1024, "block_seconds": 1.0,
                "blocks": [block(0, 50.0, 60.0, 0), block(1, 51.0, 120.0, 30),
                           block(2, 51.0, 61.0, 0), block(3, 52.0, 130.0, 32)]}
    text = bench.report(measured)
    assert "| 1 (disturbed) | 30 | 100 | 51.00 | 52.00 | 53.00 | 120.00 |" in text
    assert "| 2 | 0 | 100 | 51.00 |" in text
    # Medians over blocks: disturbed 51.5 against quiet 50.5; max 125 against 60.5.
    assert f"median x{51.5 / 50.5:.4f}" in text
    assert f"max x{125.0 / 60.5:.4f}" in text
    assert "the quiet blocks' medians spread 1.98% among themselves" in text
    assert "62 contexts created in the disturbed blocks, 0 in the quiet ones" in text

