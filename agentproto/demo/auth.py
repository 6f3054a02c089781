"""Auth mode of ``agentproto serve --auth --client NAME:SECRET``: the kit's own authorization
server inside the demo app, bearer tokens on every endpoint, and per-subject ownership.

:func:`auth_mode` builds it from a :class:`~agentproto.server.ServerConfig` whose ``auth`` is
set, and :func:`agentproto.demo.app.create_app` puts it inside the app: the card declares the
token endpoint from the start (:meth:`AuthMode.declare`), the gRPC binding gets the same bearer
check (:meth:`AuthMode.grpc_authenticate`), and :class:`AuthGate`, an ASGI layer behind the
app's HTTP guard,

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
  keeps thread ownership itself (:mod:`agentproto.agui._threadstore_owners`) and answers
  another subject's thread, run events or cancel with ``404 thread_not_found`` /
  ``404 run_not_active``; a new run or resume on it is ``404 thread_not_found`` too.

A database written while ownership lived in this layer (``demo_owners`` version 1, with
``task``, ``context`` and ``thread`` rows) is migrated when it is opened: the owners are
written into the A2A and AG-UI tables and the rows removed (``demo_owners`` version 3).
"""

from __future__ import annotations

import base64
import binascii
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from cryptography.hazmat.primitives.asymmetric import ec

from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.types import AgentCard
from agentproto.agui._threadstore_owners import ThreadOwners
from agentproto.client_auth import secret_env_name  # one convention for both ends
from agentproto.clock import Clock
from agentproto.security.errors import OAuthError, OAuthThrottled, TokenError
from agentproto.security.oauth import AuthorizationServer
from agentproto.security.serving import BearerAuth, client_credentials_scheme, requirement
from agentproto.security.throttle import ClientAuthThrottle
from agentproto.security.tokens import authorize, challenge
from agentproto.server._asgi import Receive, Scope, Send, send_json
from agentproto.server._log import log_event
from agentproto.server._paths import AGENT_CARD_PATH, JWKS_PATH, TOKEN_PATH
from agentproto.server.config import AuthConfig, ServerConfig
from agentproto.store import Store

__all__ = [
    "AuthGate",
    "AuthMode",
    "OwnerTable",
    "auth_mode",
    "parse_client",
    "resolve_clients",
    "read_clients_file",
    "secret_env_name",
    "token_form",
    "MIN_SECRET_CHARS",
    "grpc_authenticator",
    "TOKEN_PATH",
    "JWKS_PATH",
    "AUDIENCE",
    "SCOPE",
]

#: The token request's body format (RFC 6749 §4.4.2, Appendix B).
FORM_MEDIA_TYPE = "application/x-www-form-urlencoded"
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


#: The shortest client secret ``agentproto serve --auth`` starts with (characters).
MIN_SECRET_CHARS = 16


def parse_client(spec: str) -> tuple[str, str]:
    """``"NAME:SECRET"`` → ``(name, secret)`` (the ``--client`` option)."""
    name, sep, secret = spec.partition(":")
    if not sep or not name or not secret:
        raise ValueError(f"--client wants NAME:SECRET, got {spec!r}")
    return name, secret


