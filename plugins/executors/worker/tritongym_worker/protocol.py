"""Line-delimited JSON over the two private pipe ends the host hands the worker."""
from __future__ import annotations

import json
import os
from typing import Any, Optional

from . import safe_json

REQUEST_FD = 3
REPLY_FD = 4


class Channel:
    def __init__(self, request_fd: int = REQUEST_FD, reply_fd: int = REPLY_FD) -> None:
        self._requests = os.fdopen(request_fd, "rb", buffering=0)
        self._reply_fd = reply_fd
        self._buffer = b""

    def receive(self) -> Optional[dict[str, Any]]:
        """The next request, or None when the host closed the pipe."""
        while b"\n" not in self._buffer:
            chunk = self._requests.read(1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def send(self, message: dict[str, Any], run: bool = False) -> None:
        """Writes one reply, always as strict JSON (safe_json.encode); `run`: the reply to a candidate's run,
        which becomes a harness_error verdict if it cannot be encoded."""
        data = safe_json.encode(message, run) + b"\n"
        view = memoryview(data)
        while view:
            written = os.write(self._reply_fd, view)
            view = view[written:]
