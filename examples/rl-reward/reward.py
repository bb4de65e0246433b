"""A reward function for an RL loop that writes Triton kernels: a batch of (task, code) pairs in, a list of
(reward, verdict) out, judged by `tritongym serve` endpoints (README.md beside this file says how the reward is
defined).

    from reward import KernelReward
    reward = KernelReward(["gpu1:8000", "gpu2:8000"])
    scores = reward([("standard/softmax", code_a), ("standard/rmsnorm", code_b)])   # [(0.3, 'passed'), ...]

Or from a shell, on files:  python reward.py --endpoint 127.0.0.1:8000 standard/softmax=my_softmax.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

from tritongym_client import AsyncClient, Evaluation, RetryPolicy, TritonGymError


class Scored(NamedTuple):
    reward: float
    verdict: str  # a verdict of tritongym (passed, compile_error, ...) or "unjudged" when no endpoint answered


# Verdicts that say nothing of the candidate: the executor could not run what it uses, or the harness failed.
# They score 0 like a failure; a trainer that can drop samples should drop them (see README.md).
NO_SIGNAL = ("not_judged", "harness_error", "unjudged")


def reward_of(evaluation: Evaluation, correct_reward: float = 0.3, speedup_cap: float = 10.0) -> float:
    """0 unless the verdict is passed; then `correct_reward`, plus the speedup over PyTorch eager (geometric mean
    over the timed shapes, capped at `speedup_cap`) when the executor timed it. A pass judged without timing (the
    interpreter, or the compile and test stages) gets `correct_reward` alone."""
    if not evaluation.passed:
        return 0.0
    speedup = evaluation.speedup("eager")
    if speedup is None or not math.isfinite(speedup):
        return correct_reward
    return correct_reward + min(speedup, speedup_cap)


class KernelReward:
    """Calls the servers for a whole batch at once (a client per batch: each call asks their health afresh)."""

    def __init__(self, endpoints: Sequence[str], stage: str = "benchmark", seeds: int = 3, timeout: float = 120.0,
                 correct_reward: float = 0.3, speedup_cap: float = 10.0, max_concurrency: int = 64,
                 retry: RetryPolicy = RetryPolicy(), token: Optional[str] = None) -> None:
        self.endpoints = list(endpoints)
        self.stage, self.seeds, self.timeout = stage, seeds, timeout
        self.correct_reward, self.speedup_cap = correct_reward, speedup_cap
        self.max_concurrency, self.retry, self.token = max_concurrency, retry, token

    async def score(self, batch: Sequence[Tuple[str, str]]) -> List[Scored]:
        async with AsyncClient(self.endpoints, max_concurrency=self.max_concurrency, retry=self.retry,
                               token=self.token) as client:
            judged = await client.evaluate_many(batch, stage=self.stage, seeds=self.seeds, timeout=self.timeout)
        scored = []
        for item in judged:
            if isinstance(item, Evaluation):
                scored.append(Scored(reward_of(item, self.correct_reward, self.speedup_cap), item.verdict))
            elif isinstance(item, TritonGymError):
                scored.append(Scored(0.0, "unjudged"))  # every retry failed: no endpoint judged it
            else:
                raise item
        return scored

    def __call__(self, batch: Sequence[Tuple[str, str]]) -> List[Scored]:
        """From synchronous code (not from inside a running event loop: await score() there)."""
        return asyncio.run(self.score(batch))


def main() -> None:
    parser = argparse.ArgumentParser(description="Score candidate files as an RL reward at tritongym serve endpoints")
    parser.add_argument("--endpoint", action="append", required=True, help="host:port (repeat for several)")
    parser.add_argument("--stage", default="benchmark", help="compile, test, benchmark, profile or final")
    parser.add_argument("pairs", nargs="+", metavar="TASK=FILE")
    arguments = parser.parse_args()
    batch = []
    for pair in arguments.pairs:
        task, _, path = pair.partition("=")
        with open(path, encoding="utf-8") as file:
            batch.append((task, file.read()))
    for (task, _), scored in zip(batch, KernelReward(arguments.endpoint, stage=arguments.stage)(batch)):
        print(json.dumps({"task": task, "reward": scored.reward, "verdict": scored.verdict}))


if __name__ == "__main__":
    main()
