"""bench/timing_fidelity.py: the goals it counts from a kernel's figures, and its table. The figures themselves
need a GPU (the device check runs the bench)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

# vector-add's figures as the H200 read them on 2026-11-30 (bench/results/timing-fidelity-2026-11-30.md), and what do_bench's calls took by
# CUPTI as the test supposes them.
VECTOR_ADD = {"kernel": "standard/vector-add", "shape": {"N": 16777216}, "cupti_us": 43.74, "spread_pct": 0.44,
              "ncu_us": 45.06, "do_bench_us": 52.51, "do_bench_cupti_us": 47.9, "do_bench_cold_us": 47.10,
              "do_bench_cold_cupti_us": 44.2, "warm_us": 47.97}


def test_do_bench_on_a_cold_cache_is_held_against_its_calls_by_cupti_not_against_its_events():
    import timing_fidelity

    verdict = timing_fidelity.judge(VECTOR_ADD)
    assert verdict == {"spread": True, "ncu": True, "do_bench_cold": True, "do_bench_cold_events": False,
                       "do_bench_events": False}
    # 7.1% under do_bench's cold events passes: the same calls by CUPTI decide; 4.6% under them passes, 5.3% fails.
    assert timing_fidelity.judge({**VECTOR_ADD, "do_bench_cold_cupti_us": 45.85})["do_bench_cold"]
    assert not timing_fidelity.judge({**VECTOR_ADD, "do_bench_cold_cupti_us": 46.2})["do_bench_cold"]


def test_a_kernel_without_an_ncu_figure_fails_that_goal_and_a_short_one_passes_any_spread():
    import timing_fidelity

    short = {**VECTOR_ADD, "cupti_us": 12.0, "spread_pct": 6.0, "ncu_us": None}
    verdict = timing_fidelity.judge(short)
    assert verdict["spread"] and not verdict["ncu"]
    assert not timing_fidelity.judge({**VECTOR_ADD, "spread_pct": 2.5})["spread"]


def test_the_table_gives_each_clock_and_counts_every_goal():
    import timing_fidelity

    slow_ncu = {**VECTOR_ADD, "kernel": "standard/softmax", "ncu_us": 40.0}
    text = timing_fidelity.table([VECTOR_ADD, slow_ncu], variants=True)
    lines = text.splitlines()
    assert len(lines[0].split("|")) == len(lines[1].split("|")) == len(lines[2].split("|"))
    assert ("| standard/vector-add | {'N': 16777216} | 43.74 | 0.44% | 45.06 | -2.9% | 47.10 | 44.20 | -1.0% | "
            "-7.1% | 52.51 | 47.90 | -16.7% | 47.97 |") in text
    assert lines[-1] == ("spread <= 2% (kernels >= 20 us): 2/2; within 5% of ncu: 1/2; within 5% of do_bench on a "
                         "cold cache, by CUPTI: 2/2; within 5% of do_bench's events: cold cache 0/2, as shipped 0/2")
    assert "warm L2" not in timing_fidelity.table([VECTOR_ADD], variants=False)
