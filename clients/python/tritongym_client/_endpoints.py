"""Which endpoint gets the next request, and when to ask again: the rules tritongym.executor.remote follows too.

Each endpoint is asked /v1/health every `health_interval` seconds (when a request needs it). A request goes to the
ready endpoint with the least waiting per worker (its reported queue plus what this client sent since). A lost
connection takes an endpoint out until its health says ready again; a 429 or 503 keeps it out for its Retry-After;
a 401 keeps it out until its health check is accepted.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence

from ._transport import Reply, TransportFailure, split_address


@dataclass(frozen=True)
class RetryPolicy:
    """max_attempts: failed exchanges (connection lost, timed out, HTTP 5xx) before a request is given up.
    initial_delay and max_delay (seconds): the backoff when no other endpoint is free, doubled per failure with
    jitter, and the cap on a server's Retry-After. max_busy_wait (seconds): how long a request may wait while every
    endpoint is full (429), starting or draining (503)."""

    max_attempts: int = 6
    initial_delay: float = 0.5
    max_delay: float = 30.0
    max_busy_wait: float = 3600.0

    def backoff(self, attempt: int) -> float:
        return min(self.initial_delay * 2.0 ** max(attempt - 1, 0), self.max_delay) * random.uniform(0.5, 1.0)


def retry_after_seconds(headers: Mapping[str, str]) -> Optional[float]:
    """Retry-After as seconds from now (delta-seconds or an HTTP date); None when absent or unreadable."""
    text = headers.get("retry-after")
    if text is None:
        return None
    try:
        return max(float(text), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


@dataclass
class Endpoint:
    address: str
    state: str = "unknown"  # unknown, ready, not_ready, dead, refused
    detail: str = "not asked yet"
    workers: int = 1
    queue_depth: int = 0
    in_flight: int = 0
    in_flight_at_report: int = 0
    busy_until: float = 0.0
    checked_at: float = float("-inf")
    picked_at: float = 0.0
    info: Dict[str, object] = field(default_factory=dict)


class EndpointSet:
    """Thread-safe: the sync client's threads and the async client's loop share one."""

    def __init__(self, addresses: Sequence[str], health_interval: float) -> None:
        if not addresses:
            raise ValueError("no endpoint: give at least one `tritongym serve` address, host:port")
        self._endpoints: Dict[str, Endpoint] = {}
        for address in addresses:
            split_address(address)  # ValueError names a bad one now, not at the first request
            self._endpoints.setdefault(address, Endpoint(address))
        self.health_interval = health_interval
        self._lock = threading.Lock()

    def addresses(self) -> List[str]:
        return list(self._endpoints)

    def due_for_health(self) -> List[str]:
        """Endpoints whose last health check is older than the interval (or that were never asked), claimed for
        the caller: another thread asking at the same moment gets none of them."""
        now = time.monotonic()
        with self._lock:
            due = [e for e in self._endpoints.values() if now - e.checked_at >= self.health_interval]
            for endpoint in due:
                endpoint.checked_at = now
            return [e.address for e in due]

    def record_health(self, address: str, reply: Optional[Reply], failure: Optional[TransportFailure]) -> None:
        with self._lock:
            endpoint = self._endpoints[address]
            endpoint.checked_at = time.monotonic()
            if reply is None:
                endpoint.state, endpoint.detail = "dead", failure.reason if failure else "no answer"
                return
            try:
                data = reply.json()
            except ValueError:
                data = None
            said = data.get("status") if isinstance(data, dict) else None
            if reply.status in (401, 403):
                endpoint.state, endpoint.detail = "refused", f"HTTP {reply.status}: {reply.error_message()}"
            elif reply.status == 200 and said == "ready" and isinstance(data, dict):
                endpoint.state, endpoint.detail = "ready", "ready"
                endpoint.workers = max(int(data.get("workers") or 1), 1)
                endpoint.queue_depth = max(int(data.get("queue_depth") or 0), 0)
                endpoint.in_flight_at_report = endpoint.in_flight
                endpoint.info = dict(data)
            else:
                endpoint.state = "not_ready"
                endpoint.detail = str(said) if said else f"HTTP {reply.status}: {reply.error_message()}"

    def pick(self) -> Optional[str]:
        """The ready endpoint with the least waiting per worker, not busy; None when there is none."""
        now = time.monotonic()
        with self._lock:
            best, best_load = None, 0.0
            for endpoint in self._endpoints.values():
                if endpoint.state != "ready" or endpoint.busy_until > now:
                    continue
                sent_since = max(endpoint.in_flight - endpoint.in_flight_at_report, 0)
                load = max(endpoint.queue_depth + sent_since, endpoint.in_flight) / endpoint.workers
                if best is None or load < best_load or (load == best_load and endpoint.picked_at < best.picked_at):
                    best, best_load = endpoint, load
            if best is None:
                return None
            best.in_flight += 1
            best.picked_at = now
            return best.address

    def release(self, address: str) -> None:
        with self._lock:
            endpoint = self._endpoints[address]
            endpoint.in_flight -= 1
            endpoint.in_flight_at_report = min(endpoint.in_flight_at_report, endpoint.in_flight)

    def lost(self, address: str, why: str) -> None:
        with self._lock:
            self._endpoints[address].state, self._endpoints[address].detail = "dead", why

    def busy(self, address: str, seconds: float, why: str) -> None:
        with self._lock:
            endpoint = self._endpoints[address]
            endpoint.busy_until = max(endpoint.busy_until, time.monotonic() + seconds)
            endpoint.detail = why

    def refused(self, address: str, why: str) -> None:
        with self._lock:
            self._endpoints[address].state, self._endpoints[address].detail = "refused", why

    def pick_possible(self) -> bool:
        """Whether some endpoint is ready and not busy now (pick() would give one)."""
        now = time.monotonic()
        with self._lock:
            return any(e.state == "ready" and e.busy_until <= now for e in self._endpoints.values())

    def all_refused(self) -> bool:
        with self._lock:
            return all(e.state == "refused" for e in self._endpoints.values())

    def seconds_until_change(self) -> float:
        """Until a busy endpoint may be asked again or a health check is due, at most the health interval."""
        now = time.monotonic()
        with self._lock:
            waits = [self.health_interval]
            for endpoint in self._endpoints.values():
                if endpoint.busy_until > now:
                    waits.append(endpoint.busy_until - now)
                waits.append(max(endpoint.checked_at + self.health_interval - now, 0.0))
            return max(min(waits), 0.01)

    def describe(self) -> str:
        now = time.monotonic()
        with self._lock:
            parts = []
            for e in self._endpoints.values():
                text = f"{e.address} {e.state}"
                if e.state == "ready":
                    text += f" (queue {e.queue_depth}, {e.workers} workers" + (
                        f", busy: {e.detail})" if e.busy_until > now else ")")
                elif e.detail:
                    text += f" ({e.detail})"
                parts.append(text)
            return "; ".join(parts)
