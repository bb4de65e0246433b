"""Every reply a worker writes is strict JSON, whatever the candidate put into it (docs/worker-protocol.md,
"Values a reply cannot carry as they are").

Replies carry values the candidate influences: its exceptions' messages, its kernels' names, what its
autotuner measured (Triton times a config that does not fit the GPU as `inf`), cases it wrote to its folder.
Python's json module writes `Infinity` and `NaN`, which are not JSON, escapes lone surrogates that the host's
parser refuses, and raises on types it does not know, on cycles and on deep nesting. `encode` first makes the
value plain and then encodes it with the strict settings, so the host always gets a reply it can parse:

- a non-finite float becomes null;
- a string is made valid UTF-8 (invalid characters replaced) and cut at MAX_STRING_CHARS;
- bytes are decoded as UTF-8 with replacement; tuples and sets become lists; dict keys become strings;
- a list or dict longer than MAX_ITEMS is cut; nesting deeper than MAX_DEPTH, a container inside itself, and
  whatever comes after MAX_VALUES values in all are cut (null);
- an integer outside 64 bits, or any other object, becomes its text (cut like a string).

Every change is said in the reply's `encoding_notes` (the JSON path and what was done), so a null is never
mistaken for a measurement. A reply that still cannot be encoded is replaced by `failed_reply`'s, which names
the reason: a harness error, never the candidate's."""
from __future__ import annotations

import json
import math
from typing import Any, Callable

MAX_STRING_CHARS = 1 << 17  # above the 64 KiB of stdout and stderr a reply carries
MAX_ITEMS = 100_000
MAX_DEPTH = 48
MAX_VALUES = 2_000_000  # values in one reply in all: past it, the rest is cut
MAX_NOTES = 50
NOTES_KEY = "encoding_notes"
_INT64 = (-(1 << 63), (1 << 64) - 1)  # what the host's parser keeps as an integer (int64 or uint64)


class _Cleaner:
    def __init__(self) -> None:
        self.notes: list[str] = []
        self.noted = 0
        self.values = 0
        self.open: set[int] = set()  # the containers being cleaned: one met again inside itself is a cycle

    def note(self, path: str, what: str) -> None:
        self.noted += 1
        if len(self.notes) < MAX_NOTES:
            where = path or "$"
            self.notes.append(f"{where if len(where) <= 200 else where[:200] + '...'}: {what}")

    def text(self, value: str, path: str) -> str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates (os.fsdecode of bytes that are not UTF-8, say)
            value = value.encode("utf-8", "replace").decode("utf-8")
            self.note(path, "characters that are not valid UTF-8 replaced")
        if len(value) > MAX_STRING_CHARS:
            self.note(path, f"string of {len(value)} characters cut to {MAX_STRING_CHARS}")
            value = value[:MAX_STRING_CHARS] + f"... ({len(value) - MAX_STRING_CHARS} more characters cut)"
        return value

    def clean(self, value: Any, path: str, depth: int) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            if self.values == MAX_VALUES + 1:
                self.note(path, f"more than {MAX_VALUES} values: the rest cut")
            return None
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            if _INT64[0] <= value <= _INT64[1]:
                return value
            self.note(path, "integer outside 64 bits written as text")
            return self.text(str(value), path)
        if isinstance(value, float):
            if math.isfinite(value):
                return value
            self.note(path, f"non-finite number {value!r} written as null")
            return None
        if isinstance(value, str):
            return self.text(value, path)
        if isinstance(value, (bytes, bytearray, memoryview)):
            return self.text(bytes(value).decode("utf-8", "replace"), path)
        if isinstance(value, (dict, list, tuple, set, frozenset)):
            if depth >= MAX_DEPTH:
                self.note(path, f"nested deeper than {MAX_DEPTH} levels: cut")
                return None
            if id(value) in self.open:
                self.note(path, "a container inside itself: cut")
                return None
            self.open.add(id(value))
            try:
                return self.container(value, path, depth)
            finally:
                self.open.discard(id(value))
        number = _plain_number(value)
        if number is not None:
            return self.clean(number, path, depth)
        self.note(path, f"{type(value).__name__} written as text")
        return self.text(_text_of(value), path)

    def container(self, value: Any, path: str, depth: int) -> Any:
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for index, (key, item) in enumerate(list(value.items())):
                if index == MAX_ITEMS:
                    self.note(path, f"{len(value) - MAX_ITEMS} of {len(value)} entries cut")
                    break
                name = key if isinstance(key, str) else _text_of(key)
                name = self.text(name, path)
                out[name] = self.clean(item, f"{path}.{name}" if path else name, depth + 1)
            return out
        items = list(value)
        if len(items) > MAX_ITEMS:
            self.note(path, f"{len(items) - MAX_ITEMS} of {len(items)} items cut")
            items = items[:MAX_ITEMS]
        return [self.clean(item, f"{path}[{index}]", depth + 1) for index, item in enumerate(items)]


def _plain_number(value: Any) -> int | float | None:
    """A numpy or torch scalar as the Python number it holds; None for anything else."""
    try:  # an object of the candidate's: its attributes and item() may do anything
        item: Callable[[], Any] | None = getattr(value, "item", None)
        if item is None or tuple(getattr(value, "shape", ()) or ()) != ():
            return None
        number = item()
    except Exception:  # noqa: BLE001
        return None
    return number if isinstance(number, (int, float)) and not isinstance(number, bool) else None


def _text_of(value: Any) -> str:
    """str(value), or its type's name where str() fails (an object of the candidate's may raise anything)."""
    try:
        text = str(value)
        return text if isinstance(text, str) else f"<{type(value).__name__}>"
    except Exception:  # noqa: BLE001
        return f"<{type(value).__name__} that cannot be written as text>"


def plain(message: Any) -> Any:
    """`message` with every value strict JSON can carry; a dict says what was changed in `encoding_notes`."""
    cleaner = _Cleaner()
    out = cleaner.clean(message, "", 0)
    if cleaner.notes and isinstance(out, dict):
        notes = list(out.get(NOTES_KEY) or []) if isinstance(out.get(NOTES_KEY), list) else []
        out[NOTES_KEY] = notes + cleaner.notes + (
            [f"... and {cleaner.noted - len(cleaner.notes)} more"] if cleaner.noted > len(cleaner.notes) else [])
    return out


def dumps(message: Any) -> str:
    """The strict JSON text of `message` made plain; raises only if even that cannot be encoded."""
    return json.dumps(plain(message), allow_nan=False)


def failed_reply(error: BaseException, run: bool) -> dict[str, Any]:
    """What a worker sends instead of a reply it could not encode: for a candidate's run, the verdict
    harness_error with the reason; for any other request, an error the host reports as the harness's."""
    reason = f"the worker could not encode its reply as JSON: {type(error).__name__}: {_text_of(error)[:500]}"
    return {"ok": True, "verdict": "harness_error", "message": reason} if run else {"ok": False, "error": reason}


def encode(message: Any, run: bool = False) -> bytes:
    """One reply as strict JSON bytes (without a newline), or `failed_reply` if it cannot be made so."""
    try:
        return dumps(message).encode("utf-8")
    except Exception as error:  # noqa: BLE001  (RecursionError, a __str__ that lies about its type, ...)
        return json.dumps(failed_reply(error, run)).encode("utf-8")
