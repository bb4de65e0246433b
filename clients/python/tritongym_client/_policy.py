"""What to do after one exchange: done, ask again (where and when), or give up. Shared by Client and AsyncClient."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import List, Optional

from ._endpoints import EndpointSet, RetryPolicy, retry_after_seconds
from ._transport import Reply, TransportFailure
from .errors import ConnectionLost, RetriesExhausted, TritonGymError, Unauthorized, api_error

_KEPT = 20  # the last tries kept for the error message


@dataclass
class Attempts:
    policy: RetryPolicy
    busy_deadline: float = 0.0
    failed: int = 0
    busy_answers: int = 0
    tried: List[str] = field(default_factory=list)
    last: Optional[TritonGymError] = None

    def __post_init__(self) -> None:
        self.busy_deadline = time.monotonic() + self.policy.max_busy_wait

    def note(self, address: str, what: str) -> None:
        self.tried = (self.tried + [f"{address}: {what}"])[-_KEPT:]

    def give_up(self, why: str, endpoints: EndpointSet) -> RetriesExhausted:
        tried = "; ".join(self.tried) or "nothing was tried"
        return RetriesExhausted(f"{why} (tried: {tried}; endpoints now: {endpoints.describe()})", list(self.tried),
                                self.last)


@dataclass(frozen=True)
class Decision:
    done: bool = False
    error: Optional[TritonGymError] = None  # raise it
    wait: float = 0.0                        # seconds before asking again (when neither done nor error)


def when_none_ready(attempts: Attempts, endpoints: EndpointSet) -> Decision:
    """No endpoint can take a request now: wait for one, or give up."""
    if endpoints.all_refused():
        # The servers' own answer (401) says it best; waiting will not change it.
        if isinstance(attempts.last, Unauthorized):
            return Decision(error=attempts.last)
        return Decision(error=attempts.give_up("every endpoint refuses the token", endpoints))
    left = attempts.busy_deadline - time.monotonic()
    if left <= 0:
        return Decision(error=attempts.give_up(
            f"no endpoint took the request within {attempts.policy.max_busy_wait:g} s", endpoints))
    return Decision(wait=min(endpoints.seconds_until_change(), left))


def after_exchange(address: str, reply: Optional[Reply], failure: Optional[TransportFailure], attempts: Attempts,
                   endpoints: EndpointSet) -> Decision:
    policy = attempts.policy
    if reply is None:
        assert failure is not None
        # Lost with the connection; an evaluation is idempotent, so it is asked again, elsewhere where possible.
        attempts.note(address, failure.reason)
        attempts.last = ConnectionLost(f"{address}: {failure.reason}")
        if failure.timed_out and failure.sent:
            endpoints.busy(address, policy.max_delay, "a request timed out there")
        else:
            endpoints.lost(address, failure.reason)
        attempts.failed += 1
        if attempts.failed >= policy.max_attempts:
            return Decision(error=attempts.give_up(f"the request failed {attempts.failed} times", endpoints))
        return Decision(wait=0.0 if endpoints.pick_possible() else policy.backoff(attempts.failed))
    if 200 <= reply.status < 300:
        return Decision(done=True)
    message = reply.error_message()
    error = api_error(reply.status, message, address)
    attempts.note(address, f"HTTP {reply.status}: {message}")
    attempts.last = error
    if reply.status in (429, 503):
        attempts.busy_answers += 1
        given = retry_after_seconds(reply.headers)
        wait = given if given is not None else policy.backoff(attempts.busy_answers)
        endpoints.busy(address, min(wait, policy.max_delay), f"HTTP {reply.status}")
        return Decision()
    if isinstance(error, Unauthorized):
        endpoints.refused(address, f"HTTP {reply.status}: {message}")
        return Decision()
    if reply.status >= 500 or reply.status == 408:
        attempts.failed += 1
        if attempts.failed >= policy.max_attempts:
            return Decision(error=attempts.give_up(f"the request failed {attempts.failed} times", endpoints))
        endpoints.busy(address, policy.backoff(attempts.failed), f"HTTP {reply.status}")
        return Decision()
    return Decision(error=error)  # 400, 404, 405, 413: asking again gets the same answer
