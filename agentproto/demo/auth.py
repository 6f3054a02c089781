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
* keeps **ownership**: the token's subject owns the AG-UI threads and the A2A tasks and contexts
  it creates. Another subject asking for them gets exactly what an unknown id gets —
  ``404 thread_not_found`` / ``404 run_not_active`` (AG-UI), ``-32001 TaskNotFound`` (A2A) —
  and ``ListTasks`` shows each subject only its own tasks.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any
from urllib.parse import parse_qs, urlencode

from cryptography.hazmat.primitives.asymmetric import ec

from agentproto.a2a.errors import TaskNotFoundError
from agentproto.a2a.types import AgentCard
from agentproto.clock import Clock
from agentproto.security.errors import OAuthError
from agentproto.security.oauth import AuthorizationServer
from agentproto.security.serving import BearerAuth, client_credentials_scheme, requirement
from agentproto.store import Store

__all__ = ["AuthGate", "OwnerTable", "secure", "parse_client", "TOKEN_PATH", "JWKS_PATH", "AUDIENCE", "SCOPE"]

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
_TASK_METHODS = {
    "GetTask": "id",
    "CancelTask": "id",
    "SubscribeToTask": "id",
    "CreateTaskPushNotificationConfig": "taskId",
    "GetTaskPushNotificationConfig": "taskId",
    "ListTaskPushNotificationConfigs": "taskId",
    "DeleteTaskPushNotificationConfig": "taskId",
}
_THREAD_PATH = re.compile(r"^/ag-ui/threads/([^/]+)")
_CANCEL_PATH = re.compile(r"^/ag-ui/runs/([^/]+)/cancel$")


def parse_client(spec: str) -> tuple[str, str]:
    """``"NAME:SECRET"`` → ``(name, secret)`` (the ``--client`` option)."""
    name, sep, secret = spec.partition(":")
    if not sep or not name or not secret:
        raise ValueError(f"--client wants NAME:SECRET, got {spec!r}")
    return name, secret


