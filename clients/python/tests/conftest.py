"""Real `tritongym serve` processes on loopback for the client's tests (interpreter executor, one worker each).

The CLI is TRITONGYM_CLI, else <checkout>/build/bin/tritongym. Each server is killed when its test (or module) ends.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator, List, Optional

import pytest

CHECKOUT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(CHECKOUT / "clients" / "python"))


def cli() -> str:
    path = os.environ.get("TRITONGYM_CLI") or str(CHECKOUT / "build" / "bin" / "tritongym")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no tritongym CLI at {path}: build it, or set TRITONGYM_CLI")
    return path


class Server:
    """`tritongym serve --listen 127.0.0.1:0` with `extra` arguments; `endpoint` once it listens."""

    def __init__(self, tmp: Path, name: str, extra: List[str], env: Optional[dict] = None) -> None:
        self.stderr_path = tmp / f"{name}.stderr"
        stdout_path = tmp / f"{name}.stdout"
        with open(stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.process = subprocess.Popen(
                [cli(), "serve", "--listen", "127.0.0.1:0", "--executor", "tritongym.executor.triton-interpreter",
                 "--executor-config", json.dumps({"workers": 1}), *extra],
                cwd=CHECKOUT, stdout=out, stderr=err, env={**os.environ, **(env or {})}, start_new_session=True)
        found = None
        deadline = time.monotonic() + 120
        while found is None and time.monotonic() < deadline and self.process.poll() is None:
            found = re.match(r"listening on 127\.0\.0\.1:(\d+)", stdout_path.read_text(errors="replace"))
            time.sleep(0.05)
        if not found:
            self.kill()
            pytest.fail(f"{name} did not say where it listens: {stdout_path.read_text()!r} {self.stderr()}")
        self.endpoint = f"127.0.0.1:{found.group(1)}"

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def health(self) -> Optional[dict]:
        try:
            with urllib.request.urlopen(f"http://{self.endpoint}/v1/health", timeout=5) as response:
                return json.loads(response.read())
        except (OSError, ValueError):
            return None

    def wait_ready(self, limit_s: float = 300.0) -> None:
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            if (self.health() or {}).get("status") == "ready":
                return
            if self.process.poll() is not None:
                pytest.fail(f"the server ended ({self.process.returncode}): {self.stderr()}")
            time.sleep(0.2)
        pytest.fail(f"the server was not ready within {limit_s:g} s: {self.stderr()}")

    def metric(self, line_start: str) -> float:
        """The value of the first /metrics line that starts with `line_start` (0 when there is none)."""
        with urllib.request.urlopen(f"http://{self.endpoint}/metrics", timeout=5) as response:
            for line in response.read().decode().splitlines():
                if line.startswith(line_start):
                    return float(line.rsplit(" ", 1)[1])
        return 0.0

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One worker and a queue of one: a third evaluation at once is answered 429."""
    started = Server(tmp_path_factory.mktemp("serve"), "server", ["--queue", "1", "--max-code-bytes", "20000"])
    started.wait_ready()
    yield started
    started.kill()


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator:
    made: List[Server] = []

    def make(name: str, extra: Optional[List[str]] = None, env: Optional[dict] = None) -> Server:
        made.append(Server(tmp_path, name, extra or [], env))
        return made[-1]

    yield make
    for started in made:
        started.kill()


ORACLE = (CHECKOUT / "tasks" / "standard" / "vector-add" / "oracle.py").read_text()
WRONG = "def vector_add(x, y):\n    return x - y\n"
TASK = "standard/vector-add"
