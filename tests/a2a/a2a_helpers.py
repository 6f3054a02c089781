"""Helpers for the A2A tests: JSON-RPC requests and messages in wire form."""

from __future__ import annotations

from typing import Any

from agentproto.a2a.jsonrpc import JSONRPCDispatcher

#: The service parameter every A2A 1.0 request carries (spec §3.6.1).
V1 = {"A2A-Version": "1.0"}


def rpc(method: str, params: dict[str, Any] | None = None, id: int | str = 1) -> dict[str, Any]:
    """A JSON-RPC request object."""
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}


def msg(text: str = "hello", message_id: str = "m-1", **extra: Any) -> dict[str, Any]:
    """A user message in wire form."""
    return {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}], **extra}


async def call(
    dispatcher: JSONRPCDispatcher,
    method: str,
    params: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Dispatch one request; for a stream, collect every frame into ``{"frames": [...]}``."""
    out = await dispatcher.dispatch(rpc(method, params), V1 if headers is None else headers)
    if isinstance(out, dict):
        return out
    return {"frames": [frame async for frame in out]}


def error_code(response: dict[str, Any]) -> int | None:
    return response.get("error", {}).get("code")
