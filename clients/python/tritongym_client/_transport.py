"""One HTTP/1.1 exchange with one endpoint (http.client from the standard library)."""

from __future__ import annotations

import http.client
import json
import socket
from dataclasses import dataclass
from typing import Any, Dict, Optional


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Dict[str, str]  # lower-case names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None

    def json_object(self, address: str) -> Dict[str, Any]:
        """The body as a JSON object; a ValueError naming the endpoint when it is not one."""
        data = self.json()
        if not isinstance(data, dict):
            raise ValueError(f"{address} answered {self.status} with a body that is not a JSON object")
        return data

    def error_message(self) -> str:
        """The server's sentence ({"error": {"message"}}), else the start of the body."""
        try:
            data = self.json()
            if isinstance(data, dict) and isinstance(data.get("error"), dict):
                return str(data["error"].get("message", ""))
        except ValueError:
            pass
        return self.body[:200].decode("utf-8", "replace")


class TransportFailure(Exception):
    """No whole response. `sent` says whether the request may have reached the server."""

    def __init__(self, reason: str, sent: bool, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.sent = sent
        self.timed_out = timed_out


def split_address(address: str) -> "tuple[str, int]":
    """'host:port', '[v6]:port' or 'http://host:port' -> (host, port); ValueError for anything else."""
    text = address.strip()
    if text.startswith("https://"):
        raise ValueError(f"endpoint {address!r}: tritongym serve speaks plain HTTP; put TLS at a proxy in front of it")
    if text.startswith("http://"):
        text = text[len("http://"):]
    text = text.rstrip("/")
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"endpoint {address!r} is not host:port")
    return host, int(port)


def perform(address: str, method: str, path: str, body: Optional[bytes], token: Optional[str],
            connect_timeout: float, timeout: float) -> Reply:
    """One exchange; any HTTP status is a Reply, anything else a TransportFailure."""
    host, port = split_address(address)
    connection = http.client.HTTPConnection(host, port, timeout=connect_timeout)
    sent = False
    try:
        try:
            connection.connect()
        except (OSError, http.client.HTTPException) as error:
            raise TransportFailure(f"cannot connect: {error}", sent=False,
                                   timed_out=isinstance(error, socket.timeout)) from None
        assert connection.sock is not None
        connection.sock.settimeout(timeout)
        headers = {"Accept": "application/json", "User-Agent": "tritongym-client"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if body is not None:
            headers["Content-Type"] = "application/json"
        try:
            sent = True
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except socket.timeout:
            raise TransportFailure(f"no response within {timeout:g} s", sent=True, timed_out=True) from None
        except (OSError, http.client.HTTPException) as error:
            raise TransportFailure(f"connection lost: {error!r}", sent=sent) from None
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    finally:
        connection.close()
