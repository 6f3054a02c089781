"""The demo application: the refund agent over AG-UI and, when available, the A2A demo agents.

``create_app()`` is what ``agentproto serve`` runs and what the notebooks start next to their
kernel (with :class:`agentproto.testing.RunningServer`). Everything stateful hangs off
``app.state`` so a notebook can reach it: ``app.state.store`` (the SQLite store),
``app.state.tools`` (the fake MCP-style tool provider — inject faults here),
``app.state.agent`` and ``app.state.agui_runs`` (the runs executing right now).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from agentproto import __version__
from agentproto.a2a.agents import make_agent
from agentproto.a2a.server import build_a2a_routes
from agentproto.a2a.service import A2AService
from agentproto.a2a.taskstore import TaskStore
from agentproto.agui.server import DEFAULT_MAX_BODY_BYTES, RunRegistry, agui_routes
from agentproto.agui.threadstore import ThreadStore
from agentproto.clock import Clock
from agentproto.demo.refund_agent import RefundAgent
from agentproto.demo.tools import FakeToolProvider
from agentproto.http_guard import GuardConfig, HTTPGuard
from agentproto.runtime import SystemClock, uuid_ids

__all__ = ["create_app", "a2a_service"]


def a2a_service(
    *,
    agent: str,
    store: ThreadStore,
    clock: Clock,
    ids: Callable[[], str],
    allow_loopback_webhooks: bool = True,
) -> A2AService:
    """The A2A side of the demo: a shipped agent (``travel``, ``conformance``, ``echo``) whose
    tasks live in this app's SQLite store (one database, one connection — which is what makes
    ``:memory:`` work for both protocols)."""
    return A2AService(
        make_agent(agent),
        store=TaskStore(store),
        clock=clock,
        ids=ids,
        allow_loopback_webhooks=allow_loopback_webhooks,
    )  # spec §13.2


async def _json_http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own HTTP errors (404 route, 405 method) as JSON with the error named."""
    status = getattr(exc, "status_code", 500)
    detail = getattr(exc, "detail", "") or "error"
    headers = getattr(exc, "headers", None)
    body = {"error": {"code": status, "message": str(detail)}}
    return JSONResponse(body, status_code=status, headers=headers)


def create_app(
    db: str | Path = ":memory:",
    *,
    clock: Clock | None = None,
    ids: Callable[[], str] | None = None,
    a2a_agent: str | None = "travel",
    tools: FakeToolProvider | None = None,
    heartbeat_s: float = 15.0,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    pace_s: float = 0.0,
    approval_ttl_ms: int = 15 * 60 * 1000,
    public_url: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
    allowed_origins: tuple[str, ...] = (),
    allow_loopback_webhooks: bool = True,
    a2a_grpc: bool = False,
) -> Starlette:
    """The demo Starlette app. ``db`` is a SQLite path or ``":memory:"``.

    The A2A agent answers on JSON-RPC (``/a2a``) and HTTP+JSON (``/a2a/rest``); ``a2a_grpc``
    also starts its gRPC binding on a free loopback port while the app runs (the card lists it).

    Every request passes :class:`~agentproto.http_guard.HTTPGuard` first: ``Host`` must be a
    loopback name, the bound address or one of ``allowed_hosts``; an ``Origin`` must be one of
    ``allowed_origins`` (CORS is answered for those only); POSTs to ``/a2a`` and
    ``/ag-ui/agent`` must be JSON; bodies are limited to ``max_body_bytes`` on both protocols.
    The A2A card advertises ``public_url`` (default: the bound address, never ``Host``).
    Loopback push webhooks stay allowed here (the course watches pushes on 127.0.0.1) unless
    ``allow_loopback_webhooks=False`` (what ``agentproto serve --auth`` does by default).

    ``clock``/``ids`` are injected everywhere (defaults: wall clock, UUIDs), which is how the
    notebooks get the same ids on every run. ``a2a_agent=None`` leaves the A2A routes out.
    """
    clock = clock or SystemClock()
    ids = ids or uuid_ids
    store = ThreadStore(db, clock=clock)
    # Refund ids continue after those already in the database (restart-safe; see tools.py).
    tools = tools if tools is not None else FakeToolProvider(store, clock=clock)
    agent = RefundAgent(tools, approval_ttl_ms=approval_ttl_ms)
    registry = RunRegistry()

    async def index(_request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "name": "agentproto demo",
                "version": __version__,
                "agui": {
                    "agent": "/ag-ui/agent",
                    "thread": "/ag-ui/threads/{threadId}",
                    "cancel": "/ag-ui/runs/{runId}/cancel",
                },
                "a2a": bool(extra),
                "tools": [t["name"] for t in tools.list_tools()["tools"]],
            }
        )

    extra: list[BaseRoute] = []
    service = (
        a2a_service(
            agent=a2a_agent,
            store=store,
            clock=clock,
            ids=ids,
            allow_loopback_webhooks=allow_loopback_webhooks,
        )
        if a2a_agent
        else None
    )
    if service is not None:
        extra = build_a2a_routes(service=service, public_url=public_url)

    @contextlib.asynccontextmanager
    async def lifespan(the_app: Starlette) -> AsyncIterator[None]:
        grpc_server = None
        if service is not None and a2a_grpc:
            from agentproto.a2a.grpc_server import start_grpc_server

            grpc_server = await start_grpc_server(
                service,
                base_url=public_url or "http://127.0.0.1",
                # auth mode (demo.auth.secure) leaves its bearer check here for the gRPC binding
                authenticate=getattr(the_app.state, "a2a_grpc_authenticate", None),
            )
        yield
        if grpc_server is not None:
            await grpc_server.stop()
        if service is not None:  # cancel running A2A agents, close their streams and pushes
            await service.aclose()

    routes: list[BaseRoute] = [
        Route("/", index, methods=["GET"]),
        *agui_routes(
            store,
            agent,
            clock=clock,
            ids=ids,
            heartbeat_s=heartbeat_s,
            max_body_bytes=max_body_bytes,
            pace_s=pace_s,
            registry=registry,
            server_tools=[t["name"] for t in tools.list_tools()["tools"]],
        ),
        *extra,
    ]
    guard = GuardConfig.build(
        hosts=allowed_hosts,
        origins=allowed_origins,
        json_paths=("/ag-ui/agent",),
        jsonrpc_paths=("/a2a",),
        max_body_bytes=max_body_bytes,
    )
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(HTTPGuard, config=guard)],
        exception_handlers={HTTPException: _json_http_error},  # e.g. 405: JSON like every other 4xx
    )
    app.state.guard_config = guard  # auth mode puts its own endpoints behind the same guard
    app.state.store = store
    app.state.tools = tools
    app.state.agent = agent
    app.state.agui_runs = registry
    app.state.clock = clock
    app.state.a2a_service = service
    return app
