"""bench/throughput_timeline.py on a saved pass whose timeline is known: three candidates over two slots."""
from __future__ import annotations

import json
import os
import subprocess
import sys

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")
sys.path.insert(0, BENCH)

import throughput_timeline as timeline  # noqa: E402

# Slot 0 judges a (0 to 4 s) then c (4 to 6 s); slot 1 judges b (0 to 5 s). Timings: a 2.5-3.0, b 3.5-4.5,
# c 5.0-5.5; the reference worker: a 0.5-1.0 and 3.5-4.0, b 0-1 and 4.5-5.0, c 4.0-4.5 and 5.5-6.0.
A = {"task": "t/x", "code": "/c/a.py", "verdict": "passed", "started_s": 0.0, "host_seconds": 4.0,
     "phase_seconds": {"prepare_wait": 0.5, "prepare": 0.5, "candidate": 1.5, "timing": 0.5, "after_timing": 0.5,
                       "compare": 0.5},
     "turns": {"suspended_s": 0.4, "suspensions": 1}, "compiles_off_gpu": 2}
B = {"task": "t/x", "code": "/c/b.py", "verdict": "passed", "started_s": 0.0, "host_seconds": 5.0,
     "phase_seconds": {"prepare": 1.0, "candidate": 2.0, "candidate_share_wait": 0.5, "timing": 1.0, "compare": 0.5}}
C = {"task": "t/y", "code": "/c/c.py", "verdict": "wrong_answer", "started_s": 4.0, "host_seconds": 2.0,
     "phase_seconds": {"prepare": 0.5, "candidate": 0.5, "timing": 0.5, "compare": 0.5}}


def saved(tmp_path) -> str:
    path = tmp_path / "saved.json"
    path.write_text(json.dumps({"path": "both", "steady": [A, B, C], "first": [A],
                                "variants": [{"config": {"workers": 6}, "steady": [C]}]}))
    return str(path)


def test_phases_are_laid_end_to_end_in_the_executors_order():
    # The share wait, moved out of `candidate`, is drawn before it.
    assert timeline.intervals(B) == [("prepare", 0.0, 1.0), ("candidate_share_wait", 1.0, 1.5),
                                     ("candidate", 1.5, 3.5), ("timing", 3.5, 4.5), ("compare", 4.5, 5.0)]
    assert timeline.intervals({"phase_seconds": {"prepare": 1.0}}) == []


def test_a_comparison_of_the_checks_before_timing_is_the_reference_workers_and_comes_before_the_timing():
    d = {"task": "t/z", "code": "/c/d.py", "verdict": "passed", "started_s": 0.0, "host_seconds": 3.0,
         "phase_seconds": {"candidate": 1.0, "timing_wait": 0.5, "timing": 0.5, "checks_compare": 0.25,
                           "checks_compare_wait": 0.25, "compare": 0.5}}
    assert timeline.intervals(d) == [("candidate", 0.0, 1.0), ("checks_compare_wait", 1.0, 1.25),
                                     ("checks_compare", 1.25, 1.5), ("timing_wait", 1.5, 2.0), ("timing", 2.0, 2.5),
                                     ("compare", 2.5, 3.0)]
    assert timeline.summary([d])[2] == "the reference worker (prepare, compare, baselines): 0.8 s (25%)"


def test_slots_are_reused_once_free():
    assert timeline.lanes([A, B, C]) == [0, 1, 0]


def test_slots_are_handed_out_in_the_order_the_candidates_started_not_the_lines_order():
    # Line order C, A, B; started A and B at 0, C at 4 when A was done: still two slots, C in A's.
    assert timeline.lanes([C, A, B]) == [0, 0, 1]


def test_summary_measures_the_gpu_alone_and_the_reference_worker(tmp_path):
    lines = timeline.summary([A, B, C])
    assert lines[0].startswith("judging window: 6.0 s, 3 candidates over 2 slots; the slots were busy 11.0 s of 12.0 s")
    assert lines[1] == "the GPU alone for timed calls: 2.0 s of the window (33%)"
    # a 0.5-1.0 inside b's 0-1; then 3.5-4.0, c's 4.0-4.5, b's 4.5-5.0, c's 5.5-6.0: 1.0 + 1.5 + 0.5
    assert lines[2] == "the reference worker (prepare, compare, baselines): 3.0 s (50%)"
    # Together 0-1, 2.5-3.0 and 3.5-6.0; neither ran 1.0-2.5 and 3.0-3.5.
    assert lines[3] == ("the two together: 4.0 s (67%); neither: 2.0 s in 2 gaps of 0.15 s or more, the longest "
                        "1.50 s from 1.00 s; the first timing began at 2.50 s")
    rows = [line for line in lines if line.startswith("| t/")]
    assert rows[0] == "| t/x a.py | 0.00 | 4.00 | 0.40 | 1 | 2 | candidate 1.50 |"
    assert [row.split(" | ")[0] for row in rows] == ["| t/x a.py", "| t/x b.py", "| t/y c.py"]


def test_the_script_writes_a_chrome_trace_of_the_chosen_pass(tmp_path):
    trace = tmp_path / "trace.json"
    done = subprocess.run([sys.executable, os.path.join(BENCH, "throughput_timeline.py"), saved(tmp_path),
                           "--pass", "variant-0", "--trace", str(trace)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "1 candidates over 1 slots" in done.stdout
    events = json.loads(trace.read_text())["traceEvents"]
    boxes = [(e["name"], e["ts"], e["dur"]) for e in events if e["ph"] == "X"]
    assert boxes[0] == ("t/y c.py", 4.0e6, 2.0e6)
    assert ("timing", 5.0e6, 0.5e6) in boxes
    assert [e["args"]["name"] for e in events if e["ph"] == "M"] == ["slot 0"]


def test_a_missing_pass_is_an_error_that_names_it(tmp_path):
    done = subprocess.run([sys.executable, os.path.join(BENCH, "throughput_timeline.py"), saved(tmp_path),
                           "--pass", "variant-3"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "cannot read the pass 'variant-3'" in done.stderr
