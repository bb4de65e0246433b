"""The worker protocol's schema as the worker checks it (protocol.py): the shared transcript of messages that the
executor's test (tests/plugins/worker_protocol_test.cpp) reads too, word for word, and a real worker process that
answers a request the schema refuses with the message type and the field."""
import json
from pathlib import Path

import pytest

from tritongym_worker import protocol
from test_reply_fuzz import WorkerProcess

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "tests" / "fixtures" / "protocol" / "messages.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['type']}" for i, c in enumerate(CASES)])
def test_the_shared_transcript(case):
    if not case["error"]:
        protocol.SCHEMA.check(case["type"], case["message"])
        return
    with pytest.raises(protocol.ProtocolError) as raised:
        protocol.SCHEMA.check(case["type"], case["message"])
    assert str(raised.value) == case["error"]


def test_every_type_the_schema_names_is_defined():
    document = json.loads(Path(protocol.SCHEMA_PATH).read_text())
    defined = set(document["records"]) | {"string", "integer", "number", "boolean", "any", "object"}

    def types_in(kind):
        kind = kind.removesuffix("|null")
        if kind.startswith("list<"):
            return types_in(kind[5:-1])
        if kind.startswith("map<"):
            return types_in(kind[4:-1])
        return {kind}

    named = {t for group in ("messages", "records") for spec in document[group].values() for kind in spec.values()
             for t in types_in(kind)}
    assert named <= defined, named - defined


def test_a_reply_that_breaks_the_protocol_is_replaced():
    # For a run: the verdict harness_error, naming the field, with the child's output kept.
    sent = json.loads(protocol.encode_reply("run", {"ok": True, "verdict": None, "forged": 1, "stdout": "out",
                                                    "stderr": "", "folder": "/f", "wall_seconds": 2.0}))
    assert sent["verdict"] == "harness_error" and "run.reply: unknown field 'forged'" in sent["message"]
    assert sent["stdout"] == "out" and sent["wall_seconds"] == 2.0
    protocol.SCHEMA.check("run.reply", sent)
    # For anything else: the worker's failure.
    sent = json.loads(protocol.encode_reply("compare", {"ok": True}))
    assert sent == {"ok": False, "error": "the worker's reply breaks the worker protocol: "
                                          "compare.reply: missing field 'cases'"}


def test_a_worker_refuses_a_request_the_schema_does_not_describe(tmp_path):
    worker = WorkerProcess(tmp_path)
    try:
        assert worker.ask({"op": "hello", "verbose": True}) == {"ok": False,
                                                               "error": "hello.request: unknown field 'verbose'"}
        refused = worker.ask({"op": "run", "code": "", "entry": "f", "cases": []})
        assert refused == {"ok": False, "error": "run.request: missing field 'stage'"}
        assert worker.ask({"op": "ping"})["error"] == "the worker protocol has no message 'ping.request'"
        hello = worker.ask({"op": "hello"})  # and it still serves
        protocol.SCHEMA.check("hello.reply", hello)
    finally:
        worker.close()
