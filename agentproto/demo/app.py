"""The demo application, built from one :class:`~agentproto.server.ServerConfig`: the refund
agent over AG-UI and a shipped A2A agent over JSON-RPC, HTTP+JSON and gRPC, with auth mode
when the configuration asks for it.

:func:`create_app` is the one factory: ``agentproto serve`` builds a ``ServerConfig`` from its
arguments and calls it, and so do the tests and the course's server helpers (who start the
app next to their kernel with :class:`agentproto.server.RunningServer`). Every binding is
built from the configuration here, inside the app — auth mode too: the token endpoint and the
bearer check sit behind the HTTP guard, the card declares the token endpoint from the start,
the gRPC binding checks the same tokens, and the input limits apply on every binding.

What a notebook reaches is on ``app.state`` (objects, not settings): ``store`` (the SQLite
store), ``tools`` (the fake MCP-style tool provider — inject faults here), ``agent`` and
``agui_runs`` (the AG-UI runs executing right now), ``a2a_service``, ``clock`` and ``config``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from agentproto import __version__
from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.agents import make_agent
from agentproto.a2a.server import RPC_PATH, A2AApplication, a2a_lifespan
from agentproto.a2a.service import A2AService
from agentproto.agui._threadstore import ThreadStore
from agentproto.agui.server import RunRegistry, agui_routes
from agentproto.clock import Clock
from agentproto.demo.refund_agent import RefundAgent
from agentproto.demo.tools import FakeToolProvider
from agentproto.limits import MAX_BODY_BYTES
from agentproto.server.config import Bindings, ServerConfig, WebhookPolicy
from agentproto.server.guard import GuardConfig, HTTPGuard
from agentproto.system import SystemClock, uuid_ids

if TYPE_CHECKING:  # auth mode (cryptography, PyJWT) is imported only when a config asks for it
    from agentproto.demo.auth import AuthMode

__all__ = ["create_app", "config_from_options", "a2a_service"]

#: The AG-UI endpoints (``agentproto.agui.server`` serves them under this prefix).
AGUI_AGENT_PATH = "/ag-ui/agent"


def a2a_service(
    *,
    agent: str,
    store: ThreadStore,
    clock: Clock,
    ids: Callable[[], str],
    allow_loopback_webhooks: bool = True,
    auth: AuthMode | None = None,
    limits: Any = None,
) -> A2AService:
    """The A2A side of the demo: a shipped agent (``travel``, ``conformance``, ``echo``) whose
    tasks live in this app's SQLite store (one database, one connection — which is what makes
    ``:memory:`` work for both protocols). In auth mode its cards declare the token endpoint."""
    the_agent: Any = make_agent(agent)
    if auth is not None:
        the_agent = auth.declare(the_agent)
    options = {} if limits is None else {"limits": limits}
    return A2AService(
        the_agent,
        store=TaskStore(store),
        clock=clock,
        ids=ids,
        allow_loopback_webhooks=allow_loopback_webhooks,  # spec §13.2
        **options,
    )


def config_from_options(
    db: str | Path = ":memory:",
    *,
    a2a_agent: str | None = "travel",
    heartbeat_s: float = 15.0,
    max_body_bytes: int = MAX_BODY_BYTES,
    pace_s: float = 0.0,
    approval_ttl_ms: int = 15 * 60 * 1000,
    public_url: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
    allowed_origins: tuple[str, ...] = (),
    allow_loopback_webhooks: bool = True,
    a2a_grpc: bool = False,
) -> ServerConfig:
    """The :class:`ServerConfig` that :func:`create_app`'s keyword options describe (the
    options it took before there was a configuration; the notebooks still pass them)."""
    return ServerConfig(
        db=str(db),
        a2a_agent=a2a_agent,
        heartbeat_s=heartbeat_s,
        max_body_bytes=max_body_bytes,
        pace_s=pace_s,
        approval_ttl_ms=approval_ttl_ms,
        public_url=public_url,
        allowed_hosts=tuple(allowed_hosts),
        allowed_origins=tuple(allowed_origins),
        webhooks=WebhookPolicy(loopback=allow_loopback_webhooks),
        bindings=Bindings(grpc=a2a_grpc),
    )


async def _json_http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own HTTP errors (404 route, 405 method) as JSON with the error named."""
    status = getattr(exc, "status_code", 500)
    detail = getattr(exc, "detail", "") or "error"
    headers = getattr(exc, "headers", None)
    body = {"error": {"code": status, "message": str(detail)}}
    return JSONResponse(body, status_code=status, headers=headers)


@dataclass
class _Parts:
    """What one app is made of (built once from its configuration)."""

    config: ServerConfig
    clock: Clock
    ids: Callable[[], str]
    store: ThreadStore
    tools: FakeToolProvider
    agent: RefundAgent
    registry: RunRegistry
    auth: AuthMode | None
    service: A2AService | None


