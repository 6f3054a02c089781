"""The Starlette adapter: A2A over HTTP, JSON-RPC binding.

Two routes (spec §8.2, §9):

* ``GET /.well-known/agent-card.json`` — the Agent Card. Its JSON-RPC interface URL is built
  from the configured ``public_url``, else from the socket address the request actually arrived
  on (scheme, bound address, port, mount path) — never from the ``Host`` header, which a
  DNS-rebinding page controls — so a server on an ephemeral port never advertises a wrong URL.
  Caching (spec §8.6): ``Cache-Control: public, max-age=300`` and a strong ``ETag`` (a hash of the
  exact bytes served); ``If-None-Match`` with a matching tag gets ``304 Not Modified``.
* ``POST /a2a`` — JSON-RPC 2.0. Plain methods answer ``application/json``; the two streaming
  methods answer ``text/event-stream`` with one complete JSON-RPC response per ``data:`` line, or
  a plain JSON error if the request fails before the stream starts.

The caller's subject, when an authentication layer in front has verified one, comes from the
ASGI scope (:func:`agentproto.a2a._rest.caller_subject`); the tenant from ``params.tenant``.
Everything protocol-related happens in :mod:`agentproto.a2a.jsonrpc` and
:mod:`agentproto.a2a.service`; this module only moves bytes.

>>> app = create_a2a_app(agent="conformance")     # doctest: +SKIP
>>> # uvicorn.run(app, host="127.0.0.1", port=8000)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import AsyncIterator, Callable
from email.utils import formatdate
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from agentproto import limits
from agentproto.a2a._rest import REST_PATH, RestBinding, caller_subject
from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.agents import Agent, make_agent
from agentproto.a2a.jsonrpc import JSONRPCDispatcher
from agentproto.a2a.service import A2AService
from agentproto.clock import Clock, IdSource
from agentproto.server._log import log_event
from agentproto.server._paths import AGENT_CARD_PATH
from agentproto.server.config import Bindings, ServerConfig, WebhookPolicy
from agentproto.server.guard import GuardConfig, HTTPGuard, socket_base_url
from agentproto.store import Store

__all__ = [
    "A2AApplication",
    "a2a_lifespan",
    "a2a_config",
    "create_a2a_app",
    "AGENT_CARD_PATH",
    "RPC_PATH",
    "CARD_CACHE_CONTROL",
    "SSE_SEND_TIMEOUT_S",
]

RPC_PATH = "/a2a"
#: The card changes only when the server is redeployed; five minutes keeps clients fresh enough.
CARD_CACHE_CONTROL = "public, max-age=300"
#: An SSE event the client's connection cannot take within this many seconds ends the stream
#: (a consumer that does not read holds no buffers beyond one event, F3).
SSE_SEND_TIMEOUT_S = 30.0


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def _etag_matches(header: str, etag: str) -> bool:
    """RFC 9110 §13.1.2 weak comparison of an ``If-None-Match`` list against our tag."""
    if header.strip() == "*":
        return True
    ours = etag.removeprefix("W/")
    return any(t.strip().removeprefix("W/") == ours for t in header.split(","))


class A2AApplication:
    """The HTTP endpoints of one :class:`A2AService` (also reachable as ``app.state.a2a``):
    the card, JSON-RPC at ``rpc_path`` and, unless ``rest=False``, HTTP+JSON at ``rest_path``.
    ``input_limits`` is what one request body may contain on both (:mod:`agentproto.limits`)."""

    def __init__(
        self,
        service: A2AService,
        *,
        rpc_path: str = RPC_PATH,
        public_url: str | None = None,
        rest_path: str = REST_PATH,
        rest: bool = True,
        input_limits: limits.Limits = limits.DEFAULT_LIMITS,
    ) -> None:
        self.service = service
        self.public_url = public_url
        self.dispatcher = JSONRPCDispatcher(service, input_limits=input_limits)
        self.rpc_path = rpc_path
        service.rpc_path = rpc_path
        self.rest = (
            RestBinding(service, path=rest_path, public_url=public_url, input_limits=input_limits)
            if rest
            else None
        )
        service.rest_path = rest_path if rest else None
        #: The card changes only on redeploy: its Last-Modified is the time the app was built.
        self.card_modified = formatdate(service.clock.now_ms() / 1000, usegmt=True)

    @classmethod
    def for_server(cls, service: A2AService, config: ServerConfig) -> A2AApplication:
        """The endpoints of ``service`` on the server ``config`` describes: JSON-RPC at
        ``/a2a``, HTTP+JSON unless ``config.bindings.rest`` is off, the card from
        ``config.public_url`` (else the socket), ``config.limits`` on both."""
        return cls(
            service,
            public_url=config.public_url,
            rest=config.bindings.rest,
            input_limits=config.limits,
        )

    def routes(self) -> list[BaseRoute]:
        return [
            Route(AGENT_CARD_PATH, self.agent_card, methods=["GET"], name="a2a_agent_card"),
            Route(self.rpc_path, self.rpc, methods=["POST"], name="a2a_jsonrpc"),
            # the interface URL with a trailing slash is the same endpoint (no 307 for a POST)
            Route(self.rpc_path.rstrip("/") + "/", self.rpc, methods=["POST"], name="a2a_jsonrpc_slash"),
            *(self.rest.routes() if self.rest is not None else ()),
        ]

    def _base_url(self, request: Request) -> str:
        """The base URL from the socket (never from Host), recorded on the service for the
        bindings that have no HTTP request to read it from (gRPC's extended card)."""
        base = socket_base_url(request.scope, self.public_url)
        self.service.http_base_url = base
        return base

    async def agent_card(self, request: Request) -> Response:
        base = self._base_url(request)
        body = _dumps(self.service.card(base).to_wire())
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        headers = {"Cache-Control": CARD_CACHE_CONTROL, "ETag": etag, "Last-Modified": self.card_modified}
        if _etag_matches(request.headers.get("if-none-match", ""), etag):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    async def rpc(self, request: Request) -> Response:
        out = await self.dispatcher.dispatch(
            await request.body(),
            request.headers,
            # no query string, no query parameters: the same as an empty QueryParams (only
            # read when the A2A-Version header is missing), without building one per request
            query=request.query_params if request.scope.get("query_string") else None,
            base_url=self._base_url(request),
            subject=caller_subject(request.scope),
            encoded=True,
        )
        if out is None:  # a JSON-RPC notification: no response body at all
            return Response(status_code=204)
        if isinstance(out, bytes):  # a success, already JSON text
            return Response(out, media_type="application/json")
        if isinstance(out, dict):
            if "error" in out:  # one structured line per failed request
                log_event(
                    "a2a_error",
                    code=out["error"].get("code"),
                    requestId=out.get("id"),
                    message=str(out["error"].get("message", ""))[:200],
                )
            return JSONResponse(out)
        return EventSourceResponse(self._sse(out), ping=15, send_timeout=SSE_SEND_TIMEOUT_S)

    @staticmethod
    async def _sse(frames: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, str]]:
        try:
            async for frame in frames:
                yield {"data": json.dumps(frame, ensure_ascii=False, separators=(",", ":"))}
        finally:
            aclose = getattr(frames, "aclose", None)
            if aclose is not None:
                await aclose()


