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
configuration already passed a request, the inner one lets it straight through. (Auth mode
puts the bearer check *behind* the guard, in the same app: CORS preflights and foreign
origins are answered before any token is asked for.)
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentproto import limits
from agentproto.server._asgi import ASGIApp, Message, Receive, Scope, Send, send_json
from agentproto.server._log import log_event

if TYPE_CHECKING:
    from agentproto.server.config import ServerConfig

__all__ = ["HTTPGuard", "GuardConfig", "LOOPBACK_HOSTS", "log_event", "parse_host", "socket_base_url"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


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

    @classmethod
    def for_server(
        cls, config: ServerConfig, *, json_paths: Iterable[str] = (), jsonrpc_paths: Iterable[str] = ()
    ) -> GuardConfig:
        """The guard of the server ``config`` describes (its hosts, origins and body budget);
        ``json_paths`` and ``jsonrpc_paths`` are the endpoints it mounts that take JSON."""
        return cls.build(
            hosts=config.allowed_hosts,
            origins=config.allowed_origins,
            json_paths=json_paths,
            jsonrpc_paths=jsonrpc_paths,
            max_body_bytes=config.max_body_bytes,
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


Headers = list[tuple[bytes, bytes]]


@dataclass(frozen=True)
class _Refusal:
    """What the guard answers instead of the app: one JSON error (or a JSON-RPC error)."""

    status: int
    code: str
    message: str
    headers: Headers = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)
    jsonrpc: bool = False

    async def send(self, send: Send, where: dict[str, Any]) -> None:
        log_event("http_refused", status=self.status, code=self.code, **self.fields, **where)
        if self.jsonrpc:  # -32005 ContentTypeNotSupported (A2A §5.4), readable by a JSON-RPC client
            body: dict[str, Any] = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32005, "message": self.message},
            }
        else:
            body = {"error": {"code": self.code, "message": self.message}}
        await send_json(send, self.status, body, self.headers)


async def _send_preflight(send: Send, cors: Headers, allow_headers: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 204,
            "headers": [
                *cors,
                (b"access-control-allow-methods", b"GET, POST, OPTIONS"),
                (b"access-control-allow-headers", allow_headers.encode()),
                (b"access-control-max-age", b"600"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})


class HTTPGuard:
    """ASGI middleware applying a :class:`GuardConfig` to every HTTP request (the module
    table, one method per row)."""

    def __init__(self, app: ASGIApp, config: GuardConfig | None = None) -> None:
        self.app = app
        self.config = config or GuardConfig()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get(_GUARDED) == self.config:
            await self.app(scope, receive, send)
            return
        raw = scope.get("headers", [])
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw}
        method = scope.get("method", "GET")
        where = {"method": method, "path": scope.get("path", "")[:200]}
        refusal = self._check_host(scope, raw, headers.get("host", ""))
        cors: Headers = []
        if refusal is None:
            refusal, cors = self._check_origin(headers.get("origin"))
            if refusal is None and cors and method == "OPTIONS":
                await _send_preflight(send, cors, self.config.cors_headers)
                return
            path = scope.get("path", "")
            refusal = refusal or self._check_media(method, path, headers, cors)
            refusal = refusal or self._check_declared_size(headers.get("content-length", ""), cors)
        if refusal is not None:
            await refusal.send(send, where)
            return
        buffered = await self._buffered(receive, self.config.max_body_bytes)
        if buffered is None:
            await self._too_large(cors).send(send, where)
            return
        scope[_GUARDED] = self.config  # an inner guard with this config lets it through
        await self._serve(scope, buffered, send, cors, where)

    # ------------------------------------------------------------------ the checks

    def _check_host(self, scope: Scope, raw: Iterable[tuple[bytes, bytes]], host: str) -> _Refusal | None:
        hosts = sum(1 for k, _ in raw if k.lower() == b"host")
        name = parse_host(host) if hosts == 1 else None
        if name is None:
            return _Refusal(
                400,
                "bad_host",
                "The request needs exactly one Host header of the form name[:port], "
                "IPv4[:port] or [IPv6][:port]",
                [(b"connection", b"close")],
                {"host": host[:200], "hosts": hosts},
            )
        server = scope.get("server")
        bound = server is not None and name.strip("[]") == str(server[0]).lower()
        if name in self.config.allowed_hosts or bound:
            return None
        return _Refusal(
            421,
            "host_not_allowed",
            f"Host {host!r} is not served here (allowed: the loopback names, "
            "the bound address and configured names)",
            fields={"host": host},
        )

    def _check_origin(self, origin: str | None) -> tuple[_Refusal | None, Headers]:
        """A refusal, or the CORS headers every answer to this request carries."""
        if origin is None:
            return None, []
        if origin.rstrip("/").lower() not in self.config.allowed_origins:
            message = f"Cross-origin requests from {origin!r} are refused; configure the origin to allow it"
            return _Refusal(403, "origin_not_allowed", message, fields={"origin": origin}), []
        return None, [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]

    def _check_media(self, method: str, path: str, headers: dict[str, str], cors: Headers) -> _Refusal | None:
        bare = path.rstrip("/") or "/"  # an interface URL is the same with a trailing slash
        if method != "POST" or bare not in self.config.json_paths:
            return None
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        if media == "application/json" or media.endswith("+json"):
            return None
        jsonrpc = bare in self.config.jsonrpc_paths
        message = (
            f"Content type {media or '(none)'!r} is not supported: send application/json"
            if jsonrpc
            else "POST JSON (Content-Type: application/json)"
        )
        return _Refusal(415, "unsupported_media_type", message, cors, {"contentType": media}, jsonrpc=jsonrpc)

    def _check_declared_size(self, declared: str, cors: Headers) -> _Refusal | None:
        if declared.isdigit() and int(declared) > self.config.max_body_bytes:
            return self._too_large(cors)
        return None

    def _too_large(self, cors: Headers) -> _Refusal:
        return _Refusal(
            413,
            "body_too_large",
            f"Request body is larger than {self.config.max_body_bytes} bytes",
            [*cors, (b"connection", b"close")],
        )

    # ------------------------------------------------------------------ passing it on

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, cors: Headers, where: dict[str, Any]
    ) -> None:
        """Run the app with the CORS headers added; an exception before the answer is a 500."""
        started = False

        async def send_with(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if cors:
                    message = {**message, "headers": [*message.get("headers", []), *cors]}
            await send(message)

        try:
            await self.app(scope, receive, send_with)
        except Exception as exc:
            log_event("http_failed", logging.ERROR, status=500, error=type(exc).__name__, **where)
            if started:
                raise
            body = {
                "error": {
                    "code": "internal_error",
                    "message": f"Internal error ({type(exc).__name__}); the request was not completed",
                }
            }
            await send_json(send, 500, body, [*cors, (b"connection", b"close")])

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
