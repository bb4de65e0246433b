"""The errors a client raises: one class per kind of answer, each with the server's own sentence."""

from __future__ import annotations

from typing import List, Optional


class TritonGymError(Exception):
    """Base class of every error this package raises."""


class ApiError(TritonGymError):
    """The server answered with an error status ({"error": {"status", "message"}})."""

    def __init__(self, status: int, message: str, endpoint: str) -> None:
        super().__init__(f"{endpoint}: HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.endpoint = endpoint


class BadRequest(ApiError):
    """400: malformed JSON, an unknown stage, a field of the wrong type. Retrying gets the same answer."""


class Unauthorized(ApiError):
    """401: no token, or not the server's token."""


class NotFound(ApiError):
    """404: an unknown task id, evaluation id or path."""


class MethodNotAllowed(ApiError):
    """405: the path does not take this method."""


class PayloadTooLarge(ApiError):
    """413: the body or the candidate's code is above the server's limit."""


class ServerBusy(ApiError):
    """429: the server's queue is full (raised only once the retries are spent)."""


class ServerUnavailable(ApiError):
    """503: the server is starting or draining (raised only once the retries are spent)."""


class ServerError(ApiError):
    """500 and other 5xx: the server failed (raised only once the retries are spent)."""


class ConnectionLost(TritonGymError):
    """No answer: the connection was refused, dropped or timed out (raised once the retries are spent)."""


class RetriesExhausted(TritonGymError):
    """Every try failed; `tried` lists what each endpoint answered, `last` is the last error."""

    def __init__(self, message: str, tried: List[str], last: Optional[TritonGymError]) -> None:
        super().__init__(message)
        self.tried = tried
        self.last = last


_BY_STATUS = {400: BadRequest, 401: Unauthorized, 403: Unauthorized, 404: NotFound, 405: MethodNotAllowed,
              413: PayloadTooLarge, 429: ServerBusy, 503: ServerUnavailable}


def api_error(status: int, message: str, endpoint: str) -> ApiError:
    """The ApiError subclass for an HTTP status."""
    kind = _BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    return kind(status, message, endpoint)
