"""tritongym_client: judge Triton kernels at `tritongym serve` endpoints (docs/serve.md in TritonGym).

    from tritongym_client import Client
    client = Client(["gpu1:8000", "gpu2:8000"])
    result = client.evaluate("standard/softmax", open("softmax.py").read(), stage="benchmark")
    print(result.verdict, result.speedup())
"""

from ._endpoints import RetryPolicy
from .async_client import AsyncClient
from .client import STAGES, Client, Submitted
from .errors import (ApiError, BadRequest, ConnectionLost, MethodNotAllowed, NotFound, PayloadTooLarge,
                     RetriesExhausted, ServerBusy, ServerError, ServerUnavailable, TritonGymError, Unauthorized)
from .results import VERDICTS, Evaluation, ShapeResult, Timing

__all__ = ["AsyncClient", "Client", "RetryPolicy", "STAGES", "Submitted", "VERDICTS", "Evaluation", "ShapeResult",
           "Timing", "ApiError", "BadRequest", "ConnectionLost", "MethodNotAllowed", "NotFound", "PayloadTooLarge",
           "RetriesExhausted", "ServerBusy", "ServerError", "ServerUnavailable", "TritonGymError", "Unauthorized"]
__version__ = "0.1.0"
