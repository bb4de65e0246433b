"""The candidate's pause before timing (candidate.py): the child checks its cases, says it is ready to be
timed, and waits; the fork server tells the host on its channel, in the middle of the run request, and
passes the host's answer on. The time paused is not the child's: neither its deadline nor its
wall_seconds count it. Real fork server and child processes, on the CPU (timing itself then reports that
it is unavailable, which is what the child says after the go-ahead)."""
import os
import time

import torch

from tritongym_worker.candidate import CandidateRole

CODE = "def double(x):\n    return x * 2\n"


class HostChannel:
    """The host's side of the channel, as the fork server sees it: what it sent, and an answer after a delay."""

    def __init__(self, answer, delay_s):
        self.sent, self.answer, self.delay_s = [], answer, delay_s
        self.checked = None  # what ready_to_time said of the child's cases and folder

    def send(self, message):
        assert message.pop("pid") > 0  # the child's, for the host's hold (idle_hold.hpp)
        if message.get("event") == "ready_to_time":
            self.checked = {"folder": message.pop("folder"), "cases": message.pop("cases")}
        self.sent.append(message)

    def receive(self):
        time.sleep(self.delay_s)
        return self.answer


def _run(tmp_path, answer, delay_s=0.0, timeout_s=30.0, code=CODE):
    inputs = tmp_path / "inputs" / "case.pt"
    inputs.parent.mkdir()
    torch.save({"inputs": [torch.arange(8.0)]}, inputs)
    channel = HostChannel(answer, delay_s)
    role = CandidateRole("cpu", str(tmp_path / "worker"), str(tmp_path / "worker" / "triton-cache"), 0, channel)
    request = {"code": code, "entry": "double", "timeout_s": timeout_s, "pause_before_timing": True,
               "cases": [{"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}],
               "timing": {"shapes": [{"key": "s", "sets": [str(inputs)], "recheck": []}], "target_seconds": 0.01}}
    started = time.monotonic()
    reply = role.run(request)
    return reply, channel, time.monotonic() - started


def test_the_child_pauses_once_and_goes_on_when_the_host_says_time(tmp_path):
    reply, channel, elapsed = _run(tmp_path, {"op": "time"}, delay_s=1.0)
    assert channel.sent == [{"ok": True, "event": "ready_to_time"}]
    assert reply.get("verdict") is None, reply
    assert [case["status"] for case in reply["cases"]] == ["ok"]
    assert "unavailable" in reply["timing"]["error"]  # went on to time: no GPU here
    assert reply["wall_seconds"] < elapsed - 0.9  # the second it waited for the host is not the child's


def test_anything_but_time_skips_timing(tmp_path):
    reply, channel, _ = _run(tmp_path, None)
    assert channel.sent == [{"ok": True, "event": "ready_to_time"}]
    assert reply["timing"] == {"error": "the host did not let the candidate be timed"}


def test_the_pause_does_not_count_against_the_deadline(tmp_path):
    reply, channel, elapsed = _run(tmp_path, {"op": "time"}, delay_s=3.0, timeout_s=2.5)
    assert elapsed > 3.0
    assert reply.get("verdict") is None, reply  # not a timeout: the child itself took well under 2.5 s


def test_ready_to_time_carries_the_cases_the_host_compares_before_timing(tmp_path):
    reply, channel, _ = _run(tmp_path, None)
    assert channel.checked["folder"] == reply["folder"]  # where the case's output file is, while the child waits
    assert channel.checked["cases"] == reply["cases"]
    assert channel.checked["cases"][0]["key"] == "s/seed-0" and channel.checked["cases"][0]["status"] == "ok"


def test_a_child_that_kept_its_cases_from_being_written_says_nothing_of_them_and_is_timed_as_before(tmp_path):
    code = ("import os\n"
            "def double(x):\n"
            "    os.makedirs('checked.json', exist_ok=True)  # where the harness writes its cases before the pause\n"
            "    return x * 2\n")
    reply, channel, _ = _run(tmp_path, {"op": "time"}, code=code)
    assert channel.checked == {"folder": reply["folder"], "cases": None}
    assert reply.get("verdict") is None, reply
    assert "unavailable" in reply["timing"]["error"]  # went on to time: no GPU here


def test_a_pipe_or_a_link_in_place_of_what_it_checked_is_not_read(tmp_path):
    # What the candidate's code could put there between the harness's write and the fork server's read: a pipe
    # would block the read, a link could point anywhere. Neither is read (the candidate is then timed as before).
    from tritongym_worker.candidate import CHECKED_FILE, _checked_cases

    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / CHECKED_FILE).write_text('[{"key": "s/seed-0", "status": "ok"}]')
    assert _checked_cases(str(tmp_path / "plain")) == [{"key": "s/seed-0", "status": "ok"}]
    (tmp_path / "pipe").mkdir()
    os.mkfifo(tmp_path / "pipe" / CHECKED_FILE)
    started = time.monotonic()
    assert _checked_cases(str(tmp_path / "pipe")) is None
    assert time.monotonic() - started < 1.0
    (tmp_path / "link").mkdir()
    os.symlink(tmp_path / "plain" / CHECKED_FILE, tmp_path / "link" / CHECKED_FILE)
    assert _checked_cases(str(tmp_path / "link")) is None
    (tmp_path / "not-a-list").mkdir()
    (tmp_path / "not-a-list" / CHECKED_FILE).write_text('{"key": "s/seed-0"}')
    assert _checked_cases(str(tmp_path / "not-a-list")) is None
