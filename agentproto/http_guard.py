"""The HTTP front door both servers share: an ASGI middleware that refuses what a browser or a
hostile client could do to a loopback server *before* any endpoint runs.

=====================================  =====  ==============================================
check (in order)                       HTTP   body ``{"error": {"code": …}}``
=====================================  =====  ==============================================
``Host`` missing, repeated, malformed  400    ``bad_host`` (RFC 9112 §3.2, RFC 3986 §3.2.2)
``Host`` not on the allow-list         421    ``host_not_allowed`` (DNS rebinding)
``Origin`` present, not configured     403    ``origin_not_allowed`` (cross-site request)
preflight from a configured origin     204    CORS headers for that origin only
POST to a JSON endpoint, wrong type    415    ``unsupported_media_type`` (no "simple" POST)
body larger than ``max_body_bytes``    413    ``body_too_large``
an endpoint raised                     500    ``internal_error`` + ``Connection: close``
=====================================  =====  ==============================================

The allow-list holds the loopback names (``127.0.0.1``, ``localhost``, ``::1``), the address
the server is bound to, and any configured names; an ``Origin`` is accepted only if it is
listed in ``allowed_origins`` (exact ``scheme://host[:port]``). Every refusal and every
failure is logged as one JSON line on the ``agentproto.http`` logger. ``max_body_bytes``
defaults to :data:`agentproto.limits.MAX_BODY_BYTES` (1 MB), the budget every binding shares.

``Host`` is parsed strictly (:func:`parse_host`): a reg-name, an IPv4 address or an ``[IPv6]``
literal, then optionally ``:`` and digits — nothing else (no userinfo, path, fragment or text
after a ``]``). A guard that wraps another app applies once: when an outer guard with the same
configuration already passed a request (auth mode puts the guard in front of the bearer
check, so that CORS preflights and foreign origins are answered before any token is asked
for), the inner one lets it straight through.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

from agentproto import limits

__all__ = ["HTTPGuard", "GuardConfig", "LOOPBACK_HOSTS", "log_event", "parse_host", "socket_base_url"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
log = logging.getLogger("agentproto.http")


def log_event(event: str, level: int = logging.INFO, **fields: Any) -> None:
    """One structured (JSON) log line ``{"event": …, **fields}`` on ``agentproto.http``.

    Refusals are INFO (a library stays quiet unless the application configures logging —
    ``agentproto serve`` does); a failure that became a 500 is ERROR."""
    log.log(level, json.dumps({"event": event, **fields}, ensure_ascii=True, default=str))


@dataclass(frozen=True)
class GuardConfig:
    """What :class:`HTTPGuard` lets through (see the module table)."""

    allowed_hosts: frozenset[str] = LOOPBACK_HOSTS
    allowed_origins: frozenset[str] = frozenset()
    json_paths: tuple[str, ...] = ()
    #: JSON paths that speak JSON-RPC: their refusal is a JSON-RPC error object
    #: (-32005 ContentTypeNotSupported, A2A §5.4) so a JSON-RPC client can read it.
    jsonrpc_paths: tuple[str, ...] = ()
    max_body_bytes: int = limits.MAX_BODY_BYTES  # the one input budget of both protocols
    cors_headers: str = "authorization, content-type, a2a-version, a2a-extensions, accept"

    @classmethod
    def build(
        cls,
        *,
        hosts: Iterable[str] = (),
        origins: Iterable[str] = (),
        json_paths: Iterable[str] = (),
        jsonrpc_paths: Iterable[str] = (),
        max_body_bytes: int = limits.MAX_BODY_BYTES,
    ) -> GuardConfig:
        rpc = {p.rstrip("/") or "/" for p in jsonrpc_paths}
        paths = {p.rstrip("/") or "/" for p in json_paths} | rpc
        return cls(
            allowed_hosts=LOOPBACK_HOSTS | {h.lower() for h in hosts},
            allowed_origins=frozenset(o.rstrip("/").lower() for o in origins),
            json_paths=tuple(sorted(paths)),
            jsonrpc_paths=tuple(sorted(rpc)),
            max_body_bytes=max_body_bytes,
        )


#: RFC 3986 §3.2.2 reg-name (unreserved, pct-encoded, sub-delims), then an optional port.
_REG_NAME = re.compile(r"(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+")
_PORT = re.compile(r"[0-9]{0,5}")
#: The scope key an outer :class:`HTTPGuard` sets to its config once a request passed it.
_GUARDED = "agentproto.guarded"


def parse_host(host: str) -> str | None:
    """The name part of a ``Host`` value, lower-cased (``[::1]`` keeps its brackets), or None
    if the value is not ``host [ ":" port ]`` with host a reg-name, IPv4 or ``[IPv6]``."""
    value = host.strip()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[: end + 1], value[end + 1 :]
        try:
            ipaddress.IPv6Address(name[1:-1])
        except ValueError:
            return None
    else:
        name, sep, port = value.partition(":")
        rest = sep + port
        if not _REG_NAME.fullmatch(name):
            return None
    if rest and not (rest.startswith(":") and _PORT.fullmatch(rest[1:])):
        return None
    return name.lower()


def socket_base_url(scope: Scope, public_url: str | None = None) -> str:
    """``public_url`` when configured, else ``scheme://address:port[/root]`` of the socket the
    request arrived on — never the ``Host`` header (an A2A card's interface URLs)."""
    if public_url:
        return public_url.rstrip("/")
    scheme = str(scope.get("scheme", "http"))
    server = scope.get("server")
    if not server:
        return f"{scheme}://127.0.0.1{scope.get('root_path', '')}".rstrip("/")
    host, port = str(server[0]), server[1]
    host = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(scheme)
    netloc = host if port in (None, default) else f"{host}:{port}"
    return f"{scheme}://{netloc}{scope.get('root_path', '')}".rstrip("/")


async def _send_json(
    send: Send, status: int, code: str, message: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _send_jsonrpc_content_type_error(
    send: Send, media: str, headers: list[tuple[bytes, bytes]]
) -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32005,
                "message": f"Content type {media or '(none)'!r} is not supported: send application/json",
            },
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 415,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class HTTPGuard:
    """ASGI middleware applying a :class:`GuardConfig` to every HTTP request."""

    def __init__(self, app: ASGIApp, config: GuardConfig | None = None) -> None:
        self.app = app
        self.config = config or GuardConfig()

    def _host_allowed(self, scope: Scope, name: str) -> bool:
        if name in self.config.allowed_hosts:
            return True
        server = scope.get("server")
        return server is not None and name.strip("[]") == str(server[0]).lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get(_GUARDED) == self.config:
            await self.app(scope, receive, send)
            return
        raw = scope.get("headers", [])
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw}
        method, path = scope.get("method", "GET"), scope.get("path", "")
        where = {"method": method, "path": path[:200]}
        host = headers.get("host", "")
        hosts = sum(1 for k, _ in raw if k.lower() == b"host")
        name = parse_host(host) if hosts == 1 else None
        if name is None:
            log_event("http_refused", status=400, code="bad_host", host=host[:200], hosts=hosts, **where)
            await _send_json(
                send,
                400,
                "bad_host",
                "The request needs exactly one Host header of the form name[:port], "
                "IPv4[:port] or [IPv6][:port]",
                [(b"connection", b"close")],
            )
            return
        if not self._host_allowed(scope, name):
            log_event("http_refused", status=421, code="host_not_allowed", host=host, **where)
            await _send_json(
                send,
                421,
                "host_not_allowed",
                f"Host {host!r} is not served here (allowed: the loopback names, "
                "the bound address and configured names)",
            )
            return
        origin = headers.get("origin")
        cors: list[tuple[bytes, bytes]] = []
        if origin is not None:
            if origin.rstrip("/").lower() not in self.config.allowed_origins:
                log_event("http_refused", status=403, code="origin_not_allowed", origin=origin, **where)
                await _send_json(
                    send,
                    403,
                    "origin_not_allowed",
                    f"Cross-origin requests from {origin!r} are refused; configure the origin to allow it",
                )
                return
            cors = [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]
            if method == "OPTIONS":
                await send(
                    {
                        "type": "http.response.start",
                        "status": 204,
                        "headers": [
                            *cors,
                            (b"access-control-allow-methods", b"GET, POST, OPTIONS"),
                            (b"access-control-allow-headers", self.config.cors_headers.encode()),
                            (b"access-control-max-age", b"600"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return
        bare = path.rstrip("/") or "/"  # an interface URL is the same with a trailing slash
        if method == "POST" and bare in self.config.json_paths:
            media = headers.get("content-type", "").split(";")[0].strip().lower()
            if media != "application/json" and not media.endswith("+json"):
                log_event(
                    "http_refused", status=415, code="unsupported_media_type", contentType=media, **where
                )
                if bare in self.config.jsonrpc_paths:
                    await _send_jsonrpc_content_type_error(send, media, cors)
                else:
                    await _send_json(
                        send,
                        415,
                        "unsupported_media_type",
                        "POST JSON (Content-Type: application/json)",
                        cors,
                    )
                return
        limit = self.config.max_body_bytes
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            log_event("http_refused", status=413, code="body_too_large", **where)
            await _send_json(
                send,
                413,
                "body_too_large",
                f"Request body is larger than {limit} bytes",
                [*cors, (b"connection", b"close")],
            )
            return
        buffered = await self._buffered(receive, limit)
        if buffered is None:
            log_event("http_refused", status=413, code="body_too_large", **where)
            await _send_json(
                send,
                413,
                "body_too_large",
                f"Request body is larger than {limit} bytes",
                [*cors, (b"connection", b"close")],
            )
            return
        started = False

        async def send_with(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if cors:
                    message = {**message, "headers": [*message.get("headers", []), *cors]}
            await send(message)

        scope[_GUARDED] = self.config  # an inner guard with this config lets it through
        try:
            await self.app(scope, buffered, send_with)
        except Exception as exc:
            log_event("http_failed", logging.ERROR, status=500, error=type(exc).__name__, **where)
            if started:
                raise
            await _send_json(
                send,
                500,
                "internal_error",
                f"Internal error ({type(exc).__name__}); the request was not completed",
                [*cors, (b"connection", b"close")],
            )

    @staticmethod
    async def _buffered(receive: Receive, limit: int) -> Receive | None:
        """Read the whole body (at most ``limit`` bytes) and replay it; None if too large."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                pending: Message | None = message
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > limit:
                return None
            if not message.get("more_body", False):
                pending = None
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed, pending
            if not replayed:
                replayed = True
                if pending is not None:
                    out, pending = pending, None
                    return out
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return replay
