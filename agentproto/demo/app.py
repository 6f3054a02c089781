"""The demo application: the refund agent over AG-UI and, when available, the A2A demo agents.

``create_app()`` is what ``agentproto serve`` runs and what the notebooks start next to their
kernel (with :class:`agentproto.testing.RunningServer`). Everything stateful hangs off
``app.state`` so a notebook can reach it: ``app.state.store`` (the SQLite store),
``app.state.tools`` (the fake MCP-style tool provider — inject faults here),
``app.state.agent`` and ``app.state.agui_runs`` (the runs executing right now).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from agentproto import __version__
from agentproto.agui.server import DEFAULT_MAX_BODY_BYTES, RunRegistry, agui_routes
from agentproto.clock import Clock, SystemClock, uuid_ids
from agentproto.demo.refund_agent import RefundAgent
from agentproto.demo.tools import FakeToolProvider
from agentproto.store import Store

__all__ = ["create_app", "a2a_routes"]


def a2a_routes(*, store_path: str, agent: str, clock: Clock, ids: Callable[[], str],
               store: Store | None = None) -> list[BaseRoute]:
    """The A2A routes, if this installation has the A2A server; otherwise none.

    Kept optional so the AG-UI demo works on its own: ``agentproto.a2a.server`` contributes
    ``build_a2a_routes(store_path=…, agent=…, clock=…, ids=…)`` when it is present. When it
    also takes ``store``, the A2A tasks share this app's SQLite store (one database, one
    connection — which is what makes ``:memory:`` work for both).
    """
    try:
        from agentproto.a2a import server as a2a_server
    except ImportError:
        return []
    build = getattr(a2a_server, "build_a2a_routes", None)
    if build is None:
        return []
    kwargs: dict[str, Any] = {"store_path": store_path, "agent": agent, "clock": clock,
                              "ids": ids}
    if store is not None and "store" in inspect.signature(build).parameters:
        kwargs["store"] = store
    return list(build(**kwargs))


def create_app(db: str | Path = ":memory:", *, clock: Clock | None = None,
               ids: Callable[[], str] | None = None, a2a_agent: str | None = "travel",
               tools: FakeToolProvider | None = None, heartbeat_s: float = 15.0,
               max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, pace_s: float = 0.0,
               approval_ttl_ms: int = 15 * 60 * 1000) -> Starlette:
    """The demo Starlette app. ``db`` is a SQLite path or ``":memory:"``.

    ``clock``/``ids`` are injected everywhere (defaults: wall clock, UUIDs), which is how the
    notebooks get the same ids on every run. ``a2a_agent=None`` leaves the A2A routes out.
    """
    clock = clock or SystemClock()
    ids = ids or uuid_ids
    store = Store(db, clock=clock)
    tools = tools if tools is not None else FakeToolProvider(store, clock=clock)
    agent = RefundAgent(tools, approval_ttl_ms=approval_ttl_ms)
    registry = RunRegistry()

    async def index(_request: Request) -> JSONResponse:
        return JSONResponse({
            "name": "agentproto demo",
            "version": __version__,
            "agui": {"agent": "/ag-ui/agent", "thread": "/ag-ui/threads/{threadId}",
                     "cancel": "/ag-ui/runs/{runId}/cancel"},
            "a2a": bool(extra),
            "tools": [t["name"] for t in tools.list_tools()["tools"]],
        })

    extra: list[BaseRoute] = []
    if a2a_agent:
        extra = a2a_routes(store_path=store.path, agent=a2a_agent, clock=clock, ids=ids,
                           store=store)
    routes: list[BaseRoute] = [
        Route("/", index, methods=["GET"]),
        *agui_routes(store, agent, clock=clock, ids=ids, heartbeat_s=heartbeat_s,
                     max_body_bytes=max_body_bytes, pace_s=pace_s, registry=registry),
        *extra,
    ]
    app = Starlette(routes=routes)
    app.state.store = store
    app.state.tools = tools
    app.state.agent = agent
    app.state.agui_runs = registry
    app.state.clock = clock
    return app