def a2a_lifespan(
    service: A2AService,
    config: ServerConfig,
    *,
    authenticate: Callable[..., Any] | None = None,
) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """A Starlette ``lifespan``: what an app serving ``service`` does while it runs. With
    ``config.bindings.grpc``, the gRPC binding on a free loopback port, under the same input
    limits and body budget (``authenticate`` checks each call's metadata; the card then lists
    it); at the end, the service's running agents are cancelled and its streams and pushes
    closed."""

    @contextlib.asynccontextmanager
    async def running(_app: Any) -> AsyncIterator[None]:
        grpc_server = None
        if config.bindings.grpc:
            from agentproto.a2a._grpc_server import start_grpc_server

            grpc_server = await start_grpc_server(
                service,
                base_url=config.public_url or "http://127.0.0.1",
                authenticate=authenticate,
                input_limits=config.limits,
                max_body_bytes=config.max_body_bytes,
            )
        try:
            yield
        finally:
            if grpc_server is not None:
                await grpc_server.stop()
            await service.aclose()

    return running


def a2a_config(
    *,
    store_path: str = ":memory:",
    public_url: str | None = None,
    allowed_hosts: tuple[str, ...] = (),
    allowed_origins: tuple[str, ...] = (),
    max_body_bytes: int = limits.MAX_BODY_BYTES,
    grpc: bool = False,
    input_limits: limits.Limits = limits.DEFAULT_LIMITS,
    allow_loopback_webhooks: bool = False,
) -> ServerConfig:
    """The :class:`~agentproto.server.ServerConfig` of an A2A-only server that
    :func:`create_a2a_app`'s keyword options describe: no AG-UI, gRPC if ``grpc``, loopback
    webhooks refused unless ``allow_loopback_webhooks`` (spec §13.2)."""
    return ServerConfig(
        db=store_path,
        public_url=public_url,
        allowed_hosts=tuple(allowed_hosts),
        allowed_origins=tuple(allowed_origins),
        max_body_bytes=max_body_bytes,
        limits=input_limits,
        bindings=Bindings(agui=False, grpc=grpc),
        webhooks=WebhookPolicy(loopback=allow_loopback_webhooks),
    )


