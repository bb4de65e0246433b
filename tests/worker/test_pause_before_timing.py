"""The candidate's pause before timing (candidate_child.py, gpu_turns.py): the child checks its cases, says it is
ready to be timed on the turn socket, straight to the host (here the stand-in of turn_host.py), and waits for its
answer. The time paused is not the child's: neither its deadline nor its wall_seconds count it. Real fork server and
child processes, on the CPU (timing itself then reports that it is unavailable, which is what the child says after
the go-ahead)."""
import os
import time

import torch

from tritongym_worker.candidate import CandidateRole
from turn_host import TurnHost

CODE = "def double(x):\n    return x * 2\n"


def _run(tmp_path, be_timed, delay_s=0.0, timeout_s=30.0, code=CODE):
    inputs = tmp_path / "inputs" / "case.pt"
    inputs.parent.mkdir()
    torch.save({"inputs": [torch.arange(8.0)]}, inputs)
    host = TurnHost(str(tmp_path / "worker"), be_timed=be_timed, delays={"ready_to_time": delay_s})
    role = CandidateRole("cpu", str(tmp_path / "worker"), str(tmp_path / "worker" / "triton-cache"), 0,
                         host.worker_fd)
    request = {"code": code, "entry": "double", "timeout_s": timeout_s, "pause_before_timing": True,
               "cases": [{"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}],
               "timing": {"shapes": [{"key": "s", "sets": [str(inputs)], "recheck": []}], "target_seconds": 0.01}}
    started = time.monotonic()
    try:
        reply = role.run(request)
    finally:
        role.close()
        host.close()
    return reply, host, time.monotonic() - started


def test_the_child_pauses_once_and_goes_on_when_the_host_says_time(tmp_path):
    reply, host, elapsed = _run(tmp_path, True, delay_s=1.0)
    assert host.sent == ["ready_to_time"]
    assert host.pids[0] not in (0, os.getpid())  # the child's, as the fork server named it (idle_hold.hpp)
    assert reply.get("verdict") is None, reply
    assert [case["status"] for case in reply["cases"]] == ["ok"]
    assert "unavailable" in reply["timing"]["error"]  # went on to time: no GPU here
    assert reply["wall_seconds"] < elapsed - 0.9  # the second it waited for the host is not the child's


def test_a_no_skips_timing(tmp_path):
    reply, host, _ = _run(tmp_path, False)
    assert host.sent == ["ready_to_time"]
    assert reply["timing"] == {"error": "the host did not let the candidate be timed"}


def test_the_pause_does_not_count_against_the_deadline(tmp_path):
    reply, host, elapsed = _run(tmp_path, True, delay_s=3.0, timeout_s=2.5)
    assert elapsed > 3.0
    assert reply.get("verdict") is None, reply  # not a timeout: the child itself took well under 2.5 s


def test_ready_to_time_carries_the_cases_the_host_compares_before_timing(tmp_path):
    reply, host, _ = _run(tmp_path, False)
    # The fork server names the child's folder; the host reads the cases the child wrote there while it waits.
    assert host.checked["folder"] == reply["folder"]  # where the case's output file is, while the child waits
    assert host.checked["cases"] == reply["cases"]
    assert host.checked["cases"][0]["key"] == "s/seed-0" and host.checked["cases"][0]["status"] == "ok"


def test_a_child_that_kept_its_cases_from_being_written_says_nothing_of_them_and_is_timed_as_before(tmp_path):
    code = ("import os\n"
            "def double(x):\n"
            "    os.makedirs('checked.json', exist_ok=True)  # where the harness writes its cases before the pause\n"
            "    return x * 2\n")
    reply, host, _ = _run(tmp_path, True, code=code)
    assert host.checked == {"folder": reply["folder"], "cases": None}
    assert reply.get("verdict") is None, reply
    assert "unavailable" in reply["timing"]["error"]  # went on to time: no GPU here


def test_an_untimed_run_gives_the_child_no_turn_socket(tmp_path):
    # Without the pause the child closes the socket before it imports the candidate: it can say nothing to the host.
    code = ("import os, stat\n"
            "def _socket(fd):\n"
            "    try:\n"
            "        return stat.S_ISSOCK(os.fstat(fd).st_mode)\n"
            "    except OSError:  # the listing's own descriptor\n"
            "        return False\n"
            "SOCKETS = [int(n) for n in os.listdir('/proc/self/fd') if int(n) > 2 and _socket(int(n))]\n"
            "def double(x):\n"
            "    print('sockets', SOCKETS)\n"
            "    return x * 2\n")
    inputs = tmp_path / "inputs" / "case.pt"
    inputs.parent.mkdir()
    torch.save({"inputs": [torch.arange(8.0)]}, inputs)
    host = TurnHost(str(tmp_path / "worker"))
    role = CandidateRole("cpu", str(tmp_path / "worker"), str(tmp_path / "worker" / "triton-cache"), 0,
                         host.worker_fd)
    try:
        reply = role.run({"code": code, "entry": "double", "timeout_s": 30,
                          "cases": [{"key": "s/seed-0", "inputs": str(inputs), "output": "out-0.pt"}]})
    finally:
        role.close()
        host.close()
    assert reply.get("verdict") is None, reply
    assert "sockets []" in reply["stdout"], reply["stdout"]
    assert host.sent == [] and host.ignored == []
