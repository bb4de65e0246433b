"""AsyncClient: the asyncio client of `tritongym serve`, with the same rules as Client.

The exchanges themselves run on a private pool of threads (http.client, from the standard library), so the
package needs nothing beyond Python; the waiting between tries (backoff, Retry-After) is asyncio's. At most
`max_concurrency` exchanges are open at once; more evaluations than that wait their turn without holding a thread.
"""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, Tuple, TypeVar, Union

from ._endpoints import RetryPolicy
from ._policy import Attempts, after_exchange, when_none_ready
from ._transport import Reply, TransportFailure
from .client import Submitted, _Base, evaluation_request, read_evaluation
from .errors import ConnectionLost, NotFound, api_error
from .results import Evaluation, evaluation_from_json

T = TypeVar("T")


class AsyncClient(_Base):
    """As Client, with coroutines. Use `async with AsyncClient(...) as client:` or call `await client.close()`."""

    def __init__(self, endpoints: Union[str, Sequence[str]], *, max_concurrency: int = 64,
                 token: Optional[str] = None, token_env: Optional[str] = "TRITONGYM_SERVE_TOKEN",
                 token_file: Optional[str] = None, timeout: float = 1800.0, connect_timeout: float = 5.0,
                 health_interval: float = 2.0, retry: RetryPolicy = RetryPolicy()) -> None:
        super().__init__(endpoints, token=token, token_env=token_env, token_file=token_file, timeout=timeout,
                         connect_timeout=connect_timeout, health_interval=health_interval, retry=retry)
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self._threads = ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="tritongym-client")
        self._slots = asyncio.Semaphore(max_concurrency)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        self._threads.shutdown(wait=False)

    async def _in_thread(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        async with self._slots:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._threads, functools.partial(function, *args, **kwargs))

    async def _refresh_health(self) -> None:
        due = self._endpoints.due_for_health()
        if due:
            await asyncio.gather(*(self._in_thread(self._health_of, address) for address in due))

    async def _request(self, method: str, path: str, body: Optional[Dict[str, Any]]) -> Tuple[str, Reply, List[str]]:
        attempts = Attempts(self.retry)
        while True:
            await self._refresh_health()
            address = self._endpoints.pick()
            if address is None:
                decision = when_none_ready(attempts, self._endpoints)
            else:
                reply, failure = None, None
                try:
                    reply = await self._in_thread(self._perform, address, method, path, body)
                except TransportFailure as lost:
                    failure = lost
                finally:
                    self._endpoints.release(address)
                decision = after_exchange(address, reply, failure, attempts, self._endpoints)
                if decision.done:
                    assert reply is not None
                    return address, reply, attempts.tried
            if decision.error is not None:
                raise decision.error
            if decision.wait > 0:
                await asyncio.sleep(decision.wait)

    async def evaluate(self, task: str, code: str, stage: str = "test", seeds: int = 3,
                       timeout: float = 120.0) -> Evaluation:
        """As Client.evaluate."""
        address, reply, retried = await self._request("POST", "/v1/evaluations",
                                             evaluation_request(task, code, stage, seeds, timeout, True))
        return read_evaluation(reply, address, retried)

    async def evaluate_many(self, items: Sequence[Tuple[str, str]], stage: str = "test", seeds: int = 3,
                            timeout: float = 120.0) -> List[Union[Evaluation, BaseException]]:
        """Judges every (task, code) pair at once (at most max_concurrency exchanges open); in their order, each an
        Evaluation, or the error that ended its retries."""
        return await asyncio.gather(*(self.evaluate(task, code, stage, seeds, timeout) for task, code in items),
                                    return_exceptions=True)

    async def submit(self, task: str, code: str, stage: str = "test", seeds: int = 3,
                     timeout: float = 120.0) -> Submitted:
        """As Client.submit."""
        request = evaluation_request(task, code, stage, seeds, timeout, False)
        address, reply, _ = await self._request("POST", "/v1/evaluations", request)
        return Submitted(address, str(reply.json_object(address)["id"]), request)

    async def status(self, submitted: Submitted) -> Dict[str, Any]:
        """As Client.status."""
        try:
            reply: Reply = await self._in_thread(self._perform, submitted.endpoint, "GET",
                                                 f"/v1/evaluations/{submitted.id}", None, self.connect_timeout + 30.0)
        except TransportFailure as failure:
            raise ConnectionLost(f"{submitted.endpoint}: {failure.reason}") from None
        if reply.status != 200:
            raise api_error(reply.status, reply.error_message(), submitted.endpoint)
        return reply.json_object(submitted.endpoint)

    async def result(self, submitted: Submitted, poll_interval: float = 1.0) -> Evaluation:
        """As Client.result."""
        while True:
            try:
                state = await self.status(submitted)
            except (ConnectionLost, NotFound) as lost:
                self._endpoints.lost(submitted.endpoint, str(lost))
                request = submitted.request
                submitted = await self.submit(request["task"], request["code"], request["stage"], request["seeds"],
                                              request["timeout"])
                continue
            if state.get("status") == "done":
                return replace(evaluation_from_json(state["result"]), endpoint=submitted.endpoint)
            await asyncio.sleep(poll_interval)

    async def tasks(self) -> List[Dict[str, Any]]:
        """As Client.tasks."""
        address, reply, _ = await self._request("GET", "/v1/tasks", None)
        tasks: List[Dict[str, Any]] = reply.json_object(address)["tasks"]
        return tasks
