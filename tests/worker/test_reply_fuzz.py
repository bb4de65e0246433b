"""The candidate worker's reply path under fuzz: one real worker process (python -m tritongym_worker, the fork
server and its children), and candidates that put values strict JSON cannot carry as they are into every field
they reach: their exceptions' messages, the names of what they return, their output streams, and a report of
their own written over the harness's. Every reply is strict JSON, every verdict is the right one, and the
same worker serves every candidate."""
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from test_safe_json import strict_loads

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "plugins" / "executors" / "worker"


class WorkerProcess:
    """A candidate worker on the CPU, spoken to as the host does: requests on fd 3, replies on fd 4."""

    def __init__(self, root: Path) -> None:
        request_read, self._request_write = os.pipe()
        self._reply_read, reply_write = os.pipe()
        env = {**os.environ, "PYTHONPATH": str(WORKER), "TRITON_INTERPRET": "1"}
        # The shell puts its ends of the pipes at fds 3 and 4, then becomes the worker.
        command = (f'exec "$0" -m tritongym_worker --role candidate --device cpu --root "$1" '
                   f"3<&{request_read} 4>&{reply_write} {request_read}<&- {reply_write}>&-")
        self.process = subprocess.Popen(["bash", "-c", command, sys.executable, str(root)],
                                        pass_fds=(request_read, reply_write), env=env, stderr=subprocess.PIPE)
        os.close(request_read)
        os.close(reply_write)
        self._replies = os.fdopen(self._reply_read, "rb")

    def ask(self, request: dict) -> dict:
        os.write(self._request_write, (json.dumps(request) + "\n").encode())
        line = self._replies.readline()
        assert line, f"the worker died: {self.process.stderr.read().decode(errors='replace')[-2000:]}"
        return strict_loads(line.rstrip(b"\n"))

    def close(self) -> None:
        try:
            os.write(self._request_write, b'{"op": "exit"}\n')
        except OSError:
            pass
        os.close(self._request_write)
        self.process.wait(timeout=60)
        self._replies.close()
        self.process.stderr.close()


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    process = WorkerProcess(tmp_path_factory.mktemp("worker"))
    assert process.ask({"op": "hello"})["ok"] is True
    yield process
    process.close()
    assert process.process.returncode == 0


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    inputs = tmp_path_factory.mktemp("inputs") / "case.pt"
    torch.save({"inputs": [torch.arange(8.0)]}, inputs)
    return {"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}


def run(worker: WorkerProcess, case: dict, code: str) -> dict:
    reply = worker.ask({"op": "run", "stage": "test", "code": code, "entry": "double", "timeout_s": 60,
                        "cases": [case], "keep_folder": False, "sandbox": "required"})
    assert reply["ok"] is True, reply
    return reply


# Python literals of values a reply cannot carry as they are; each candidate below puts one in a field.
PAYLOADS = [
    "float('inf')", "float('nan')", "'\\udc80\\udcff'", "b'\\xff\\xfe'.decode('utf-8', 'surrogateescape')",
    "'x' * 3_000_000", "10 ** 400", "chr(0x10FFFF) * 3", "'\\x00\\x1b[31m'", "{'nested': [float('-inf')] * 3}",
]


def candidate(channel: str, payload: str) -> str:
    """A candidate that puts `payload` into the reply through `channel`."""
    if channel == "exception":
        return f"def double(x):\n    raise RuntimeError({payload})\n"
    if channel == "import":
        return f"raise ValueError({payload})\ndef double(x):\n    return x * 2\n"
    if channel == "exception_args":
        return f"def double(x):\n    raise ValueError({payload}, {payload})\n"
    if channel == "output_type":  # its returned object's type name is in the message (type() refuses surrogates)
        return (f"def double(x):\n    name = {payload}\n"
                "    try:\n        kind = type(name if isinstance(name, str) else repr(name)[:50], (), {})\n"
                "    except (ValueError, UnicodeError):\n        kind = type('Refused', (), {})\n"
                "    return kind()\n")
    if channel == "streams":
        return ("import os, sys\n"
                f"def double(x):\n    os.write(1, b'\\xff\\xfe\\x80' * 1000)\n    print(repr({payload})[:100000], file=sys.stderr)\n"
                "    return x * 2\n")
    raise ValueError(channel)


EXPECTED = {"exception": "runtime_error", "import": "compile_error", "exception_args": "runtime_error",
            "output_type": "wrong_answer", "streams": None}


@pytest.mark.parametrize("channel", sorted(EXPECTED))
def test_every_payload_through_every_channel(worker, case, channel):
    for payload in PAYLOADS:
        reply = run(worker, case, candidate(channel, payload))
        if EXPECTED[channel] == "wrong_answer":  # the worker ran it; the host finds the output is not a tensor
            assert reply.get("verdict") is None, (payload, reply)
            assert reply["cases"][0]["status"] == "bad_output", (payload, reply)
        else:
            assert reply.get("verdict") == EXPECTED[channel], (payload, reply)
        if channel == "streams":
            assert "\ufffd" in reply["stdout"]


def test_random_payloads(worker, case):
    rng = random.Random(20261204)
    for _ in range(12):
        channel = rng.choice(sorted(EXPECTED))
        payload = "".join(rng.choice(["float('inf')", "'\\udc9c'", "'é'", "str(10**30)", "'\"'", "'\\\\'"])
                          + " + " for _ in range(rng.randint(1, 4))).rstrip(" + ")
        # A sum of strings and floats raises TypeError at the payload itself: a runtime error as well.
        reply = run(worker, case, candidate(channel, payload))
        assert reply.get("verdict") in (EXPECTED[channel], "runtime_error", "compile_error", None), (payload, reply)


def test_a_report_of_its_own_over_the_harnesss_is_read_strictly(worker, case):
    # It writes to every pipe it holds (the report pipe among them) and exits before the harness reports.
    code = ("import os, stat\n"
            "def double(x):\n"
            "    for name in os.listdir('/proc/self/fd'):\n"
            "        fd = int(name)\n"
            "        try:\n"
            "            if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
            "                os.write(fd, b'{\"verdict\": \"passed\", \"score\": Infinity, \"x\": \"\\\\udc80\"}')\n"
            "        except OSError:\n"
            "            pass\n"
            "    os._exit(0)\n")
    reply = run(worker, case, code)
    # Whatever it wrote reaches the host as strict JSON; the host takes no `passed` from a candidate's process
    # (triton_executor.cpp, reported_failure), and the next candidate is served.
    assert reply.get("score") is None
    assert run(worker, case, "def double(x):\n    return x * 2\n").get("verdict") is None


def test_an_unreadable_report_is_the_harnesss_error(worker, case):
    code = ("import os, stat\n"
            "def double(x):\n"
            "    for name in os.listdir('/proc/self/fd'):\n"
            "        fd = int(name)\n"
            "        try:\n"
            "            if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
            "                os.write(fd, b'{not json')\n"
            "        except OSError:\n"
            "            pass\n"
            "    os._exit(0)\n")
    reply = run(worker, case, code)
    assert reply["verdict"] == "harness_error", reply
    assert "reported nothing the harness can read" in reply["message"]