class OwnerTable:
    """Who owns which thread, task and context (persisted next to them, survives restarts)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        store.ensure_schema("demo_owners", 1, _OWNERS_DDL)

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

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == TOKEN_PATH:
            await self._token(scope, receive, send)
        elif scope["type"] == "http" and scope["path"] == JWKS_PATH:
            await _json(send, 200, self.authority.jwks())
        else:
            await self.bearer(scope, receive, send)

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
        """Behind the bearer check: enforce ownership for ``claims.subject``."""
        if scope["type"] != "http" or scope["path"] in ("/", CARD_PATH):
            await self.app(scope, receive, send)
            return
        subject = scope["state"]["claims"].subject
        path, method = scope["path"], scope.get("method")
        if path == "/a2a" and method == "POST":
            await self._a2a(scope, receive, send, subject)
            return
        if path == "/ag-ui/agent" and method == "POST":
            body, receive = await _read(receive)
            try:
                thread = json.loads(body).get("threadId")
            except (ValueError, AttributeError, RecursionError):
                thread = None  # the app answers malformed input itself
            if isinstance(thread, str) and not self.owners.claim("thread", thread, subject):
                await _json(
                    send, 404, {"error": {"code": "thread_not_found", "message": f"No thread {thread!r}"}}
                )
                return
        elif (m := _THREAD_PATH.match(path)) is not None:
            if self.owners.owner("thread", m.group(1)) != subject:
                await _json(
                    send, 404, {"error": {"code": "thread_not_found", "message": f"No thread {m.group(1)!r}"}}
                )
                return
        elif (m := _CANCEL_PATH.match(path)) is not None:
            mine = [
                r.thread_id
                for r in self.app.state.agui_runs.find(m.group(1))
                if self.owners.owner("thread", r.thread_id) == subject
            ]
            if not mine:
                await _json(
                    send,
                    404,
                    {"error": {"code": "run_not_active", "message": f"Run {m.group(1)!r} is not running"}},
                )
                return
            scope = {**scope, "query_string": urlencode({"threadId": mine[0]}).encode()}
        await self.app(scope, receive, send)

    async def _a2a(self, scope: Scope, receive: Receive, send: Send, subject: str) -> None:
        body, receive = await _read(receive)
        try:
            request = json.loads(body)
            method, params = request.get("method"), request.get("params") or {}
            request_id = request.get("id")
        except (ValueError, AttributeError, RecursionError):
            await self.app(scope, receive, send)  # malformed: the dispatcher says why
            return
        if not isinstance(params, dict):
            await self.app(scope, receive, send)
            return
        task_key = _TASK_METHODS.get(method) if isinstance(method, str) else None
        named = params.get(task_key) if task_key else None
        message = params.get("message") if method in ("SendMessage", "SendStreamingMessage") else None
        refused = False
        if isinstance(named, str):
            refused = self.owners.owner("task", named) != subject
        elif isinstance(message, dict):
            task_id, context_id = message.get("taskId"), message.get("contextId")
            if isinstance(task_id, str) and task_id:
                refused = self.owners.owner("task", task_id) != subject
            if isinstance(context_id, str) and context_id:
                refused = refused or not self.owners.claim("context", context_id, subject)
        if refused:
            rid = request_id if isinstance(request_id, str | int) else None
            await _json(send, 200, TaskNotFoundError("Task not found").response(rid))
            return
        await self.app(scope, receive, self._claiming(send, subject, method == "ListTasks"))

    def _claiming(self, send: Send, subject: str, filtering: bool) -> Send:
        """A ``send`` that claims every task the response reveals for ``subject`` and, for
        ``ListTasks``, drops the tasks of other subjects from the answer."""
        start: MutableMapping[str, Any] | None = None
        chunks: list[bytes] = []

        def claim(frame: Any) -> None:
            result = frame.get("result") if isinstance(frame, dict) else None
            if not isinstance(result, dict):
                return
            found = [
                (result.get("task"), "id"),
                (result.get("statusUpdate"), "taskId"),
                (result.get("artifactUpdate"), "taskId"),
            ]
            for holder, key in found:
                if isinstance(holder, dict):
                    ident, ctx = holder.get(key), holder.get("contextId")
                    if isinstance(ident, str) and ident:
                        self.owners.claim("task", ident, subject)
                    if isinstance(ctx, str) and ctx:
                        self.owners.claim("context", ctx, subject)

        async def wrapped(message: MutableMapping[str, Any]) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            body = message.get("body", b"")
            assert start is not None, "a body before the response start"
            media = dict(start.get("headers", [])).get(b"content-type", b"")
            if media.startswith(b"text/event-stream"):
                for line in body.split(b"\n"):
                    if line.startswith(b"data:"):
                        try:
                            claim(json.loads(line[5:]))
                        except ValueError:
                            pass
                if start is not None and not start.get("_sent"):
                    start["_sent"] = True
                    await send({k: v for k, v in start.items() if k != "_sent"})
                await send(message)
                return
            chunks.append(body)
            if message.get("more_body", False):
                return
            data = b"".join(chunks)
            try:
                frame = json.loads(data)
            except ValueError:
                frame = None
            claim(frame)
            if filtering and isinstance(frame, dict) and isinstance(frame.get("result"), dict):
                result = frame["result"]
                tasks = result.get("tasks", [])
                mine = [t for t in tasks if self.owners.owner("task", t.get("id", "")) == subject]
                result["tasks"] = mine
                if "totalSize" in result:
                    result["totalSize"] = max(0, int(result["totalSize"]) - (len(tasks) - len(mine)))
                data = json.dumps(frame).encode()
            headers = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", str(len(data)).encode())]})
            await send({"type": "http.response.body", "body": data})

        return wrapped


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
    return AuthGate(app, authority, clock=clock, leeway_s=leeway_s)


def _declare(service: Any, token_url: str) -> None:
    """Make the service's card declare how to authenticate (A2A §4.4)."""
    original = service.card
    schemes = {"oauth": client_credentials_scheme(token_url, {SCOPE: "use the demo agents"})}
    needs = [requirement(oauth=[SCOPE])]

    def card(base_url: str) -> AgentCard:
        plain: AgentCard = original(base_url)
        return plain.model_copy(update={"security_schemes": schemes, "security_requirements": needs})

    service.card = card