def read_clients_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """The clients in a ``--clients-file``: lines ``NAME:SECRET`` (blank lines and ``#``
    comments skipped). Refused unless it is a regular file owned by this user that no one
    else may read or write (mode 0600 or stricter) — the secrets are in it."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise ValueError(f"--clients-file {str(path)!r}: cannot open it ({exc.strerror})") from None
    with os.fdopen(fd, encoding="utf-8") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"--clients-file {str(path)!r} is not a regular file")
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            raise ValueError(f"--clients-file {str(path)!r} belongs to another user; it must be yours")
        if info.st_mode & 0o077:
            raise ValueError(
                f"--clients-file {str(path)!r} has mode {stat.S_IMODE(info.st_mode):04o}: other users "
                f"can read it; run chmod 600 {str(path)!r}"
            )
        try:
            text = handle.read()
        except UnicodeDecodeError:
            raise ValueError(f"--clients-file {str(path)!r} is not UTF-8 text") from None
    clients: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, secret = line.partition(":")
        if not sep or not name.strip() or not secret:
            raise ValueError(f"--clients-file {str(path)!r}, line {number}: want NAME:SECRET")
        if name.strip() in clients:
            raise ValueError(f"--clients-file {str(path)!r}, line {number}: client {name!r} twice")
        clients[name.strip()] = secret
    return clients


def resolve_clients(
    specs: Iterable[str],
    *,
    clients_file: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] = os.environ,
    min_secret_chars: int = MIN_SECRET_CHARS,
) -> tuple[dict[str, str], list[str]]:
    """The clients of ``serve --auth`` and the warnings to print, from ``--client`` options
    (``NAME``: secret from :func:`secret_env_name`; ``NAME:SECRET``: works, with a warning
    that the secret is in the process list) and a ``--clients-file``. Raises ``ValueError``
    with the fix for a missing variable, a file others can read, a client named twice or a
    secret shorter than ``min_secret_chars``."""
    clients: dict[str, str] = {}
    warnings: list[str] = []
    for spec in specs:
        if ":" in spec:
            name, secret = parse_client(spec)
            warnings.append(
                f"warning: the secret of client {name!r} is on the command line, in the process "
                "list where every user of this machine can read it (ps, /proc/PID/cmdline); "
                f"use --client {name} with {secret_env_name(name)} set, or --clients-file"
            )
        else:
            name = spec.strip()
            if not name:
                raise ValueError("--client wants NAME (secret in the environment) or NAME:SECRET")
            variable = secret_env_name(name)
            secret = environ.get(variable, "")
            if not secret:
                raise ValueError(
                    f"--client {name}: set {variable} to its secret (or list it in --clients-file)"
                )
        if name in clients:
            raise ValueError(f"client {name!r} is given twice")
        clients[name] = secret
    if clients_file is not None:
        for name, secret in read_clients_file(clients_file).items():
            if name in clients:
                raise ValueError(f"client {name!r} is given twice (--client and --clients-file)")
            clients[name] = secret
    for name, secret in clients.items():
        if len(secret) < min_secret_chars:
            raise ValueError(
                f"the secret of client {name!r} has {len(secret)} characters; use at least "
                f"{min_secret_chars} (make one: python -c "
                "'import secrets; print(secrets.token_urlsafe(24))')"
            )
    return clients, warnings


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


def token_form(body: bytes, headers: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """The fields of a token request: the form body, plus the client's id and secret from
    ``Authorization: Basic`` (each form-url-decoded, RFC 6749 §2.3.1). Refused with
    ``invalid_request`` (RFC 6749 §5.2): a parameter sent twice (§3.1, §3.2), or two client
    authentication methods in one request — Basic *and* ``client_secret`` in the body, or a
    body ``client_id`` that is not Basic's (§2.3), or a body that is not form-encoded (§4.4.2
    asks for ``application/x-www-form-urlencoded``: a JSON body is told so, not that its
    ``grant_type`` is missing)."""
    headers = list(headers)
    media = next((v.decode("latin-1") for k, v in headers if k.lower() == b"content-type"), "")
    if media.split(";")[0].strip().lower() != FORM_MEDIA_TYPE:
        raise OAuthError(
            "invalid_request",
            f"send the token request as {FORM_MEDIA_TYPE} (RFC 6749 §4.4.2), not "
            f"{media.split(';')[0].strip()[:60] or 'a body without Content-Type'}",
        )
    pairs = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
    counts = Counter(name for name, _ in pairs)
    repeated = sorted(name for name, n in counts.items() if n > 1)
    if repeated:
        shown = ", ".join(repr(name[:40]) for name in repeated[:5])
        raise OAuthError("invalid_request", f"parameters must not be repeated (RFC 6749 §3.2): {shown}")
    form = dict(pairs)
    authorization = [v.decode("latin-1") for k, v in headers if k.lower() == b"authorization"]
    if len(authorization) > 1:
        raise OAuthError("invalid_request", "one Authorization header at most")
    basic = authorization[0] if authorization else ""
    if basic[:6].lower() == "basic ":  # client_secret_basic (RFC 6749 §2.3.1)
        try:
            raw_name, _, raw_secret = (
                base64.b64decode(basic[6:].strip(), validate=True).decode().partition(":")
            )
        except (binascii.Error, UnicodeDecodeError):
            raise OAuthError(
                "invalid_client", "Authorization: Basic is not base64 of id:secret", http_status=401
            ) from None
        name, secret = unquote_plus(raw_name), unquote_plus(raw_secret)
        if "client_secret" in form:
            raise OAuthError(
                "invalid_request",
                "use one client authentication method: Basic or client_secret in the body (RFC 6749 §2.3)",
            )
        if "client_id" in form and form["client_id"] != name:
            raise OAuthError(
                "invalid_request", "client_id in the body is not the one in Authorization: Basic"
            )
        form["client_id"], form["client_secret"] = name, secret
    form.setdefault("resource", AUDIENCE)
    return form


class AuthGate:
    """The ASGI layer described in the module docstring, inside the demo app.

    Layers, outside in: the app's HTTP guard (Host, Origin and CORS preflight, content type,
    body size) → this gate (token and JWKS endpoints; the bearer check) → the routes. The guard
    comes first so that a CORS preflight from a configured origin gets its 204 and a foreign
    Origin its 403 without a token.
    """

    def __init__(self, app: Any, mode: AuthMode) -> None:
        self.app = app
        self.mode = mode
        self.bearer = BearerAuth(
            app,
            audience=AUDIENCE,
            keys=mode.authority.key_set(),
            clock=mode.clock,
            required_scopes={SCOPE},
            leeway_s=mode.config.leeway_s,
            issuer=mode.authority.issuer,
            public_paths=("/", AGENT_CARD_PATH),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan (and anything else) goes to the app as it is
            await self.app(scope, receive, send)
        elif scope["path"] == TOKEN_PATH:
            await self._token(scope, receive, send)
        elif scope["path"] == JWKS_PATH:
            await send_json(send, 200, self.mode.authority.jwks())
        else:  # ``scope["state"]["claims"]`` carries the subject; the A2A service and the
            # AG-UI server enforce ownership with it themselves, on every route
            await self.bearer(scope, receive, send)

    async def _token(self, scope: Scope, receive: Receive, send: Send) -> None:
        body, _ = await _read(receive)
        no_store = [(b"cache-control", b"no-store")]
        if scope.get("method") != "POST":
            await send_json(
                send,
                405,
                {"error": "invalid_request", "error_description": "POST the token request"},
                no_store,
            )
            return
        client = scope.get("client")
        peer = str(client[0]) if client else ""
        form: dict[str, str] = {}
        try:
            form = token_form(body, scope.get("headers", []))
            answer = self.mode.authority.token(form, peer=peer)
        except OAuthError as exc:
            await _refuse_token(send, exc, form.get("client_id", ""), peer, no_store)
            return
        await send_json(send, 200, answer, no_store)


async def _refuse_token(
    send: Send, exc: OAuthError, client: str, peer: str, headers: list[tuple[bytes, bytes]]
) -> None:
    extra: list[tuple[bytes, bytes]] = []
    fields: dict[str, Any] = {}
    if exc.http_status == 401:
        extra = [(b"www-authenticate", b'Basic realm="agentproto"')]
    if isinstance(exc, OAuthThrottled):
        extra = [(b"retry-after", str(exc.retry_after_s).encode())]
        fields["retryAfter"] = exc.retry_after_s
    log_event(
        "oauth_refused", status=exc.http_status, code=exc.error, client=client[:200], peer=peer, **fields
    )
    await send_json(send, exc.http_status, exc.to_json(), [*headers, *extra])


class AuthMode:
    """Auth mode of one server, built once from its configuration (:func:`auth_mode`): the
    authorization server with the configured clients, and what each binding needs of it."""

    def __init__(self, config: AuthConfig, *, issuer: str, clock: Clock) -> None:
        self.config = config
        self.clock = clock
        self.issuer = issuer.rstrip("/")
        self.authority = AuthorizationServer(
            self.issuer,
            config.signing_key or ec.generate_private_key(ec.SECP256R1()),
            kid="demo-1",
            clock=clock,
            ttl_s=config.token_ttl_s,
            throttle=ClientAuthThrottle(clock),  # backoff per (address, client) and per address
        )
        for name, secret in config.clients:
            self.authority.register_client(name, secret, scopes=[SCOPE], resources=[AUDIENCE])

    @property
    def token_url(self) -> str:
        return self.issuer + TOKEN_PATH

    def declare(self, agent: Any) -> DeclaredAuthAgent:
        """``agent`` whose cards declare how to authenticate here (A2A §4.4)."""
        return DeclaredAuthAgent(agent, self.token_url)

    def grpc_authenticate(self) -> Callable[[Mapping[str, str]], Any]:
        """The gRPC binding's bearer check; it gets the verified claims, whose ``expires_at``
        ends a stream opened with the token (F18)."""
        return grpc_authenticator(
            self.authority, clock=self.clock, leeway_s=self.config.leeway_s, claims=True
        )


def auth_mode(config: ServerConfig, *, clock: Clock) -> AuthMode | None:
    """The auth mode of ``config`` (None when ``config.auth`` is not set)."""
    if config.auth is None:
        return None
    return AuthMode(config.auth, issuer=config.auth.issuer_for(config), clock=clock)


class DeclaredAuthAgent:
    """An A2A agent whose public and extended cards declare the demo's client-credentials
    scheme (``securitySchemes`` + ``securityRequirements``, A2A §4.4); everything else is the
    wrapped agent's. The card is still built by the agent: nothing replaces it at run time."""

    def __init__(self, agent: Any, token_url: str) -> None:
        self.agent = agent
        self._declared = {
            "security_schemes": {
                "oauth": client_credentials_scheme(token_url, {SCOPE: "use the demo agents"})
            },
            "security_requirements": [requirement(oauth=[SCOPE])],
        }

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)

    def card(self, url: str) -> AgentCard:
        card: AgentCard = self.agent.card(url)
        return card.model_copy(update=self._declared)

    def extended_card(self, url: str) -> AgentCard | None:
        card: AgentCard | None = self.agent.extended_card(url)
        return None if card is None else card.model_copy(update=self._declared)


def grpc_authenticator(
    authority: AuthorizationServer,
    *,
    clock: Clock,
    leeway_s: float = 30,
    audience: str = AUDIENCE,
    claims: bool = False,
) -> Callable[[Mapping[str, str]], Any]:
    """``metadata → subject`` for the gRPC binding: the bearer token in the ``authorization``
    metadata, verified as :class:`BearerAuth` verifies it over HTTP. A refusal is a
    ``GrpcAuthError`` — ``UNAUTHENTICATED`` (``PERMISSION_DENIED`` for a missing scope) with
    the RFC 6750 challenge (spec §7.4: binding-specific codes, challenge information).

    ``claims=True``: ``metadata →`` the verified :class:`~agentproto.security.tokens.Claims`
    instead (``subject``, and ``expires_at``: when a stream opened with the token must end
    with ``UNAUTHENTICATED``; :func:`~agentproto.security.tokens.valid_until_ms` adds the
    leeway). The gRPC binding accepts either."""
    keys = authority.key_set()

    def authenticate(metadata: Mapping[str, str]) -> Any:
        from agentproto.a2a._grpc_server import GrpcAuthError  # needs grpcio, as the binding does

        try:
            verified = authorize(
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
        return verified if claims else verified.subject

    return authenticate
