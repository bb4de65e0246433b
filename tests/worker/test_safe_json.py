"""safe_json: every reply a worker writes is strict JSON, whatever the candidate put into it, and says what it
changed. Strict here means what the host's parser (Boost.JSON) takes: no NaN or Infinity, valid UTF-8 with no
lone surrogates, plain types only."""
import json
import math
import random

import pytest
import torch

from tritongym_worker import safe_json


def strict_loads(data: bytes):
    """Parses as the host does: refuses NaN and Infinity, and text that is not valid UTF-8 or carries a lone
    surrogate escape."""
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    text = data.decode("utf-8")  # raises on bytes that are not UTF-8
    value = json.loads(text, parse_constant=refuse)

    def walk(item):
        if isinstance(item, str):
            item.encode("utf-8")  # raises on a lone surrogate that came from a \udcxx escape
        elif isinstance(item, dict):
            for key, sub in item.items():
                walk(key)
                walk(sub)
        elif isinstance(item, list):
            for sub in item:
                walk(sub)
    walk(value)
    return value


class Unprintable:
    def __str__(self):
        raise RuntimeError("no text for you")


class LyingStr:
    def __str__(self):
        return 42  # not a str: str() raises TypeError


class WeirdItem:
    shape = ()

    def item(self):
        raise ValueError("no item")


def test_non_finite_numbers_become_null_and_are_noted():
    reply = strict_loads(safe_json.encode({"timings_us": {"BLOCK: 256": float("inf"), "BLOCK: 64": 12.5},
                                           "nan": float("nan"), "minus": -math.inf}))
    assert reply["timings_us"] == {"BLOCK: 256": None, "BLOCK: 64": 12.5}
    assert reply["nan"] is None and reply["minus"] is None
    notes = reply["encoding_notes"]
    assert any(note.startswith("timings_us.BLOCK: 256: non-finite number inf") for note in notes), notes
    assert any(note.startswith("nan: non-finite number nan") for note in notes), notes


def test_text_is_made_valid_utf8_and_long_text_is_cut():
    invalid = b"caf\xe9 \xff".decode("utf-8", "surrogateescape")  # what os.fsdecode gives for such bytes
    long = "x" * (safe_json.MAX_STRING_CHARS + 10)
    reply = strict_loads(safe_json.encode({"message": invalid, "stdout": long, "raw": b"\xff\xfeok"}))
    assert reply["message"].startswith("caf") and "\ufffd" not in reply["message"][:3]
    assert reply["raw"].endswith("ok")
    assert len(reply["stdout"]) < safe_json.MAX_STRING_CHARS + 100
    assert reply["stdout"].endswith("(10 more characters cut)")
    assert any("message: characters that are not valid UTF-8 replaced" in note for note in reply["encoding_notes"])
    assert any(note.startswith("stdout: string of") for note in reply["encoding_notes"])


def test_odd_types_become_plain_values():
    big = 1 << 70
    reply = strict_loads(safe_json.encode({
        "tuple": (1, 2), "set": {3}, "keys": {1: "a", (2, 3): "b", None: "c"}, "big": big, "tensor": torch.tensor(2.5),
        "inf_tensor": torch.tensor(float("inf")), "unprintable": Unprintable(), "lying": LyingStr(),
        "weird_item": WeirdItem(), "vector": torch.arange(3)}))
    assert reply["tuple"] == [1, 2] and reply["set"] == [3]
    assert reply["keys"] == {"1": "a", "(2, 3)": "b", "None": "c"}
    assert reply["big"] == str(big)
    assert reply["tensor"] == 2.5 and reply["inf_tensor"] is None
    assert "cannot be written as text" in reply["unprintable"]
    assert "cannot be written as text" in reply["lying"]
    assert reply["vector"] == "tensor([0, 1, 2])"


def test_deep_nesting_and_cycles_are_cut():
    deep = current = {}
    for _ in range(safe_json.MAX_DEPTH * 3):
        current["next"] = {}
        current = current["next"]
    cycle = [1]
    cycle.append(cycle)
    shared = [0]
    reply = strict_loads(safe_json.encode({"deep": deep, "cycle": cycle, "twice": [shared, shared]}))
    assert reply["cycle"] == [1, None]
    assert reply["twice"] == [[0], [0]]  # the same object twice is not a cycle
    notes = " ".join(reply["encoding_notes"])
    assert "nested deeper than" in notes and "a container inside itself" in notes


def test_a_plain_reply_is_written_as_json_would_write_it():
    message = {"ok": True, "verdict": None, "cases": [{"key": "s/seed-0", "seconds": 0.25}], "name": "ünïcode"}
    assert safe_json.encode(message) == json.dumps(message, allow_nan=False).encode()


def test_what_cannot_be_encoded_becomes_the_harness_error():
    class Exploding(dict):
        def items(self):
            raise RuntimeError("boom")

    run = strict_loads(safe_json.encode(Exploding(a=1), run=True))
    assert run["ok"] is True and run["verdict"] == "harness_error"
    assert "could not encode its reply" in run["message"] and "boom" in run["message"]
    other = strict_loads(safe_json.encode(Exploding(a=1)))
    assert other["ok"] is False and "could not encode its reply" in other["error"]


def random_value(rng: random.Random, depth: int = 0):
    """A value of the kinds a candidate can put into a reply, JSON-able or not."""
    kinds = ["int", "float", "special", "str", "surrogate", "bytes", "big", "tensor", "object"]
    if depth < 5:
        kinds += ["list", "dict", "tuple", "set"] * 2
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.randint(-(1 << 62), 1 << 62)
    if kind == "float":
        return rng.uniform(-1e300, 1e300)
    if kind == "special":
        return rng.choice([math.inf, -math.inf, math.nan, -0.0, 5e-324])
    if kind == "str":
        return "".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(rng.randint(0, 40)))
    if kind == "surrogate":
        return "".join(chr(rng.randint(0xD800, 0xDFFF)) for _ in range(rng.randint(1, 5)))
    if kind == "bytes":
        return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 40)))
    if kind == "big":
        return rng.choice([1, -1]) * (1 << rng.randint(64, 300))
    if kind == "tensor":
        return torch.tensor(rng.choice([1.5, math.inf, math.nan, 7]))
    if kind == "object":
        return rng.choice([Unprintable(), LyingStr(), WeirdItem(), object(), ValueError("x" * 10), complex(1, 2)])
    if kind == "list":
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 6))]
    if kind == "tuple":
        return tuple(random_value(rng, depth + 1) for _ in range(rng.randint(0, 6)))
    if kind == "set":
        return {rng.randint(0, 100) for _ in range(rng.randint(0, 6))}
    return {random_value(rng, 5) if rng.random() < 0.3 else f"k{index}": random_value(rng, depth + 1)
            for index in range(rng.randint(0, 6))}


@pytest.mark.parametrize("seed", range(300))
def test_random_values_always_encode_to_strict_json(seed):
    rng = random.Random(seed)
    fields = ["message", "kernels", "cases", "autotune_choices", "autotune_benchmarks", "timing", "stdout", "outlived"]
    message = {"ok": True, **{field: random_value(rng) for field in fields}}
    reply = strict_loads(safe_json.encode(message, run=True))
    assert reply["ok"] is True
    assert set(fields) <= set(reply), "a field was lost rather than made plain"
