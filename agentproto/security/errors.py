"""The security error hierarchy: one class per reason to refuse, each with a stable rule id.

Callers catch at the level they care about — a server catches :class:`TokenError` and answers
``exc.http_status``; a test asserts the exact leaf::

    SecurityError
    ├── TokenError                401  bearer-token problems (RFC 6750 §3.1 error codes)
    │   ├── MissingToken          401  no Bearer credentials at all (no error code, §3.1)
    │   ├── MalformedToken        401  not a JWT, wrong ``typ``, a required claim missing
    │   ├── TokenForged           401  ``alg: none``, a disallowed or mismatched alg, bad signature
    │   ├── UnknownKey            401  ``kid`` not in the trusted key set (or revoked, expired)
    │   ├── TokenExpired          401  now ≥ ``exp`` (+ leeway)
    │   ├── TokenNotYetValid      401  ``nbf``/``iat`` in the future (− leeway)
    │   ├── WrongIssuer           401  ``iss`` is not the authorization server we trust
    │   ├── WrongAudience         401  the token was minted for another agent
    │   └── MissingScope          403  authentic, but not allowed to do this (insufficient_scope)
    ├── CardSignatureError             Agent Card signatures (A2A §8.4)
    │   ├── CardUnsigned               no signature at all
    │   ├── SignatureInvalid           no signature is usable (malformed, disallowed alg …)
    │   │   └── CardTampered           a trusted key's signature does not match the card's bytes
    │   └── UnknownSigningKey          every signature names a key we do not trust
    ├── ForgedToolResult          403  a client answered a tool call it does not own (AG-UI)
    └── OAuthError                400  the token endpoint refuses (RFC 6749 §5.2)

Every error carries ``rule`` (``token.expired`` …), which
:func:`agentproto.course.expect_error` prints next to the message.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentproto.errors import AgentProtoError

__all__ = [
    "SecurityError",
    "TokenError",
    "MissingToken",
    "MalformedToken",
    "TokenForged",
    "UnknownKey",
    "TokenExpired",
    "TokenNotYetValid",
    "WrongIssuer",
    "WrongAudience",
    "MissingScope",
    "CardSignatureError",
    "CardUnsigned",
    "SignatureInvalid",
    "CardTampered",
    "UnknownSigningKey",
    "ForgedToolResult",
    "OAuthError",
    "ERROR_DOMAIN",
]

#: ``google.rpc.ErrorInfo.domain`` of the errors this package raises (not an A2A error).
ERROR_DOMAIN = "security.agentproto"


class SecurityError(AgentProtoError):
    """Base of every refusal in :mod:`agentproto.security`."""

    rule: str = "security"
    http_status: int = 400

    def __init__(self, message: str, *, rule: str | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        if rule is not None:
            self.rule = rule  # a more precise rule than the class default
        self.details = details


# --------------------------------------------------------------------------- bearer tokens


class TokenError(SecurityError):
    """A bearer token is missing, not authentic, or not good for this request.

    ``error_code`` is the RFC 6750 §3.1 code a server puts in ``WWW-Authenticate``;
    :mod:`agentproto.security.tokens` builds the header and the body from it.
    """

    rule = "token.invalid"
    http_status = 401
    error_code: ClassVar[str | None] = "invalid_token"
    #: the ``google.rpc.Status.status`` name of the HTTP+JSON / gRPC bindings
    status_name: ClassVar[str] = "UNAUTHENTICATED"


class MissingToken(TokenError):
    """No ``Authorization: Bearer …`` header: the challenge carries no error code (§3.1)."""

    rule = "token.missing"
    error_code = None


class MalformedToken(TokenError):
    """Not three base64url parts of JSON, the wrong ``typ``, or a required claim absent."""

    rule = "token.malformed"


class TokenForged(TokenError):
    """The token does not prove who made it: ``alg: none``, an algorithm the key is not pinned
    to (HS/RS confusion), or a signature that does not verify."""

    rule = "token.forged"


class UnknownKey(TokenError):
    """The ``kid`` names no key we trust (never seen, revoked, or outside its validity)."""

    rule = "token.unknown-key"


class TokenExpired(TokenError):
    """The current time is at or after ``exp`` plus leeway (RFC 7519 §4.1.4)."""

    rule = "token.expired"


class TokenNotYetValid(TokenError):
    """``nbf`` (RFC 7519 §4.1.5) or ``iat`` lies in the future, beyond the leeway."""

    rule = "token.not-yet-valid"


class WrongIssuer(TokenError):
    """``iss`` is not the authorization server this agent trusts (RFC 8725 §3.8)."""

    rule = "token.wrong-issuer"


class WrongAudience(TokenError):
    """The token was minted for another agent: our identifier is not in ``aud``
    (RFC 7519 §4.1.3 — the recipient MUST reject it)."""

    rule = "token.wrong-audience"


class MissingScope(TokenError):
    """Authentic and meant for us, but without a scope this request needs (RFC 6750 §3.1
    ``insufficient_scope``, HTTP 403)."""

    rule = "token.missing-scope"
    http_status = 403
    error_code = "insufficient_scope"
    status_name = "PERMISSION_DENIED"


# --------------------------------------------------------------------------- Agent Card signatures


class CardSignatureError(SecurityError):
    """The card's signatures do not establish who issued it (A2A §8.4.3).

    ``reasons`` lists, per signature, why it was not accepted.
    """

    rule = "card.signature"

    def __init__(self, message: str, *, reasons: list[str] | None = None, **kw: Any) -> None:
        self.reasons = list(reasons or [])
        super().__init__(message, **kw)


class CardUnsigned(CardSignatureError):
    """The card carries no ``signatures`` at all."""

    rule = "card.unsigned"


class SignatureInvalid(CardSignatureError):
    """No signature on the card is usable: malformed header, missing ``alg``/``kid``, an
    algorithm outside the allow-list (``none``, ``HS256`` …), or bytes that do not verify."""

    rule = "card.signature-invalid"


class CardTampered(SignatureInvalid):
    """A well-formed signature by a *trusted* key does not match the card as received: the
    card (or the signature) changed after signing."""

    rule = "card.tampered"


class UnknownSigningKey(CardSignatureError):
    """Every signature names a key (``kid``/``jku``) outside the verifier's trust store."""

    rule = "card.unknown-key"


