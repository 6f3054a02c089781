"""The ASGI types every server adapter of the kit speaks (ASGI 3.0: ``scope``, ``receive``,
``send``), defined once so that the guard, auth mode and the bindings agree on them."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

__all__ = ["Scope", "Message", "Receive", "Send", "ASGIApp", "send_json"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def send_json(send: Send, status: int, body: Any, headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Answer with ``body`` as JSON (``Content-Length`` set): what the guard and auth mode
    send before any endpoint runs."""
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})
