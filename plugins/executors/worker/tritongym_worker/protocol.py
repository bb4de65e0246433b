"""The worker protocol: line-delimited JSON over the two private pipe ends the host hands the worker, every
message checked against protocol.json, the one schema the executor checks the same messages against
(worker_protocol.cpp). A request or reply with a field the schema does not list, without a field it requires, or
with a value of another type is refused with the message's name and the field's path."""
from __future__ import annotations

import json
import os
from typing import Any, Optional

from . import safe_json

REQUEST_FD = 3
REPLY_FD = 4
TURN_FD = 5  # a candidate worker's turn socket (gpu_turns.py), when the host gives it one
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "protocol.json")
# The requests whose reply is a candidate's run: a reply that cannot be sent as it is becomes the verdict harness_error
# rather than the worker's failure.
RUN_OPS = ("run",)


class ProtocolError(ValueError):
    """A message that does not match its type in protocol.json; str() names the message type and the field."""


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


class Schema:
    """protocol.json, parsed: for each message type and record, its fields as {name: (type, required)}."""

    def __init__(self, document: dict[str, Any]) -> None:
        def fields(spec: dict[str, str]) -> dict[str, tuple[str, bool]]:
            return {name.rstrip("?"): (kind, not name.endswith("?")) for name, kind in spec.items()}

        self.records = {name: fields(spec) for name, spec in document["records"].items()}
        every_reply = fields(document.get("every_reply", {}))
        self.messages = {}
        for name, spec in document["messages"].items():
            declared = fields(spec)
            if not name.endswith(".request"):
                declared = {**every_reply, **declared}
            self.messages[name] = declared

    @classmethod
    def load(cls, path: str = SCHEMA_PATH) -> "Schema":
        with open(path, encoding="utf-8") as handle:
            return cls(json.load(handle))

    def check(self, message_type: str, message: Any) -> None:
        """Raises ProtocolError unless `message` is a `message_type` (e.g. "run.request") as protocol.json says."""
        declared = self.messages.get(message_type)
        if declared is None:
            raise ProtocolError(f"the worker protocol has no message '{message_type}'")
        if not isinstance(message, dict):
            raise ProtocolError(f"{message_type}: expected an object, got {_kind(message)}")
        self._fields(message_type, declared, message, "")

    def _fields(self, message_type: str, declared: dict[str, tuple[str, bool]], value: dict[str, Any],
                path: str) -> None:
        for key in value:
            if key not in declared:
                raise ProtocolError(f"{message_type}: unknown field '{path}{key}'")
        for key, (kind, required) in declared.items():
            if key in value:
                self._value(message_type, kind, value[key], path + key)
            elif required:
                raise ProtocolError(f"{message_type}: missing field '{path}{key}'")

    def _value(self, message_type: str, kind: str, value: Any, path: str) -> None:
        if kind.endswith("|null"):
            if value is None:
                return
            kind = kind[: -len("|null")]
        fits = True
        if kind == "any":
            return
        if kind == "string":
            fits = isinstance(value, str)
        elif kind == "integer":
            fits = isinstance(value, int) and not isinstance(value, bool)
        elif kind == "number":  # null: a float that was not finite (safe_json.py)
            fits = value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))
        elif kind == "boolean":
            fits = isinstance(value, bool)
        elif kind == "object":
            fits = isinstance(value, dict)
        elif kind.startswith("list<"):
            fits = isinstance(value, (list, tuple))
            if fits:
                for index, item in enumerate(value):
                    self._value(message_type, kind[5:-1], item, f"{path}[{index}]")
        elif kind.startswith("map<"):
            fits = isinstance(value, dict)
            if fits:
                for key, item in value.items():
                    self._value(message_type, kind[4:-1], item, f"{path}.{key}")
        elif kind in self.records:
            fits = isinstance(value, dict)
            if fits:
                self._fields(message_type, self.records[kind], value, path + ".")
        else:
            raise ProtocolError(f"{message_type}: field '{path}' has the type '{kind}', which protocol.json "
                                "does not define")
        if not fits:
            raise ProtocolError(f"{message_type}: field '{path}' is {_kind(value)}, expected {kind}")


SCHEMA = Schema.load()


def request_type(request: Any) -> str:
    """The message type of a request: "<op>.request"."""
    op = request.get("op") if isinstance(request, dict) else None
    return f"{op}.request" if isinstance(op, str) else "request"


def reply_type(op: str, reply: Any) -> str:
    """The message type of the reply to a request of `op`: "error.reply" (ok: false), or "<op>.reply"."""
    if isinstance(reply, dict) and reply.get("ok") is False:
        return "error.reply"
    return f"{op}.reply"


def check_request(request: Any) -> None:
    if request_type(request) == "request":
        raise ProtocolError("request: expected an object with a string field 'op'")
    SCHEMA.check(request_type(request), request)


def failed_run(message: str, reply: Any = None) -> dict[str, Any]:
    """The reply to a run that cannot be sent as it is: the verdict harness_error, saying why, with the child's
    output and folder when the original has them."""
    original = reply if isinstance(reply, dict) else {}
    out: dict[str, Any] = {"ok": True, "verdict": "harness_error", "message": message}
    for key, kind, default in (("stdout", str, ""), ("stderr", str, ""), ("folder", str, ""),
                               ("wall_seconds", float, 0.0)):
        value = original.get(key)
        out[key] = value if isinstance(value, kind) else default
    return out


def encode_reply(op: str, reply: Any) -> bytes:
    """One reply as strict JSON bytes (safe_json.plain), checked against its type in protocol.json. A reply that
    cannot be encoded or breaks the protocol is replaced: for a run, by the verdict harness_error naming why; for
    any other request, by {ok: false, error}."""
    run = op in RUN_OPS
    try:
        plain = safe_json.plain(reply)
        SCHEMA.check(reply_type(op, plain), plain)
        return json.dumps(plain, allow_nan=False).encode("utf-8")
    except ProtocolError as error:
        reason = f"the worker's reply breaks the worker protocol: {error}"
    except Exception as error:  # noqa: BLE001  (RecursionError, a __str__ that lies about its type, ...)
        reason = safe_json.failed_reply(error, run)["message" if run else "error"]
    return json.dumps(failed_run(reason, reply) if run else {"ok": False, "error": reason}).encode("utf-8")


class Channel:
    def __init__(self, request_fd: int = REQUEST_FD, reply_fd: int = REPLY_FD) -> None:
        self._requests = os.fdopen(request_fd, "rb", buffering=0)
        self._reply_fd = reply_fd
        self._buffer = b""

    def receive(self) -> Optional[Any]:
        """The next request as it was sent (check it with check_request), or None when the host closed the pipe."""
        while b"\n" not in self._buffer:
            chunk = self._requests.read(1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def send(self, message: dict[str, Any], op: str) -> None:
        """Writes one reply to a request of `op`, always as strict JSON of its type (encode_reply)."""
        data = encode_reply(op, message) + b"\n"
        view = memoryview(data)
        while view:
            written = os.write(self._reply_fd, view)
            view = view[written:]