# The names the first card-signing release used; kept so code written against it still runs
# (``except InvalidSignatureError`` catches CardTampered too). Not part of ``__all__``.
SignatureError = CardSignatureError
NoSignatureError = CardUnsigned
InvalidSignatureError = SignatureInvalid


# --------------------------------------------------------------------------- AG-UI client input


class ForgedToolResult(SecurityError):
    """A run input carries a tool message the client had no right to write: an answer to a
    tool the agent executes itself, to a call that does not exist, or to one already answered
    (AG-UI 1.1 ``events/tool-calls``, "Frontend tools")."""

    rule = "tool-result.forged"
    http_status = 403


# --------------------------------------------------------------------------- OAuth 2.0


class OAuthError(SecurityError):
    """A token-endpoint refusal with its RFC 6749 §5.2 ``error`` code (``invalid_client`` …)."""

    rule = "oauth.error"
    http_status = 400

    def __init__(self, error: str, description: str, *, http_status: int | None = None) -> None:
        super().__init__(description, rule=f"oauth.{error}")
        self.error = error
        if http_status is not None:
            self.http_status = http_status

    def to_json(self) -> dict[str, str]:
        """The error response body (RFC 6749 §5.2)."""
        return {"error": self.error, "error_description": self.message}


class OAuthThrottled(OAuthError):
    """Too many failed client authentications: the token endpoint refuses to check another
    secret for this client (or from this address) for ``retry_after_s`` seconds. A plain HTTP
    429 with ``Retry-After`` (RFC 6585 §4, RFC 9110 §10.2.3); the body's ``error`` is
    ``slow_down``, the token-endpoint code registered for "ask less often" (RFC 8628 §3.5)."""

    rule = "oauth.slow_down"
    http_status = 429

    def __init__(self, description: str, *, retry_after_s: int) -> None:
        super().__init__("slow_down", description, http_status=429)
        self.retry_after_s = retry_after_s
