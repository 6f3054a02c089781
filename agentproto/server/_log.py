"""The server loggers: one structured JSON line per refusal or failure (``agentproto.http``)
and the ``serve`` command's own messages (``agentproto.serve``)."""

from __future__ import annotations

import json
import logging
from typing import Any

__all__ = ["http_log", "serve_log", "log_event"]

#: Refusals of the HTTP guard and of the endpoints behind it, and failures that became a 500.
http_log = logging.getLogger("agentproto.http")
#: ``agentproto serve``: refused connections, timed-out heads and bodies.
serve_log = logging.getLogger("agentproto.serve")


def log_event(event: str, level: int = logging.INFO, **fields: Any) -> None:
    """One structured (JSON) log line ``{"event": …, **fields}`` on ``agentproto.http``.

    Refusals are INFO (a library stays quiet unless the application configures logging —
    ``agentproto serve`` does); a failure that became a 500 is ERROR."""
    http_log.log(level, json.dumps({"event": event, **fields}, ensure_ascii=True, default=str))
