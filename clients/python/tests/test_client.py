"""tritongym_client against real `tritongym serve` processes on loopback (conftest.py starts them)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from conftest import ORACLE, TASK, WRONG

from tritongym_client import (AsyncClient, BadRequest, Client, ConnectionLost, MethodNotAllowed, NotFound,
                              PayloadTooLarge, RetriesExhausted, RetryPolicy, Unauthorized)

FAST = RetryPolicy(initial_delay=0.1, max_delay=2.0, max_busy_wait=600.0)


def test_sync_client_judges_lists_tasks_and_reads_health(server):
    client = Client(server.endpoint, retry=FAST)
    tasks = {task["id"]: task for task in client.tasks()}
    assert TASK in tasks and tasks[TASK]["split"] == "standard"
    health = client.health()[server.endpoint]
    assert health["http_status"] == 200 and health["status"] == "ready" and health["workers"] == 1

    passed = client.evaluate(TASK, ORACLE)
    assert passed.verdict == "passed", passed.message
    assert passed.passed and passed.shapes and all(shape.passed for shape in passed.shapes)
    assert passed.endpoint == server.endpoint
    assert passed.executor == "tritongym.executor.triton-interpreter"
    assert passed.id and passed.raw["id"] == passed.id
    assert passed.speedup() is None  # the interpreter times nothing

    wrong = client.evaluate(TASK, WRONG, stage="test", seeds=2)
    assert wrong.verdict == "wrong_answer"
    assert not wrong.passed and any(not shape.passed for shape in wrong.shapes)


def test_async_client_judges_a_batch_and_follows_a_submitted_evaluation(server):
    async def scenario():
        async with AsyncClient([server.endpoint], retry=FAST) as client:
            judged = await client.evaluate_many([(TASK, ORACLE), (TASK, WRONG)])
            assert [item.verdict for item in judged] == ["passed", "wrong_answer"]
            submitted = await client.submit(TASK, ORACLE, stage="compile")
            assert submitted.endpoint == server.endpoint and submitted.id
            assert (await client.status(submitted))["status"] in ("queued", "running", "done")
            done = await client.result(submitted, poll_interval=0.2)
            assert done.verdict == "passed" and done.id == submitted.id
            with pytest.raises(NotFound):
                await client.status(type(submitted)(server.endpoint, "no-such-id", submitted.request))
    asyncio.run(scenario())


def test_errors_map_to_their_classes_without_retries(server):
    client = Client(server.endpoint, retry=FAST)
    started = time.monotonic()
    with pytest.raises(NotFound) as unknown:
        client.evaluate("standard/no-such-task", ORACLE)
    assert unknown.value.status == 404 and "no-such-task" in unknown.value.message
    with pytest.raises(BadRequest) as bad:
        client._request("POST", "/v1/evaluations", {"task": TASK, "code": ORACLE, "seeds": "three"})
    assert bad.value.status == 400 and "seeds" in bad.value.message
    with pytest.raises(PayloadTooLarge):
        client.evaluate(TASK, ORACLE + "#" * 30000)  # the server takes at most 20000 bytes of code
    with pytest.raises(MethodNotAllowed):
        client._request("DELETE", "/v1/tasks", None)
    with pytest.raises(ValueError):
        client.evaluate(TASK, ORACLE, stage="fastest")  # refused before it is sent
    assert time.monotonic() - started < 30, "a refused request was retried"


def test_a_full_queue_is_retried_after_its_retry_after_until_every_evaluation_is_judged(server):
    """One worker, a queue of one: of four evaluations at once, some are answered 429 and asked again."""
    refused_before = server.metric('tritongym_requests_total{code="429"}')

    async def scenario():
        async with AsyncClient(server.endpoint, retry=FAST) as client:
            return await client.evaluate_many([(TASK, ORACLE)] * 4, stage="compile")
    judged = asyncio.run(scenario())
    assert [item.verdict for item in judged] == ["passed"] * 4
    assert server.metric('tritongym_requests_total{code="429"}') > refused_before
    retried = [line for item in judged for line in item.retried]
    assert any("HTTP 429" in line for line in retried), retried

    # The same through the sync client's threads.
    client = Client(server.endpoint, retry=FAST)
    results = [None] * 3
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, client.evaluate(TASK, ORACLE, "compile")))
               for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [item.verdict for item in results] == ["passed"] * 3


def test_a_dead_endpoint_is_left_out_and_the_retries_end(server):
    client = Client(["127.0.0.1:1", server.endpoint], retry=FAST)
    assert client.evaluate(TASK, ORACLE, stage="compile").endpoint == server.endpoint
    assert "127.0.0.1:1 dead" in client.describe_endpoints()
    nobody = Client("127.0.0.1:1", retry=RetryPolicy(initial_delay=0.05, max_delay=0.1, max_busy_wait=1.0))
    with pytest.raises(RetriesExhausted) as gave_up:
        nobody.evaluate(TASK, ORACLE)
    assert "127.0.0.1:1" in str(gave_up.value)
    with pytest.raises(ConnectionLost):
        nobody.metrics()


def test_the_token_is_required_and_accepted(make_server, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token\n")
    guarded = make_server("guarded", ["--token-file", str(token_file)])
    guarded.wait_ready()
    with pytest.raises(Unauthorized) as refused:
        Client(guarded.endpoint, token_env=None, retry=FAST).evaluate(TASK, ORACLE, stage="compile")
    assert refused.value.status == 401
    with pytest.raises(Unauthorized):
        Client(guarded.endpoint, token="wrong", retry=FAST).tasks()
    accepted = Client(guarded.endpoint, token_env=None, token_file=str(token_file), retry=FAST)
    assert accepted.evaluate(TASK, ORACLE, stage="compile").verdict == "passed"
    assert "s3cret-token" not in guarded.stderr()


def test_evaluations_lost_with_a_killed_server_are_judged_by_the_other(server, make_server):
    doomed = make_server("doomed")
    doomed.wait_ready()

    async def scenario():
        async with AsyncClient([server.endpoint, doomed.endpoint], retry=FAST, health_interval=0.5) as client:
            batch = asyncio.ensure_future(client.evaluate_many([(TASK, ORACLE)] * 6, stage="test"))
            # Killed while it holds evaluations: one on its worker and one waiting in its queue.
            while not batch.done():
                if ((doomed.health() or {}).get("queue_depth") or 0) >= 1:
                    doomed.kill()
                    break
                await asyncio.sleep(0.02)
            assert doomed.process.poll() is not None, "the second server never held a waiting evaluation"
            return await batch
    judged = asyncio.run(scenario())
    assert [item.verdict for item in judged] == ["passed"] * 6, judged
    moved = [item for item in judged if item.endpoint == server.endpoint
             and any(line.startswith(doomed.endpoint) for line in item.retried)]
    assert moved, [(item.endpoint, item.retried) for item in judged]
