"""A candidate's child may not signal processes outside its own Landlock domain (sandbox.confine): not the GPU's
sampler, a worker or another evaluation's child, though all run under the same user. Its own children stay its
to signal. Real fork server and child on the CPU, sandboxed as on a GPU."""
import signal
import subprocess

import pytest

from one_case import request
from one_case import role as fork_server
from tritongym_worker.sandbox import landlock_abi

pytestmark = pytest.mark.skipif(landlock_abi() < 6, reason=f"Landlock ABI {landlock_abi()} cannot scope signals (needs 6)")

SIGNALS = '''
import os
import signal
import subprocess


def double(x):
    for number in (signal.SIGSTOP, signal.SIGKILL):  # not its fork server: here that is the test's own process
        try:
            os.kill(VICTIM, number)
            print("victim", number.name, "sent")
        except PermissionError:
            print("victim", number.name, "refused")
    own = subprocess.Popen(["sleep", "30"])
    own.kill()
    print("own child", own.wait())
    return x * 2
'''


def test_a_candidate_cannot_signal_other_processes_but_can_signal_its_own_children(tmp_path):
    victim = subprocess.Popen(["sleep", "60"])  # stands for the sampler: a process of the same user
    role = fork_server(tmp_path)
    try:
        reply = role.run(request(tmp_path, SIGNALS.replace("VICTIM", str(victim.pid))))
        assert reply.get("verdict") is None, reply
        assert ": files, signals;" in reply["sandbox"], reply["sandbox"]
        for line in ("victim SIGSTOP refused", "victim SIGKILL refused", f"own child {-signal.SIGKILL}"):
            assert line in reply["stdout"], reply["stdout"]
        assert victim.poll() is None
        with open(f"/proc/{victim.pid}/stat") as stat:
            assert stat.read().split(") ")[1][0] == "S"  # asleep, not stopped
        # The fork server still serves: a second candidate runs.
        again = role.run(request(tmp_path, "def double(x):\n    return x * 2\n"))
        assert again.get("verdict") is None, again
    finally:
        role.close()
        victim.kill()
        victim.wait()
