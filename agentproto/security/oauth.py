"""A tiny OAuth 2.0 authorization server for machine clients, without I/O.

When one agent calls another on its own behalf — an orchestrator dispatching to a flight agent
— there is no user to log in: the *client credentials* grant (RFC 6749 §4.4) is the usual
flow. The orchestrator authenticates to the authorization server with its client id and secret,
asks for a token for one **resource** (the agent it wants to call, RFC 8707) and some **scopes**,
and receives a short-lived JWT access token (RFC 9068 profile). The called agent never sees the
secret; it verifies the token with the server's published keys (:meth:`jwks`).

The token carries the claims RFC 9068 §2.2 requires of an ``at+jwt`` access token — ``iss``,
``exp``, ``aud``, ``sub``, ``client_id``, ``iat``, ``jti`` — plus ``scope``. In the client
credentials grant there is no resource owner, so ``sub`` and ``client_id`` both name the client.

Theory of operation
-------------------
:meth:`AuthorizationServer.token` takes the form fields of a token request and either returns
the RFC 6749 §5.1 response (``access_token``, ``token_type: "Bearer"``, ``expires_in``,
``scope``) or raises :class:`~agentproto.security.errors.OAuthError` with the §5.2 code:

=====================  ==============================================================  =====
error                  when                                                            HTTP
=====================  ==============================================================  =====
unsupported_grant_type anything but ``client_credentials``                             400
invalid_client         unknown client id or wrong secret (compared in constant time)   401
invalid_target         the requested resource is not one this client may call (8707)   400
invalid_scope          a requested scope the client was never granted                  400
slow_down              too many failed authentications (with a ``throttle``):          429
                       :class:`~agentproto.security.errors.OAuthThrottled`,
                       ``retry_after_s`` for the ``Retry-After`` header
=====================  ==============================================================  =====

With ``throttle`` (a :class:`~agentproto.security.throttle.ClientAuthThrottle`), failures
are counted per ``(peer, client_id)`` and per ``peer`` — the address the request came from,
which the adapter passes to :meth:`AuthorizationServer.token` — and answered with backoff.
``issued`` keeps the last :data:`ISSUED_LOG_SIZE` tokens only (a bounded audit log).

No HTTP here: a notebook or a test calls it directly, and an adapter could mount it on a route.
"""

from __future__ import annotations

import hmac
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agentproto.clock import Clock
from agentproto.security.errors import OAuthError
from agentproto.security.keys import KeySet, algorithm_for
from agentproto.security.throttle import ClientAuthThrottle
from agentproto.security.tokens import issue_token
from agentproto.system import uuid_ids

__all__ = ["AuthorizationServer", "RegisteredClient", "CLIENT_CREDENTIALS", "ISSUED_LOG_SIZE"]

CLIENT_CREDENTIALS = "client_credentials"
#: Entries :attr:`AuthorizationServer.issued` keeps (the most recent); 0 keeps none.
ISSUED_LOG_SIZE = 1000


@dataclass(frozen=True)
class RegisteredClient:
    """A machine client: what it may ask for, and for which resources (agents)."""

    client_id: str
    secret: str
    scopes: frozenset[str]
    resources: frozenset[str]


class AuthorizationServer:
    """Issues access tokens to registered clients; publishes its verification keys.

    ``key`` is the signing key (private), published under ``kid``; ``clock`` and ``ids`` are
    injected (``ids`` names each token, the ``jti`` claim). ``throttle`` backs off after failed
    client authentications (none by default: a notebook's model answers every guess).
    """

    def __init__(
        self,
        issuer: str,
        key: Any,
        *,
        kid: str,
        clock: Clock,
        ids: Callable[[], str] | None = None,
        ttl_s: int = 3600,
        throttle: ClientAuthThrottle | None = None,
        issued_log_size: int = ISSUED_LOG_SIZE,
    ) -> None:
        self.issuer = issuer
        self.kid = kid
        self.clock = clock
        self.ids = ids or uuid_ids
        self.ttl_s = ttl_s
        self._key = key
        self._keys = KeySet()
        self._keys.add(kid, key, alg=algorithm_for(key))
        self._clients: dict[str, RegisteredClient] = {}
        self.throttle = throttle
        #: an audit log, one entry per token issued: the last ``issued_log_size`` only
        self.issued: deque[dict[str, Any]] = deque(maxlen=max(0, issued_log_size))

    def register_client(
        self, client_id: str, secret: str, *, scopes: Iterable[str], resources: Iterable[str]
    ) -> RegisteredClient:
        """Let ``client_id`` ask for any of ``scopes`` on any of ``resources``."""
        client = RegisteredClient(client_id, secret, frozenset(scopes), frozenset(resources))
        self._clients[client_id] = client
        return client

    def jwks(self) -> dict[str, Any]:
        """The public JWK Set a resource server fetches (over HTTPS) and trusts."""
        return self._keys.to_jwks()

    def key_set(self) -> KeySet:
        """The same keys as a :class:`KeySet` of public keys, ready for ``verify_token``."""
        return self._keys.public()

    def token(self, form: Mapping[str, str], *, peer: str = "") -> dict[str, Any]:
        """Answer a token request (the form fields of RFC 6749 §4.4.2 plus ``resource``);
        ``peer`` is the address it came from (what the ``throttle`` counts by)."""
        grant = form.get("grant_type")
        if grant != CLIENT_CREDENTIALS:
            raise OAuthError(
                "unsupported_grant_type", f"grant_type {grant!r} is not supported; use client_credentials"
            )
        client_id = form.get("client_id", "")
        if self.throttle is not None:
            self.throttle.check(peer, client_id)  # before any secret is compared
        client = self._clients.get(client_id)
        # Compare against something even for an unknown id, so timing does not reveal ids.
        expected = client.secret if client else "\0" * 32
        if (
            not hmac.compare_digest(expected.encode(), form.get("client_secret", "").encode())
            or client is None
        ):
            if self.throttle is not None:
                self.throttle.failed(peer, client_id)
            raise OAuthError("invalid_client", "Client authentication failed", http_status=401)
        if self.throttle is not None:
            self.throttle.succeeded(peer, client_id)
        resource = form.get("resource", "")
        if resource not in client.resources:
            raise OAuthError("invalid_target", f"{client.client_id} may not obtain tokens for {resource!r}")
        requested = set(form.get("scope", "").split()) or set(client.scopes)
        extra = sorted(requested - client.scopes)
        if extra:
            raise OAuthError("invalid_scope", f"{client.client_id} was never granted: {', '.join(extra)}")
        token_id = self.ids()
        access_token = issue_token(
            client.client_id,
            resource,
            requested,
            self.ttl_s,
            self._key,
            clock=self.clock,
            kid=self.kid,
            issuer=self.issuer,
            token_id=token_id,
            extra={"client_id": client.client_id},  # RFC 9068 §2.2 (RFC 8693 §4.3)
        )
        self.issued.append(
            {
                "jti": token_id,
                "client": client.client_id,
                "resource": resource,
                "scope": " ".join(sorted(requested)),
            }
        )
        return {
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": self.ttl_s,
            "scope": " ".join(sorted(requested)),
        }
