"""The candidate fork server forks each child before its request comes (candidate.py, `_Spare`): the child
readies itself (on CUDA: its context, CUPTI and the integrity snapshot) while the fork server waits, then runs
the request it is sent. Real fork server and children on the CPU."""
import os
import signal
import time

from one_case import request as _request
from one_case import role as _role

REPORTS = '''
import os


def double(x):
    print("pid", os.getpid())
    try:
        os.fstat(SENTINEL)
        print("sentinel open")
    except OSError:
        print("sentinel closed")
    return x * 2
'''


def _alive(pid):
    try:
        finished, _ = os.waitpid(pid, os.WNOHANG)
        return finished == 0
    except ChildProcessError:
        return False


def test_the_child_that_runs_a_request_was_forked_before_it(tmp_path):
    role = _role(tmp_path)
    try:
        first = role.run(_request(tmp_path, REPORTS.replace("SENTINEL", "0")))
        assert first.get("verdict") is None, first
        spare = role._spare.pid
        assert _alive(spare)  # forked after the first request, waiting for the next
        second = role.run(_request(tmp_path, REPORTS.replace("SENTINEL", "0")))
        assert f"pid {spare}" in second["stdout"]
        assert second["phases"]["ahead"] >= 0.0
    finally:
        role.close()


def test_a_candidate_sees_none_of_the_fork_servers_descriptors(tmp_path):
    # Like the host's channel (fds 3 and 4 in a worker): open in the fork server, closed in every child.
    sentinel = os.open(os.devnull, os.O_WRONLY)
    role = _role(tmp_path)
    try:
        reply = role.run(_request(tmp_path, REPORTS.replace("SENTINEL", str(sentinel))))
        assert reply.get("verdict") is None, reply
        assert "sentinel closed" in reply["stdout"], reply["stdout"]
        assert os.fstat(sentinel)  # still open here
    finally:
        role.close()
        os.close(sentinel)


def test_a_spare_that_died_is_replaced(tmp_path):
    role = _role(tmp_path)
    try:
        role.run(_request(tmp_path, REPORTS.replace("SENTINEL", "0")))
        dead = role._spare.pid
        os.kill(dead, signal.SIGKILL)
        time.sleep(0.2)
        reply = role.run(_request(tmp_path, REPORTS.replace("SENTINEL", "0")))
        assert reply.get("verdict") is None, reply
        assert f"pid {dead}" not in reply["stdout"]
    finally:
        role.close()


def test_closing_the_role_ends_its_spare(tmp_path):
    role = _role(tmp_path)
    role.run(_request(tmp_path, REPORTS.replace("SENTINEL", "0")))
    spare = role._spare.pid
    role.close()
    assert not _alive(spare)


class _SlowAhead:
    """What a spare readies, taking half a second (on CUDA, creating a context is the GPU work that must not fall in
    another candidate's turn alone), and noting when it finished."""

    def __init__(self, device):
        time.sleep(0.5)
        self.turns = self.autotune = self.tuning = self.shims = self.frontends = self.guard = None
        self.seconds = 0.5
        with open(os.path.join(os.environ["READIED_IN"], str(os.getpid())), "w") as out:
            out.write(repr(time.time()))


def test_a_run_is_answered_only_once_the_next_spare_has_readied_itself(tmp_path, monkeypatch):
    import tritongym_worker.candidate_child as candidate

    readied = tmp_path / "readied"
    readied.mkdir()
    monkeypatch.setenv("READIED_IN", str(readied))
    monkeypatch.setattr(candidate, "_Ahead", _SlowAhead)  # forked children inherit it
    role = _role(tmp_path)
    try:
        reply = role.run(_request(tmp_path, REPORTS.replace("SENTINEL", "0")))
        answered = time.time()
        assert reply.get("verdict") is None, reply
        spare = role._spare.pid  # forked at the end of the run, for the next request
        mark = readied / str(spare)
        assert mark.exists()  # it had readied itself before run() returned
        assert float(mark.read_text()) <= answered
        assert _alive(spare)
    finally:
        role.close()
