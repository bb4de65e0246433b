"""A job manager's SIGTERM to every process of a job (Slurm's scancel, preemption and time limit signal the
worker and the candidate's child, not only the host) does not change a verdict: the candidate being judged
finishes and passes, and the worker serves the next one. The host alone decides when a worker ends."""
import json
import os
import signal
import time
from pathlib import Path

import pytest

from test_reply_fuzz import WorkerProcess, case, run  # noqa: F401  (case: the module's fixture)


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@pytest.fixture
def worker(tmp_path):
    process = WorkerProcess(tmp_path)
    assert process.ask({"op": "hello"})["ok"] is True
    yield process
    process.close()


def test_sigterm_to_every_process_of_the_job_changes_no_verdict(worker, case):
    # The candidate sleeps through the signal: it comes while the child runs it (the child is forked ahead).
    slow = "import time\ndef double(x):\n    time.sleep(6)\n    return x * 2\n"
    request = {"op": "run", "stage": "test", "code": slow, "entry": "double", "timeout_s": 60, "cases": [case],
               "keep_folder": False, "sandbox": "required"}  # every field the protocol's run.request has
    os.write(worker._request_write, (json.dumps(request) + "\n").encode())
    time.sleep(3)
    signalled = [worker.process.pid] + descendants(worker.process.pid)
    assert len(signalled) >= 2, "no candidate child under the worker"
    for pid in signalled:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    line = worker._replies.readline()
    assert line, "the worker died of SIGTERM"
    reply = json.loads(line)
    assert reply["ok"] is True and reply.get("verdict") in (None, "passed"), reply
    assert reply["cases"][0]["status"] == "ok", reply
    # Still serving.
    again = run(worker, case, "def double(x):\n    return x * 2\n")
    assert again.get("verdict") in (None, "passed"), again
