"""Auth mode of ``agentproto serve --auth --client NAME:SECRET``: the kit's own authorization
server inside the demo app, bearer tokens on every endpoint, and per-subject ownership.

:func:`secure` wraps the demo app in :class:`AuthGate`, an ASGI layer that

* serves ``POST /oauth/token`` (OAuth 2.0 client credentials; ``client_secret_post`` and
  ``client_secret_basic``) and the JWK Set at ``GET /.well-known/jwks.json``;
* leaves ``/`` and the public Agent Card open (the card declares ``securitySchemes`` and
  ``securityRequirements``) and demands a valid bearer token everywhere else — issuer,
  audience, expiry (with ``leeway_s`` skew), scope and pinned algorithms are checked by
  :class:`~agentproto.security.serving.BearerAuth`; a missing or bad token is a 401 with an
  RFC 6750 ``WWW-Authenticate`` challenge. ``GetExtendedAgentCard`` needs a token like the rest;
* passes the token's subject on (``scope["state"]["claims"]``) to the apps behind it, which
  keep **ownership** themselves. A2A: the service layer (:class:`~agentproto.a2a.jsonrpc.
  CallerScope`; the task store filters every read by tenant and owner) answers another
  subject's task, context or push config with TaskNotFound on all three bindings — ``-32001``,
  HTTP 404, gRPC ``NOT_FOUND`` — and ``ListTasks`` lists only the caller's. The gRPC binding
  gets the same bearer check through :func:`grpc_authenticator`. AG-UI: the AG-UI server
  keeps thread ownership itself (:mod:`agentproto.agui.threadstore_owners`) and answers
  another subject's thread, run events or cancel with ``404 thread_not_found`` /
  ``404 run_not_active``; a new run or resume on it is ``404 thread_not_found`` too.

A database written while ownership lived in this layer (``demo_owners`` version 1, with
``task``, ``context`` and ``thread`` rows) is migrated when it is opened: the owners are
written into the A2A and AG-UI tables and the rows removed (``demo_owners`` version 3).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from cryptography.hazmat.primitives.asymmetric import ec

from agentproto.a2a.taskstore import TaskStore
from agentproto.a2a.types import AgentCard
from agentproto.agui.threadstore_owners import ThreadOwners
from agentproto.clock import Clock
from agentproto.http_guard import HTTPGuard
from agentproto.security.errors import OAuthError, TokenError
from agentproto.security.oauth import AuthorizationServer
from agentproto.security.serving import BearerAuth, client_credentials_scheme, requirement
from agentproto.security.tokens import authorize, challenge
from agentproto.store import Store

__all__ = [
    "AuthGate",
    "OwnerTable",
    "secure",
    "parse_client",
    "grpc_authenticator",
    "TOKEN_PATH",
    "JWKS_PATH",
    "AUDIENCE",
    "SCOPE",
]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

TOKEN_PATH = "/oauth/token"
JWKS_PATH = "/.well-known/jwks.json"
CARD_PATH = "/.well-known/agent-card.json"
AUDIENCE = "agentproto-demo"
SCOPE = "agent:use"
_OWNERS_DDL = [
    "CREATE TABLE demo_owners (kind TEXT NOT NULL, id TEXT NOT NULL, "
    "subject TEXT NOT NULL, PRIMARY KEY (kind, id))"
]
#: Version 2: A2A ownership lives in the A2A tables (schema ``a2a`` version 2); move the
#: owners version 1 kept here for tasks and contexts there, then forget them.
_OWNERS_V2 = [
    "UPDATE a2a_tasks SET owner = (SELECT subject FROM demo_owners o "
    "WHERE o.kind = 'task' AND o.id = a2a_tasks.id) "
    "WHERE owner = '' AND id IN (SELECT id FROM demo_owners WHERE kind = 'task')",
    "UPDATE a2a_push_configs SET owner = (SELECT owner FROM a2a_tasks t "
    "WHERE t.id = a2a_push_configs.task_id) "
    "WHERE owner = '' AND task_id IN (SELECT id FROM a2a_tasks WHERE owner != '')",
    "UPDATE a2a_contexts SET owner = (SELECT subject FROM demo_owners o "
    "WHERE o.kind = 'context' AND o.id = a2a_contexts.context_id) "
    "WHERE owner = '' AND context_id IN (SELECT id FROM demo_owners WHERE kind = 'context')",
    "INSERT OR IGNORE INTO a2a_contexts (context_id, tenant, owner) "
    "SELECT id, '', subject FROM demo_owners WHERE kind = 'context'",
    "DELETE FROM demo_owners WHERE kind IN ('task', 'context')",
]
#: Version 3: AG-UI thread ownership lives in the AG-UI server's table ``agui_thread_owners``.
_OWNERS_V3 = [
    "INSERT OR IGNORE INTO agui_thread_owners (thread_id, owner) "
    "SELECT id, subject FROM demo_owners WHERE kind = 'thread'",
    "DELETE FROM demo_owners WHERE kind = 'thread'",
]


def parse_client(spec: str) -> tuple[str, str]:
    """``"NAME:SECRET"`` → ``(name, secret)`` (the ``--client`` option)."""
    name, sep, secret = spec.partition(":")
    if not sep or not name or not secret:
        raise ValueError(f"--client wants NAME:SECRET, got {spec!r}")
    return name, secret


class OwnerTable:
    """The owners this layer used to keep (``demo_owners``); opening it migrates them to the
    A2A and AG-UI tables, which keep ownership now. Empty on any current database."""

    def __init__(self, store: Store) -> None:
        self.store = store
        TaskStore(store)  # the A2A tables at their current version, which v2 below writes to
        ThreadOwners(store)  # the AG-UI owners table, which v3 writes to
        store.ensure_schema("demo_owners", 3, {1: _OWNERS_DDL, 2: _OWNERS_V2, 3: _OWNERS_V3})

    def owner(self, kind: str, ident: str) -> str | None:
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT subject FROM demo_owners WHERE kind = ? AND id = ?", (kind, ident)
            ).fetchone()
        return None if row is None else str(row[0])

    def claim(self, kind: str, ident: str, subject: str) -> bool:
        """Make ``subject`` the owner if nobody is; True if ``subject`` owns it afterwards."""
        with self.store.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO demo_owners (kind, id, subject) VALUES (?, ?, ?)",
                (kind, ident, subject),
            )
        return self.owner(kind, ident) == subject


async def _json(send: Send, status: int, body: Any, headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
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


async def _read(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body (the HTTP guard in front already capped its size) and a
    ``receive`` that replays it."""
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body", False):
            break
    body = b"".join(chunks)
    sent = False

    async def replay() -> MutableMapping[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


class AuthGate:
    """The ASGI layer described in the module docstring; wraps the demo app."""

    def __init__(
        self,
        app: Any,
        authority: AuthorizationServer,
        *,
        clock: Clock,
        audience: str = AUDIENCE,
        scope: str = SCOPE,
        leeway_s: float = 30,
    ) -> None:
        self.app = app
        self.authority = authority
        self.owners = OwnerTable(app.state.store)
        self.bearer = BearerAuth(
            self._owned,
            audience=audience,
            keys=authority.key_set(),
            clock=clock,
            required_scopes={scope},
            leeway_s=leeway_s,
            issuer=authority.issuer,
            public_paths=("/", CARD_PATH),
        )

        # The token and JWKS endpoints answer before the app, so they get the app's own guard
        # (Host allow-list, Origin check, body limit): found by the outside probe.
        self._own_endpoints = HTTPGuard(self._endpoints, config=getattr(app.state, "guard_config", None))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] in (TOKEN_PATH, JWKS_PATH):
            await self._own_endpoints(scope, receive, send)
        else:
            await self.bearer(scope, receive, send)

    async def _endpoints(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"] == TOKEN_PATH:
            await self._token(scope, receive, send)
        else:
            await _json(send, 200, self.authority.jwks())

    async def _token(self, scope: Scope, receive: Receive, send: Send) -> None:
        body, _ = await _read(receive)
        no_store = [(b"cache-control", b"no-store")]
        if scope.get("method") != "POST":
            await _json(
                send,
                405,
                {"error": "invalid_request", "error_description": "POST the token request"},
                no_store,
            )
            return
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        basic = headers.get("authorization", "")
        if basic[:6].lower() == "basic ":  # client_secret_basic (RFC 6749 §2.3.1)
            try:
                name, _, secret = base64.b64decode(basic[6:].strip()).decode().partition(":")
            except (binascii.Error, UnicodeDecodeError):
                name, secret = "", ""
            form["client_id"], form["client_secret"] = name, secret
        form.setdefault("resource", AUDIENCE)
        try:
            answer = self.authority.token(form)
        except OAuthError as exc:
            extra = [(b"www-authenticate", b'Basic realm="agentproto"')] if exc.http_status == 401 else []
            await _json(send, exc.http_status, exc.to_json(), [*no_store, *extra])
            return
        await _json(send, 200, answer, no_store)

    async def _owned(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Behind the bearer check. ``scope["state"]["claims"]`` carries the subject; the A2A
        service and the AG-UI server enforce ownership with it themselves, on every route."""
        await self.app(scope, receive, send)


def secure(
    app: Any,
    clients: Mapping[str, str],
    *,
    clock: Clock,
    issuer: str,
    key: Any = None,
    leeway_s: float = 30,
    ttl_s: int = 3600,
) -> AuthGate:
    """Wrap the demo ``app`` for auth mode; ``clients`` maps client ids to secrets."""
    authority = AuthorizationServer(
        issuer, key or ec.generate_private_key(ec.SECP256R1()), kid="demo-1", clock=clock, ttl_s=ttl_s
    )
    for name, secret in clients.items():
        authority.register_client(name, secret, scopes=[SCOPE], resources=[AUDIENCE])
    service = app.state.a2a_service
    if service is not None:
        _declare(service, issuer.rstrip("/") + TOKEN_PATH)
    # the gRPC binding (started by the app's lifespan) checks the same tokens
    app.state.a2a_grpc_authenticate = grpc_authenticator(authority, clock=clock, leeway_s=leeway_s)
    return AuthGate(app, authority, clock=clock, leeway_s=leeway_s)


def grpc_authenticator(
    authority: AuthorizationServer, *, clock: Clock, leeway_s: float = 30, audience: str = AUDIENCE
) -> Callable[[Mapping[str, str]], str | None]:
    """``metadata → subject`` for the gRPC binding: the bearer token in the ``authorization``
    metadata, verified as :class:`BearerAuth` verifies it over HTTP. A refusal is a
    ``GrpcAuthError`` — ``UNAUTHENTICATED`` (``PERMISSION_DENIED`` for a missing scope) with
    the RFC 6750 challenge (spec §7.4: binding-specific codes, challenge information)."""
    keys = authority.key_set()

    def authenticate(metadata: Mapping[str, str]) -> str | None:
        from agentproto.a2a.grpc_server import GrpcAuthError  # needs grpcio, as the binding does

        try:
            claims = authorize(
                metadata,
                audience=audience,
                keys=keys,
                clock=clock,
                required_scopes={SCOPE},
                leeway_s=leeway_s,
                issuer=authority.issuer,
            )
        except TokenError as exc:
            code = "PERMISSION_DENIED" if exc.http_status == 403 else "UNAUTHENTICATED"
            raise GrpcAuthError(exc.message, code=code, challenge=challenge(exc)) from None
        return claims.subject

    return authenticate


def _declare(service: Any, token_url: str) -> None:
    """Make the service's card declare how to authenticate (A2A §4.4)."""
    original = service.card
    schemes = {"oauth": client_credentials_scheme(token_url, {SCOPE: "use the demo agents"})}
    needs = [requirement(oauth=[SCOPE])]

    def card(base_url: str) -> AgentCard:
        plain: AgentCard = original(base_url)
        return plain.model_copy(update={"security_schemes": schemes, "security_requirements": needs})

    service.card = card
