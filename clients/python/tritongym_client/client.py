"""Client: the synchronous client of `tritongym serve` (safe to share between threads)."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ._endpoints import EndpointSet, RetryPolicy
from ._policy import Attempts, after_exchange, when_none_ready
from ._transport import Reply, TransportFailure, perform
from .errors import ConnectionLost, NotFound, TritonGymError, api_error
from .results import Evaluation, evaluation_from_json

STAGES = ("compile", "test", "benchmark", "profile", "final")


@dataclass(frozen=True)
class Submitted:
    """An evaluation queued with wait=False: its id is the endpoint's own."""

    endpoint: str
    id: str
    request: Dict[str, Any]


def evaluation_request(task: str, code: str, stage: str, seeds: int, timeout: float, wait: bool) -> Dict[str, Any]:
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r} (one of {', '.join(STAGES)})")
    return {"task": task, "code": code, "stage": stage, "seeds": seeds, "timeout": timeout, "wait": wait}


def read_evaluation(reply: Reply, address: str, retried: List[str]) -> Evaluation:
    try:
        return replace(evaluation_from_json(reply.json()), endpoint=address, retried=list(retried))
    except (ValueError, AttributeError, TypeError) as error:
        raise TritonGymError(f"{address} answered something that is not a result: {error}") from None


def resolve_token(token: Optional[str], token_env: Optional[str], token_file: Optional[str]) -> Optional[str]:
    """The token given, else the variable `token_env` when set, else the file's first line."""
    if token:
        return token
    if token_env and os.environ.get(token_env):
        return os.environ[token_env]
    if token_file:
        with open(token_file, encoding="utf-8") as file:
            text = file.read().strip()
        if not text:
            raise ValueError(f"the token file {token_file} is empty")
        return text
    return None


class _Base:
    def __init__(self, endpoints: Union[str, Sequence[str]], *, token: Optional[str] = None,
                 token_env: Optional[str] = "TRITONGYM_SERVE_TOKEN", token_file: Optional[str] = None,
                 timeout: float = 1800.0, connect_timeout: float = 5.0, health_interval: float = 2.0,
                 retry: RetryPolicy = RetryPolicy()) -> None:
        addresses = [endpoints] if isinstance(endpoints, str) else list(endpoints)
        self._endpoints = EndpointSet(addresses, health_interval)
        self._token = resolve_token(token, token_env, token_file)
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.retry = retry

    @property
    def endpoints(self) -> List[str]:
        return self._endpoints.addresses()

    def describe_endpoints(self) -> str:
        """What the client knows of each endpoint now ("a:1 ready (queue 0, 2 workers); b:2 dead (...)")."""
        return self._endpoints.describe()

    def _perform(self, address: str, method: str, path: str, body: Optional[Dict[str, Any]],
                 timeout: Optional[float] = None) -> Reply:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        return perform(address, method, path, data, self._token, self.connect_timeout, timeout or self.timeout)

    def _health_of(self, address: str) -> None:
        try:
            reply = self._perform(address, "GET", "/v1/health", None, timeout=self.connect_timeout + 5.0)
            self._endpoints.record_health(address, reply, None)
        except TransportFailure as failure:
            self._endpoints.record_health(address, None, failure)


