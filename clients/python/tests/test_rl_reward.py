"""examples/rl-reward against a real server: a batch in, (reward, verdict) out, in order."""

from __future__ import annotations

import sys

from conftest import CHECKOUT, ORACLE, TASK, WRONG

from tritongym_client import Evaluation, RetryPolicy, ShapeResult, Timing

sys.path.insert(0, str(CHECKOUT / "examples" / "rl-reward"))
from reward import KernelReward, reward_of  # noqa: E402


def test_a_batch_scores_in_its_order(server):
    reward = KernelReward([server.endpoint], stage="test", retry=RetryPolicy(initial_delay=0.1, max_delay=2.0))
    scored = reward([(TASK, ORACLE), (TASK, WRONG), (TASK, "def vector_add(x, y:\n"), ("standard/nothing", ORACLE)])
    assert [tuple(item) for item in scored] == [(0.3, "passed"), (0.0, "wrong_answer"), (0.0, "compile_error"),
                                                 (0.0, "unjudged")]


def _timed(verdict: str, candidate_us: float, eager_us: float) -> Evaluation:
    shape = ShapeResult("visible-0", verdict == "passed", timing=Timing(median_us=candidate_us, eager_us=eager_us))
    return Evaluation(verdict, "", [shape, shape], [], [], "", "", 0.0, 0.0, "tritongym.executor.triton-cuda", "1", "x")


def test_a_timed_pass_adds_its_capped_speedup_over_eager():
    assert reward_of(_timed("passed", 10.0, 20.0)) == 0.3 + 2.0
    assert reward_of(_timed("passed", 1.0, 50.0)) == 0.3 + 10.0
    assert reward_of(_timed("flagged", 1.0, 50.0)) == 0.0