def _service(
    config: ServerConfig,
    agent: str | Agent | None,
    store: Store | None,
    clock: Clock | None,
    ids: IdSource | None,
    agent_options: dict[str, Any] | None,
) -> A2AService:
    """A new service for ``agent`` (default: the config's) with its tasks in ``store`` or in
    ``config.db``, and the config's webhook policy (spec §13.2)."""
    chosen = agent if agent is not None else (config.a2a_agent or "travel")
    the_agent = make_agent(chosen, **(agent_options or {})) if isinstance(chosen, str) else chosen
    options = {} if config.service_limits is None else {"limits": config.service_limits}
    service = A2AService(
        the_agent,
        store=TaskStore(store if store is not None else config.db),
        clock=clock,
        ids=ids,
        allow_loopback_webhooks=config.webhooks.allow_loopback(config),
        **options,
    )
    service.allow_private_webhooks = config.webhooks.private
    return service


def create_a2a_app(
    config: ServerConfig | None = None,
    *,
    agent: str | Agent | None = None,
    clock: Clock | None = None,
    ids: IdSource | None = None,
    agent_options: dict[str, Any] | None = None,
    store: Store | None = None,
    service: A2AService | None = None,
    **options: Any,
) -> Starlette:
    """A Starlette app serving one A2A agent — a shipped agent's name (``travel``,
    ``conformance``, ``echo``) or any agent object, e.g. a notebook's own — on the server
    ``config`` describes (a :class:`~agentproto.server.ServerConfig`, the one description
    :func:`agentproto.demo.app.create_app` and ``agentproto serve`` use; or its options as
    keywords, see :func:`a2a_config`). Both factories build the same three parts from the
    config: :meth:`A2AApplication.for_server`, :func:`a2a_lifespan` and
    :meth:`GuardConfig.for_server <agentproto.server.GuardConfig.for_server>`. The demo app
    adds AG-UI and auth mode; this one serves the A2A bindings only (``config.bindings.agui``
    is not read). ``app.state.a2a`` is its :class:`A2AApplication` (``app.state.a2a.service``
    for tasks, timelines, pushes); ``service`` replaces the one it would build.

    JSON-RPC is at ``/a2a``, HTTP+JSON under ``/a2a/rest``; ``grpc=True`` (``bindings.grpc``)
    also starts the gRPC binding on a free loopback port for the app's lifetime (needs
    grpcio) — the card then lists all three. The input limits and the body budget apply on all
    three.

    Safe by default: push webhooks to loopback/private addresses are refused (pass
    ``allow_loopback_webhooks=True`` on a teaching machine), and the
    :class:`~agentproto.server.HTTPGuard` refuses other ``Host`` names than the loopback ones,
    the bound address and ``allowed_hosts`` (DNS rebinding), any ``Origin`` not in
    ``allowed_origins``, non-JSON POSTs to the RPC path (415) and bodies over
    ``max_body_bytes`` (413). Card URLs come from ``public_url``, else from the bound address —
    never from ``Host``."""
    if config is None:
        config = a2a_config(**options)
    elif options:
        raise TypeError(f"create_a2a_app takes a ServerConfig or options, not both: {sorted(options)}")
    made = service if service is not None else _service(config, agent, store, clock, ids, agent_options)
    a2a = A2AApplication.for_server(made, config)
    guard = GuardConfig.for_server(config, jsonrpc_paths=(a2a.rpc_path,))
    app = Starlette(
        routes=a2a.routes(),
        lifespan=a2a_lifespan(made, config),
        middleware=[Middleware(HTTPGuard, config=guard)],
    )
    app.state.a2a = a2a
    return app
