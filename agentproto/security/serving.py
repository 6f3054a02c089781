"""Adapters that put the security core in front of a real server (the only I/O in this package).

* :class:`BearerAuth` — pure ASGI middleware: every request except the public paths (the Agent
  Card) must carry a valid bearer token for this agent, or it is answered 401/403 with an
  RFC 6750 challenge and a ``google.rpc.Status`` body, before the app sees it (A2A §7: the
  server MUST authenticate every request). The caller's :class:`~agentproto.security.tokens.Claims`
  land in ``request.state.claims``. Pure ASGI rather than ``BaseHTTPMiddleware`` so that SSE
  streams pass through untouched. A response still running when the token expires is ended
  then (:data:`EXPIRY_CHECK_S`): a stream gets a final SSE comment and its end, a response not
  begun gets the 401 an expired token gets — a stream never outlives its token.
* :class:`SignedCardAgent` — wraps an A2A agent so that its card *declares* how to
  authenticate (``securitySchemes`` + ``securityRequirements``, A2A §4.4) and is *signed*
  (§8.4): the two halves of "both sides prove who they are".

Neither edits the A2A server: wrap its app, or hand it the wrapped agent::

    agent = SignedCardAgent(TravelDeskAgent(), card_key, kid="travel-2026",
                            security_schemes={"oauth": client_credentials_scheme(token_url,
                                                                                 scopes)},
                            security_requirements=[requirement(oauth=["travel:plan"])])
    app = BearerAuth(create_a2a_app(agent=agent), audience="travel-desk", keys=auth.key_set(),
                     clock=clock, required_scopes={"travel:plan"})
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse

from agentproto.a2a.types import (
    AgentCard,
    ClientCredentialsOAuthFlow,
    HTTPAuthSecurityScheme,
    OAuth2SecurityScheme,
    OAuthFlows,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from agentproto.clock import Clock
from agentproto.security.cards import canonical_card_payload, sign_card
from agentproto.security.errors import TokenError, TokenExpired
from agentproto.security.keys import ASYMMETRIC_ALGORITHMS, KeySet
from agentproto.security.tokens import authorize, challenge, error_body, valid_until_ms
from agentproto.server._asgi import ASGIApp, Scope
from agentproto.server._paths import AGENT_CARD_PATH

__all__ = [
    "BearerAuth",
    "SignedCardAgent",
    "bearer_scheme",
    "client_credentials_scheme",
    "requirement",
    "PUBLIC_PATHS",
    "LOG_SIZE",
    "LOG_PATH_CHARS",
    "EXPIRY_CHECK_S",
    "CLOSE_GRACE_S",
    "EXPIRED_STREAM_COMMENT",
]

#: Paths anyone may read: the Agent Card is how a caller learns how to authenticate (§8.2).
PUBLIC_PATHS = (AGENT_CARD_PATH,)
#: Entries :attr:`BearerAuth.log` keeps (the most recent); 0 keeps none.
LOG_SIZE = 1000
#: Characters of a request path kept in a log entry (the path is the client's to choose).
LOG_PATH_CHARS = 200
#: How often (seconds) a running response re-reads the clock to see whether its token expired.
EXPIRY_CHECK_S = 1.0
#: How long (seconds) an app has to finish on its own once its token expired, before it is
#: cancelled.
CLOSE_GRACE_S = 1.0
#: The last bytes of an SSE stream ended because its token expired: a comment, which every
#: SSE parser skips (no event of either binding means "your token expired"); the client's
#: reconnect with the same token then gets the 401 ``invalid_token`` challenge.
EXPIRED_STREAM_COMMENT = b": bearer token expired; reconnect with a new token\n\n"


class BearerAuth:
    """Refuse every request without a valid bearer token for ``audience`` (see module docs).

    ``log`` records ``(method, path, outcome)`` per request — ``"ok"`` or the error's rule —
    for notebooks and tests: the last ``log_size`` requests (:data:`LOG_SIZE`), each path cut
    to :data:`LOG_PATH_CHARS` characters, so that requests without a token cannot grow it.
    ``expiry_check_s`` is how often a running response checks its token's expiry.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        audience: str,
        keys: KeySet | Mapping[str, Any],
        clock: Clock,
        required_scopes: Iterable[str] = (),
        public_paths: Sequence[str] = PUBLIC_PATHS,
        realm: str = "agentproto",
        leeway_s: float = 0,
        issuer: str | None = None,
        algorithms: Iterable[str] = ASYMMETRIC_ALGORITHMS,
        log_size: int = LOG_SIZE,
        expiry_check_s: float = EXPIRY_CHECK_S,
    ) -> None:
        self.app = app
        self.audience = audience
        self.keys = KeySet.of(keys)
        self.clock = clock
        self.required_scopes = frozenset(required_scopes)
        self.public_paths = tuple(public_paths)
        self.realm = realm
        self.leeway_s = leeway_s
        self.issuer = issuer
        self.algorithms = tuple(algorithms)
        self.log: deque[tuple[str, str, str]] = deque(maxlen=max(0, log_size))
        self.expiry_check_s = expiry_check_s

    def __getattr__(self, name: str) -> Any:
        # ``wrapped.state`` and friends reach the inner Starlette app.
        return getattr(self.app, name)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] in self.public_paths:
            await self.app(scope, receive, send)
            return
        try:
            claims = authorize(
                Headers(scope=scope),
                audience=self.audience,
                keys=self.keys,
                clock=self.clock,
                required_scopes=self.required_scopes,
                leeway_s=self.leeway_s,
                issuer=self.issuer,
                algorithms=self.algorithms,
            )
        except TokenError as exc:
            self._record(scope, exc.rule)
            await self._refuse(exc, scope, receive, send)
            return
        self._record(scope, "ok")
        scope.setdefault("state", {})["claims"] = claims
        await self._until_expiry(scope, receive, send, valid_until_ms(claims, self.leeway_s))

    def _record(self, scope: Scope, outcome: str) -> None:
        self.log.append((str(scope.get("method", "")), str(scope["path"])[:LOG_PATH_CHARS], outcome))

    async def _refuse(self, exc: TokenError, scope: Scope, receive: Any, send: Any) -> None:
        response = JSONResponse(
            error_body(exc),
            status_code=exc.http_status,
            headers={"WWW-Authenticate": challenge(exc, realm=self.realm)},
        )
        await response(scope, receive, send)

    async def _expired(self, deadline_ms: float) -> None:
        """Return once the clock passes ``deadline_ms`` (re-read every ``expiry_check_s``)."""
        while True:
            left_s = (deadline_ms - self.clock.now_ms()) / 1000
            if left_s <= 0:
                return
            await asyncio.sleep(min(left_s, self.expiry_check_s))

    async def _until_expiry(self, scope: Scope, receive: Any, send: Any, deadline_ms: float) -> None:
        """Run the app; if the token expires first, end its response (see module docs).

        At expiry the app sees what a client that left looks like — ``receive`` answers
        ``http.disconnect`` and ``send`` raises ``OSError`` — and is cancelled if it has not
        finished :data:`CLOSE_GRACE_S` later. Then the stream is ended here."""
        expired = asyncio.Event()
        state = {"started": False, "ended": False, "sse": False, "boundary": True}

        async def guarded_send(message: Any) -> None:
            if expired.is_set():
                raise OSError("the bearer token expired; the response was closed")
            if message["type"] == "http.response.start":
                state["started"] = True
                media = Headers(raw=list(message.get("headers", []))).get("content-type", "")
                state["sse"] = media.split(";")[0].strip().lower() == "text/event-stream"
            elif message["type"] == "http.response.body":
                body = bytes(message.get("body", b""))
                if body:
                    state["boundary"] = body.endswith((b"\n\n", b"\r\n\r\n", b"\r\r"))
                if not message.get("more_body", False):
                    state["ended"] = True
            await send(message)

        async def guarded_receive() -> Any:
            if expired.is_set():
                return {"type": "http.disconnect"}
            incoming = asyncio.ensure_future(receive())
            waiter = asyncio.ensure_future(expired.wait())
            try:
                await asyncio.wait({incoming, waiter}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
            if incoming.done():
                return incoming.result()
            incoming.cancel()
            return {"type": "http.disconnect"}

        app = asyncio.ensure_future(self.app(scope, guarded_receive, guarded_send))
        watch = asyncio.ensure_future(self._expired(deadline_ms))
        try:
            await asyncio.wait({app, watch}, return_when=asyncio.FIRST_COMPLETED)
            if app.done():
                app.result()  # the app's own outcome, exceptions included
                return
            expired.set()
            self._record(scope, "token.expired-during-response")
            done, _ = await asyncio.wait({app}, timeout=CLOSE_GRACE_S)
            if not done:
                app.cancel()
                await asyncio.wait({app}, timeout=CLOSE_GRACE_S)
            if app.done() and not app.cancelled():
                app.exception()  # its outcome after the close (our OSError, say) reaches nobody
        finally:
            watch.cancel()
            if not app.done():
                app.cancel()
        if not state["started"]:
            await self._refuse(
                TokenExpired("The access token expired while the request was being answered"),
                scope,
                receive,
                send,
            )
        elif not state["ended"]:
            if state["sse"] and state["boundary"]:
                await send({"type": "http.response.body", "body": EXPIRED_STREAM_COMMENT, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})


# --------------------------------------------------------------------------- the card side


def bearer_scheme(description: str = "A JWT access token") -> SecurityScheme:
    """``{"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}}``."""
    return SecurityScheme(
        http_auth_security_scheme=HTTPAuthSecurityScheme(
            scheme="Bearer", bearer_format="JWT", description=description
        )
    )


def client_credentials_scheme(
    token_url: str, scopes: Mapping[str, str], description: str = ""
) -> SecurityScheme:
    """An OAuth 2.0 scheme with the client-credentials flow (machine-to-machine)."""
    return SecurityScheme(
        oauth2_security_scheme=OAuth2SecurityScheme(
            description=description,
            flows=OAuthFlows(
                client_credentials=ClientCredentialsOAuthFlow(token_url=token_url, scopes=dict(scopes))
            ),
        )
    )


def requirement(**schemes: Iterable[str]) -> SecurityRequirement:
    """``requirement(oauth=["travel:plan"])`` → ``{"schemes": {"oauth": {"list": [...]}}}``."""
    return SecurityRequirement(
        schemes={name: StringList(values=list(scopes)) for name, scopes in schemes.items()}
    )


class SignedCardAgent:
    """An A2A agent whose card declares its security schemes and is signed with ``key``.

    Everything else (``run``, ``name`` …) is the wrapped agent's. Cards are signed once per URL
    and cached: an ECDSA signature differs on every signing, and a card that changed on every
    GET would defeat ``ETag`` caching.
    """

    def __init__(
        self,
        agent: Any,
        key: Any,
        *,
        kid: str,
        alg: str | None = None,
        jku: str | None = None,
        security_schemes: Mapping[str, SecurityScheme] | None = None,
        security_requirements: Sequence[SecurityRequirement] | None = None,
    ) -> None:
        self.agent = agent
        self._key = key
        self.kid = kid
        self.alg = alg
        self.jku = jku
        self.security_schemes = dict(security_schemes or {})
        self.security_requirements = list(security_requirements or [])
        self._cache: dict[tuple[str, str], AgentCard] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)

    def _secure(self, kind: str, url: str, card: AgentCard | None) -> AgentCard | None:
        if card is None:
            return None
        cached = self._cache.get((kind, url))
        if cached is None:
            update: dict[str, Any] = {}
            if self.security_schemes:
                update["security_schemes"] = self.security_schemes
            if self.security_requirements:
                update["security_requirements"] = self.security_requirements
            cached = sign_card(
                card.model_copy(update=update), self._key, kid=self.kid, alg=self.alg, jku=self.jku
            )
            self._cache[(kind, url)] = cached
        return cached

    def sign(self, card: AgentCard) -> AgentCard:
        """Sign a card the server completed (``A2AService`` adds its HTTP+JSON and gRPC
        interfaces, then calls this): the signed card lists every interface. Cached by the
        card's canonical payload, so one card is always served with one signature."""
        key = canonical_card_payload(card.model_copy(update={"signatures": []})).decode()
        cached = self._cache.get(("completed", key))
        if cached is None:
            cached = sign_card(
                card.model_copy(update={"signatures": []}),
                self._key,
                kid=self.kid,
                alg=self.alg,
                jku=self.jku,
            )
            self._cache[("completed", key)] = cached
        return cached

    def card(self, url: str) -> AgentCard:
        card = self._secure("public", url, self.agent.card(url))
        assert card is not None
        return card

    def extended_card(self, url: str) -> AgentCard | None:
        return self._secure("extended", url, self.agent.extended_card(url))

    def run(self, ctx: Any) -> Any:
        return self.agent.run(ctx)
