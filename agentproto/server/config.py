"""One description of a server: :class:`ServerConfig`, what ``agentproto serve`` builds from
its arguments and what :func:`agentproto.demo.app.create_app` builds every binding from.

A frozen dataclass of plain values (no sockets, no stores): the tests, the course's server
helpers and ``serve`` describe a server the same way, and a variant is ``dataclasses.replace``
of another::

    >>> config = ServerConfig(port=0, db=":memory:", a2a_agent="echo")
    >>> config.bindings.grpc, config.auth is None, config.webhooks.allow_loopback(config)
    (False, True, True)
    >>> secured = config.with_auth({"alice": "a-secret-of-16-chars"})
    >>> secured.auth.issuer_for(secured), secured.webhooks.allow_loopback(secured)
    ('http://127.0.0.1:0', False)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agentproto.limits import DEFAULT_LIMITS, MAX_BODY_BYTES, ConnectionLimits, Limits

__all__ = ["ServerConfig", "AuthConfig", "Bindings", "WebhookPolicy"]


@dataclass(frozen=True)
class AuthConfig:
    """Auth mode (``serve --auth``): the kit's own authorization server issues tokens to
    ``clients`` (client id → secret) at ``POST /oauth/token``; every endpoint but ``/`` and the
    public card wants one. ``issuer`` defaults to the server's public URL (or bound address);
    ``signing_key`` to a fresh P-256 key (the course passes a teaching key so that its runs
    repeat)."""

    clients: tuple[tuple[str, str], ...]
    token_ttl_s: int = 3600
    leeway_s: float = 30.0
    issuer: str | None = None
    signing_key: Any = None

    @classmethod
    def of(cls, clients: Mapping[str, str], **options: Any) -> AuthConfig:
        return cls(tuple(sorted(clients.items())), **options)

    @property
    def client_secrets(self) -> dict[str, str]:
        return dict(self.clients)

    def issuer_for(self, config: ServerConfig) -> str:
        """The ``iss`` of the tokens, and the base of the token URL the card declares."""
        return (self.issuer or config.base_url).rstrip("/")


@dataclass(frozen=True)
class Bindings:
    """Which protocol bindings the server mounts. gRPC needs the ``grpc`` extra; it runs on a
    free loopback port next to the HTTP server and the card lists it."""

    agui: bool = True
    jsonrpc: bool = True
    rest: bool = True
    grpc: bool = False


@dataclass(frozen=True)
class WebhookPolicy:
    """Which push-notification URLs the A2A service accepts (spec §13.2). Private, link-local
    and reserved addresses are refused unless ``private``; loopback is allowed for the course
    unless auth mode is on (``loopback=None``) or ``loopback=False``."""

    loopback: bool | None = None
    private: bool = False

    def allow_loopback(self, config: ServerConfig) -> bool:
        return (config.auth is None) if self.loopback is None else self.loopback


@dataclass(frozen=True)
class ServerConfig:
    """Everything a kit server is (see the module docstring). ``port=0``: any free port."""

    host: str = "127.0.0.1"
    port: int = 8000
    #: The SQLite file of threads, tasks and approvals, or ``":memory:"``.
    db: str = ":memory:"
    #: Which shipped A2A agent answers (``travel``, ``conformance``, ``echo``); None: no A2A.
    a2a_agent: str | None = "travel"
    auth: AuthConfig | None = None
    #: What one request body may contain, on every binding (:mod:`agentproto.limits`).
    limits: Limits = DEFAULT_LIMITS
    #: The request body budget of every binding (413 over HTTP, RESOURCE_EXHAUSTED over gRPC).
    max_body_bytes: int = MAX_BODY_BYTES
    #: The A2A service's per-caller limits (an ``agentproto.a2a.ServiceLimits``; None: defaults).
    service_limits: Any = None
    #: Slow clients and connection counts (``serve`` only: uvicorn's protocol settings).
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    #: The base URL the card advertises; default: the bound address (never the Host header).
    public_url: str | None = None
    bindings: Bindings = field(default_factory=Bindings)
    #: Idle seconds before an SSE keep-alive comment on AG-UI streams.
    heartbeat_s: float = 15.0
    webhooks: WebhookPolicy = field(default_factory=WebhookPolicy)
    #: The demo refund agent: how long an approval stays open, and a delay per event.
    approval_ttl_ms: int = 15 * 60 * 1000
    pace_s: float = 0.0

    @property
    def base_url(self) -> str:
        """``public_url``, else ``http://`` the bound address (``0.0.0.0`` shown as loopback)."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}"

    def with_auth(self, clients: Mapping[str, str], **options: Any) -> ServerConfig:
        """This configuration in auth mode, for ``clients`` (client id → secret)."""
        return replace(self, auth=AuthConfig.of(clients, **options))
