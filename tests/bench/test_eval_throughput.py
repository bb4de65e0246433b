"""bench/eval_throughput.py: the autotuners' choices compared between passes, the cold path's Triton cache, the
pass through a ready pool (against the real CLI on the interpreter), and laying out a saved measurement again."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from eval_throughput import autotune_lines, sandbox_cost, worker_wait_said  # noqa: E402


def test_choices_are_compared_key_by_key_where_both_paths_tuned():
    warm = [{"task": "t/gelu", "autotune_choices": {"_gelu": {"1024, float32": "BLOCK: 1024", "64, float16": "BLOCK: 512"}}},
            {"task": "t/add"}]
    cold = [{"task": "t/gelu", "autotune_choices": {"_gelu": {"1024, float32": "BLOCK: 1024", "64, float16": "BLOCK: 256",
                                                             "8, float16": "BLOCK: 64"}}},
            {"task": "t/add"}]
    lines = autotune_lines(warm, cold)
    assert lines[0].endswith("the same config for 1 of 2 keys")  # "8, float16" was tuned on the cold path only
    assert lines[1:] == ["  t/gelu _gelu [64, float16]: warm BLOCK: 512; cold BLOCK: 256"]


def test_the_longest_wait_for_a_candidate_worker_is_said_when_there_was_one():
    # The executor is ready once its reference worker is; the first candidates may wait for their worker.
    waited = [{"phase_seconds": {"worker_wait": 0.42}}, {"phase_seconds": {"worker_wait": 0.0}}, {}]
    assert worker_wait_said(waited) == "; candidates then waited up to 0.42 s for a candidate worker to start"
    assert worker_wait_said([{"phase_seconds": {"worker_wait": 0.001}}, {}]) == ""
    assert worker_wait_said([]) == ""


def test_without_autotuned_candidates_nothing_is_said():
    assert autotune_lines([{"task": "t"}], [{"task": "t"}]) == []


def test_a_different_choice_says_what_the_warm_pool_measured_for_both():
    warm = [{"task": "t/gelu", "autotune_choices": {"_gelu": {"64, float16": "BLOCK: 512"}},
             "autotune_benchmarks": {"timings_us": {"_gelu": {"64, float16": {"BLOCK: 512": 20.0, "BLOCK: 256": 20.5}}}}}]
    cold = [{"task": "t/gelu", "autotune_choices": {"_gelu": {"64, float16": "BLOCK: 256"}}}]
    assert autotune_lines(warm, cold)[1] == (
        "  t/gelu _gelu [64, float16]: warm BLOCK: 512; cold BLOCK: 256 (the warm pool measured 20.0 us for its "
        "choice and 20.5 us for the cold path's, +2.5%)")


def test_the_cold_path_shares_one_triton_cache_per_pass_or_makes_one_per_process(monkeypatch):
    import subprocess
    import types

    import eval_throughput

    seen = []

    def run(argv, env, **_):  # the harness process: says which cache it was given, and that it exists
        seen.append((env["TRITON_CACHE_DIR"], os.path.isdir(env["TRITON_CACHE_DIR"])))
        return types.SimpleNamespace(stdout='{"verdict": "passed"}\n', stderr="", returncode=0)

    monkeypatch.setattr(subprocess, "run", run)
    chosen = [("t/a", "a.py"), ("t/b", "b.py"), ("t/c", "c.py")]
    _, results = eval_throughput.cold("tasks.json", chosen, "cpu", cache="pass")
    assert [r["verdict"] for r in results] == ["passed"] * 3
    assert len({folder for folder, _ in seen}) == 1 and all(exists for _, exists in seen)
    assert not os.path.exists(seen[0][0])  # removed after the pass
    seen.clear()
    eval_throughput.cold("tasks.json", chosen, "cpu", cache="candidate")
    assert len({folder for folder, _ in seen}) == 3 and all(exists for _, exists in seen)


def test_the_cold_path_is_compared_with_its_second_pass_under_its_own_labels():
    first = [{"task": "t/gelu", "autotune_choices": {"_gelu": {"64, float16": "BLOCK: 512", "8, float32": "BLOCK: 64"}}}]
    second = [{"task": "t/gelu", "autotune_choices": {"_gelu": {"64, float16": "BLOCK: 256", "8, float32": "BLOCK: 64"}}}]
    lines = autotune_lines(first, second, "the cold path against itself (a Triton cache per candidate)", "first", "second")
    assert lines == ["autotune choices, the cold path against itself (a Triton cache per candidate): the same config "
                     "for 1 of 2 keys", "  t/gelu _gelu [64, float16]: first BLOCK: 512; second BLOCK: 256"]


def test_a_saved_measurement_of_both_paths_is_laid_out_again(tmp_path, monkeypatch, capsys):
    import json

    import eval_throughput

    passed = {"verdict": "passed", "host_seconds": 0.5}
    saved = {"path": "both", "device": "cpu", "chosen": [["t/a", "a.py"], ["t/b", "b.py"]],
             "first_s": 8.0, "first": [passed, passed], "steady_s": 2.0, "steady": [passed, passed],
             "cold_cache": "pass", "cold_s": 10.0, "cold": [{"verdict": "passed", "seconds": 5.0}] * 2,
             "cold_also": {"cache": "candidate", "cold_s": 12.0, "cold": [{"verdict": "passed", "seconds": 6.0}] * 2}}
    path = tmp_path / "both.json"
    path.write_text(json.dumps(saved))
    monkeypatch.setattr(sys, "argv", ["eval_throughput.py", "--report", str(path), "--out", str(tmp_path / "t.md")])
    assert eval_throughput.main() == 0
    text = (tmp_path / "t.md").read_text()
    assert "speedup, steady state vs cold: 5.00x" in text
    assert "against the cold path with a Triton cache per candidate: 6.00x" in text
    one_path = tmp_path / "warm.json"
    one_path.write_text(json.dumps({**saved, "path": "warm"}))
    monkeypatch.setattr(sys, "argv", ["eval_throughput.py", "--report", str(one_path)])
    assert eval_throughput.main() == 2
    assert "holds one path (warm)" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    monkeypatch.setattr(sys, "argv", ["eval_throughput.py", "--report", str(broken)])
    assert eval_throughput.main() == 2
    assert "broken.json: not a saved measurement" in capsys.readouterr().err


@pytest.mark.skipif(not os.environ.get("TRITONGYM_CLI"), reason="TRITONGYM_CLI (the built tritongym) is not set")
def test_a_ready_pool_is_given_the_candidates_once_it_says_it_is_ready():
    import eval_throughput

    fixtures = os.path.join(eval_throughput.ROOT, "tests", "fixtures", "candidates", "vector-add")
    chosen = [("standard/vector-add", os.path.join(fixtures, "correct.py")),
              ("standard/vector-add", os.path.join(fixtures, "wrong.py"))]
    seconds, results = eval_throughput.ready_pool(os.environ["TRITONGYM_CLI"], chosen, "cpu", 0, idle_s=0.2)
    assert [r["verdict"] for r in results] == ["passed", "wrong_answer"], results
    assert results[0]["batch_start_seconds"] > 0
    assert 0 < seconds < 120
    lines = eval_throughput.ready_pool_lines({"ready_pool": {"idle_s": 0.2, "seconds": seconds,
                                                             "results": eval_throughput.aligned(chosen, results)}},
                                             results, cold_s=4 * seconds, n=2)
    assert lines[0].startswith("through a pool started before the candidates came (`eval --batch -`, ready after ")
    assert "4.00x the cold path; same verdicts as the steady state: 2 of 2" in lines[0]


@pytest.mark.skipif(not os.environ.get("TRITONGYM_CLI"), reason="TRITONGYM_CLI (the built tritongym) is not set")
def test_the_two_batch_orders_start_the_candidates_each_its_way_and_are_laid_out_side_by_side(tmp_path):
    import eval_throughput

    fixtures = os.path.join(eval_throughput.ROOT, "tests", "fixtures", "candidates", "vector-add")
    chosen = [("standard/vector-add", os.path.join(fixtures, "correct.py")),
              ("standard/vector-add", os.path.join(fixtures, "autotuned.py"))]
    batch = tmp_path / "batch.txt"
    batch.write_text("".join(f"{task} {path}\n" for task, path in chosen))
    pair = {}
    for key, in_order in (("in_order", True), ("autotuners_first", False)):
        seconds, results = eval_throughput.warm(os.environ["TRITONGYM_CLI"], str(batch), "cpu", 1, in_order=in_order)
        pair[f"{key}_s"], pair[key] = seconds, eval_throughput.aligned(chosen, results)
        assert [r["verdict"] for r in pair[key]] == ["passed", "passed"], results
    started = {key: [r["started_s"] for r in pair[key]] for key in ("in_order", "autotuners_first")}
    assert started["in_order"][0] < started["in_order"][1]  # one slot: the lines' order
    assert started["autotuners_first"][1] < started["autotuners_first"][0]  # the autotuned one first
    lines = eval_throughput.order_pair_lines({"order_pairs": [pair]}, pair["autotuners_first"], 2)
    assert lines[0].startswith("batch order, 1 pair(s) of steady-state passes, alternating: the lines' order "
                               f"(`--in-order`) median {pair['in_order_s']:.1f} s"), lines
    assert lines[0].endswith("the same as the steady state's: 2 of 2"), lines


def test_the_cases_made_ahead_are_counted_from_each_result():
    import eval_throughput

    results = [{"cases_prepared": {"made": 12, "found": 0}}, {"cases_prepared": {"made": 0, "found": 24}},
               {"verdict": "passed"}]  # a result without the record's count (an older executor) is left out
    assert eval_throughput.cases_made(results) == "; cases made when their evaluation came 12, found made 24"
    assert eval_throughput.cases_made([{"verdict": "passed"}]) == ""


def test_the_sandbox_cost_is_read_from_each_candidates_phases():
    results = [{"candidate_phases": {"sandbox": 0.002, "sandbox_ahead": 0.010}, "phase_seconds": {"candidate": 0.4},
                "host_seconds": 1.0},
               {"candidate_phases": {"sandbox": 0.004, "sandbox_ahead": 0.012}, "phase_seconds": {"candidate": 0.6},
                "host_seconds": 1.0},
               {"candidate_phases": {"run": 0.1}, "phase_seconds": {"candidate": 5.0}, "host_seconds": 9.0}]
    line = sandbox_cost(results)[0]
    assert "over 2 candidates" in line
    assert "3.0 ms a candidate (at most 4.0 ms)" in line
    assert "0.60% of the candidate phase" in line  # 6 ms of 1 s
    assert "0.30% of the evaluations' host time" in line  # 6 ms of 2 s
    assert "11.0 ms a spare child" in line
    assert sandbox_cost([{"candidate_phases": {"run": 1.0}}]) == []