def create_app(
    config: ServerConfig | str | Path = ":memory:",
    *,
    clock: Clock | None = None,
    ids: Callable[[], str] | None = None,
    tools: FakeToolProvider | None = None,
    auth_clock: Clock | None = None,
    **options: Any,
) -> Starlette:
    """The demo Starlette app of ``config`` (a :class:`ServerConfig`; or a SQLite path or
    ``":memory:"`` with the keyword options of :func:`config_from_options`).

    Every request passes :class:`~agentproto.server.guard.HTTPGuard` first: ``Host`` must be a
    loopback name, the bound address or one of ``allowed_hosts``; an ``Origin`` must be one of
    ``allowed_origins`` (CORS is answered for those only); POSTs to ``/a2a`` and
    ``/ag-ui/agent`` must be JSON; bodies are limited to ``max_body_bytes`` on every binding.
    The A2A card advertises ``public_url`` (default: the bound address, never ``Host``).
    Loopback push webhooks stay allowed (the course watches pushes on 127.0.0.1) unless auth
    mode is on or the webhook policy refuses them. The gRPC binding (``bindings.grpc``) runs
    on a free loopback port while the app runs; the card lists it.

    ``clock``/``ids`` are injected everywhere (defaults: wall clock, UUIDs), which is how the
    notebooks get the same ids on every run; ``tools`` replaces the demo's tool provider;
    ``auth_clock`` is the clock tokens are issued and checked by (default: ``clock``; a test
    with a fake run clock passes the wall clock, which gRPC stream expiry reads).
    ``a2a_agent=None`` leaves the A2A routes out.
    """
    if isinstance(config, ServerConfig):
        if options:
            raise TypeError(f"create_app takes a ServerConfig or options, not both: {sorted(options)}")
    else:
        config = config_from_options(config, **options)
    clock = clock or SystemClock()
    parts = _parts(config, clock, ids or uuid_ids, tools, auth_clock or clock)
    app = Starlette(
        routes=_routes(parts),
        lifespan=_lifespan(parts),
        middleware=_middleware(parts),
        exception_handlers={HTTPException: _json_http_error},  # e.g. 405: JSON like every other 4xx
    )
    app.state.config = config
    app.state.store = parts.store
    app.state.tools = parts.tools
    app.state.agent = parts.agent
    app.state.agui_runs = parts.registry
    app.state.clock = parts.clock
    app.state.a2a_service = parts.service
    app.state.auth = parts.auth
    return app


def _parts(
    config: ServerConfig,
    clock: Clock,
    ids: Callable[[], str],
    tools: FakeToolProvider | None,
    auth_clock: Clock,
) -> _Parts:
    if config.a2a_agent and not config.bindings.jsonrpc:
        raise ValueError("the A2A card's first interface is JSON-RPC: bindings.jsonrpc cannot be off")
    store = ThreadStore(config.db, clock=clock)
    auth = None
    if config.auth is not None:
        from agentproto.demo.auth import OwnerTable, auth_mode

        auth = auth_mode(config, clock=auth_clock)
        OwnerTable(store)  # owners an older version kept in this layer move to the A2A/AG-UI tables
    # Refund ids continue after those already in the database (restart-safe; see tools.py).
    tools = tools if tools is not None else FakeToolProvider(store, clock=clock)
    service = None
    if config.a2a_agent:
        service = a2a_service(
            agent=config.a2a_agent,
            store=store,
            clock=clock,
            ids=ids,
            allow_loopback_webhooks=config.webhooks.allow_loopback(config),
            auth=auth,
            limits=config.service_limits,
        )
        service.allow_private_webhooks = config.webhooks.private
    agent = RefundAgent(tools, approval_ttl_ms=config.approval_ttl_ms)
    return _Parts(config, clock, ids, store, tools, agent, RunRegistry(), auth, service)


def _routes(parts: _Parts) -> list[BaseRoute]:
    config = parts.config
    tool_names = [t["name"] for t in parts.tools.list_tools()["tools"]]

    async def index(_request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "name": "agentproto demo",
                "version": __version__,
                "agui": {
                    "agent": AGUI_AGENT_PATH,
                    "thread": "/ag-ui/threads/{threadId}",
                    "cancel": "/ag-ui/runs/{runId}/cancel",
                }
                if config.bindings.agui
                else None,
                "a2a": parts.service is not None,
                "tools": tool_names,
            }
        )

    routes: list[BaseRoute] = [Route("/", index, methods=["GET"])]
    if config.bindings.agui:
        routes += agui_routes(
            parts.store,
            parts.agent,
            clock=parts.clock,
            ids=parts.ids,
            heartbeat_s=config.heartbeat_s,
            max_body_bytes=config.max_body_bytes,
            pace_s=config.pace_s,
            registry=parts.registry,
            server_tools=tool_names,
            input_limits=config.limits,
        )
    if parts.service is not None:
        routes += A2AApplication.for_server(parts.service, config).routes()
    return routes


def _lifespan(parts: _Parts) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """The A2A service's lifetime (and its gRPC binding's, in auth mode with the bearer check)."""
    if parts.service is None:

        @contextlib.asynccontextmanager
        async def nothing(_app: Any) -> AsyncIterator[None]:
            yield

        return nothing
    authenticate = parts.auth.grpc_authenticate() if parts.auth is not None else None
    return a2a_lifespan(parts.service, parts.config, authenticate=authenticate)


def _middleware(parts: _Parts) -> list[Middleware]:
    """Outside in: the HTTP guard, then (auth mode) the token endpoint and the bearer check."""
    config = parts.config
    guard = GuardConfig.for_server(
        config,
        json_paths=(AGUI_AGENT_PATH,) if config.bindings.agui else (),
        jsonrpc_paths=(RPC_PATH,) if parts.service is not None else (),
    )
    layers = [Middleware(HTTPGuard, config=guard)]
    if parts.auth is not None:
        from agentproto.demo.auth import AuthGate

        layers.append(Middleware(AuthGate, mode=parts.auth))
    return layers
