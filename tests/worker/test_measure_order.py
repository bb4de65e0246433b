"""The order of a candidate's timing stage (measure.time_candidate), on the CPU with the GPU parts stood in
for: each shape's timed outputs are handed over before the candidate is called again, the GPU is let go
(`timed`) only after every shape's timed calls, and the determinism check comes last. A candidate that finishes
the work of its timed calls in a later call (tests/fixtures/adversarial/deferred_completion.py) must not have
that later call before the hand-over."""
import types

import torch

from tritongym_worker import handover, measure, timing


class _Snapshot:
    def changed(self):
        return []


def test_timed_outputs_are_handed_over_before_the_candidate_runs_again(monkeypatch):
    said = []

    def entry(x):
        said.append("call")
        return x * 2

    def time_functions(functions, input_sets, **_):
        said.append("timed calls")
        calls = timing.CallTimes("candidate", kernel_us=[1.0], span_us=[1.0], event_us=[1.0], wall_us=[1.0],
                                 activities=[[]])
        calls.outputs = {i: functions["candidate"](*values) for i, values in enumerate(input_sets)}
        return timing.TimingSession({"candidate": calls}, [], -1, "warm L2 (option)", "stood in")

    monkeypatch.setattr(timing, "time_functions", time_functions)
    monkeypatch.setattr(timing, "native", lambda: types.SimpleNamespace(cupti_library=lambda: "stood in"))
    monkeypatch.setattr(handover, "load_inputs", lambda source: ([torch.full((4,), float(source))], None))
    monkeypatch.setattr(handover, "give_outputs", lambda *args: said.append("hand-over") or {})
    monkeypatch.setattr(measure.integrity, "threads_alive", lambda before: [])
    monkeypatch.setattr(measure, "_l2_flags", lambda before: [])
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.Tensor, "to", lambda self, *args, **kwargs: self.clone())

    plan = {"l2_bytes": 1 << 20, "cold_l2": False, "tolerance": {"dtype": "float32"},
            "shapes": [{"key": f"s{s}", "sets": [1, 2], "recheck": [{"set": 0, "output": "a"}, {"set": 1, "output": "b"}]}
                       for s in range(2)]}
    report = measure.time_candidate(entry, plan, _Snapshot(), None, 0, [], timed=lambda: said.append("timed"))

    assert said == ["timed calls", "call", "call", "hand-over", "hand-over",
                    "timed calls", "call", "call", "hand-over", "hand-over",
                    "timed", "call", "call", "call", "call"]  # then the determinism check: two calls per shape
    assert [shape["key"] for shape in report["shapes"]] == ["s0", "s1"]
    assert all(len(shape["rechecks"]) == 2 for shape in report["shapes"])