class Client(_Base):
    """Judges candidates at one or several `tritongym serve` endpoints.

    endpoints: "host:port" or a list of them. token: the servers' bearer token; when None, the variable
    `token_env`, else the file `token_file`. timeout: seconds one request may take at one endpoint (an evaluation's
    wait in the server's queue included). retry: when and how often to ask again (docs in RetryPolicy).
    """

    def _refresh_health(self) -> None:
        due = self._endpoints.due_for_health()
        if len(due) == 1:
            self._health_of(due[0])
        elif due:
            with ThreadPoolExecutor(max_workers=len(due)) as pool:
                list(pool.map(self._health_of, due))

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]]) -> Tuple[str, Reply, List[str]]:
        """At some ready endpoint, with the retry rules; the endpoint and its 2xx reply."""
        attempts = Attempts(self.retry)
        while True:
            self._refresh_health()
            address = self._endpoints.pick()
            if address is None:
                decision = when_none_ready(attempts, self._endpoints)
            else:
                reply, failure = None, None
                try:
                    reply = self._perform(address, method, path, body)
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
                time.sleep(decision.wait)

    def evaluate(self, task: str, code: str, stage: str = "test", seeds: int = 3, timeout: float = 120.0) -> Evaluation:
        """Judges `code` for `task` ("standard/softmax") and waits for the verdict. Stages: compile, test (visible
        shapes), benchmark, profile, final (visible and held-out shapes). timeout: seconds the candidate may run."""
        address, reply, retried = self._request("POST", "/v1/evaluations",
                                       evaluation_request(task, code, stage, seeds, timeout, True))
        return read_evaluation(reply, address, retried)

    def submit(self, task: str, code: str, stage: str = "test", seeds: int = 3, timeout: float = 120.0) -> Submitted:
        """Queues an evaluation without waiting (202); follow it with status() or result()."""
        request = evaluation_request(task, code, stage, seeds, timeout, False)
        address, reply, _ = self._request("POST", "/v1/evaluations", request)
        return Submitted(address, str(reply.json_object(address)["id"]), request)

    def status(self, submitted: Submitted) -> Dict[str, Any]:
        """{"id", "status": "queued" | "running" | "done", "result": {...} once done}, from its endpoint."""
        try:
            reply = self._perform(submitted.endpoint, "GET", f"/v1/evaluations/{submitted.id}", None,
                                  timeout=self.connect_timeout + 30.0)
        except TransportFailure as failure:
            raise ConnectionLost(f"{submitted.endpoint}: {failure.reason}") from None
        if reply.status != 200:
            raise api_error(reply.status, reply.error_message(), submitted.endpoint)
        return reply.json_object(submitted.endpoint)

    def result(self, submitted: Submitted, poll_interval: float = 1.0) -> Evaluation:
        """Polls until the evaluation is done. When its endpoint is lost (or no longer knows the id: it restarted),
        it is submitted again elsewhere (an evaluation is idempotent)."""
        while True:
            try:
                state = self.status(submitted)
            except (ConnectionLost, NotFound) as lost:
                self._endpoints.lost(submitted.endpoint, str(lost))
                request = submitted.request
                submitted = self.submit(request["task"], request["code"], request["stage"], request["seeds"],
                                        request["timeout"])
                continue
            if state.get("status") == "done":
                return replace(evaluation_from_json(state["result"]), endpoint=submitted.endpoint)
            time.sleep(poll_interval)

    def tasks(self) -> List[Dict[str, Any]]:
        """The tasks a ready endpoint serves: [{"id", "split", ...}]."""
        address, reply, _ = self._request("GET", "/v1/tasks", None)
        tasks: List[Dict[str, Any]] = reply.json_object(address)["tasks"]
        return tasks

    def health(self) -> Dict[str, Dict[str, Any]]:
        """Each endpoint's /v1/health now: {address: {"http_status": int, ...body} or {"error": "..."}}."""
        out: Dict[str, Dict[str, Any]] = {}
        for address in self.endpoints:
            try:
                reply = self._perform(address, "GET", "/v1/health", None, timeout=self.connect_timeout + 5.0)
                self._endpoints.record_health(address, reply, None)
                body = reply.json() if reply.body else {}
                out[address] = {"http_status": reply.status, **(body if isinstance(body, dict) else {})}
            except (TransportFailure, ValueError) as error:
                out[address] = {"error": str(error)}
        return out

    def metrics(self, endpoint: Optional[str] = None) -> str:
        """One endpoint's /metrics (Prometheus text); the first endpoint when none is named."""
        address = endpoint or self.endpoints[0]
        try:
            reply = self._perform(address, "GET", "/metrics", None, timeout=self.connect_timeout + 10.0)
        except TransportFailure as failure:
            raise ConnectionLost(f"{address}: {failure.reason}") from None
        if reply.status != 200:
            raise api_error(reply.status, reply.error_message(), address)
        return reply.body.decode("utf-8")
