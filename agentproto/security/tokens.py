"""Bearer tokens between agents: who is calling, what it may do, and until when.

Seed 004 §10 sketches the flow: the orchestrator gets a JWT from an authorization server and
sends it as ``Authorization: Bearer …``; the called agent checks it before doing anything. A
token answers three questions — **who** (``sub``, ``iss``), **what** (``aud``: which agent it
is for; ``scope``: which operations) and **until when** (``exp``) — and is only worth
anything if the verifier checks all of them, in a fixed order, against keys it already trusts.

Theory of operation
-------------------
:func:`issue_token` builds an RFC 9068-style access token (``typ: at+jwt``, claims ``iss sub
aud iat exp scope`` and optional ``jti``) and signs it with PyJWT. The time comes from the
injected clock, never from the system.

:func:`verify_token` runs the table :data:`CHECKS`, one row per question, and stops at the
first that fails (:func:`token_checks` returns the whole table, which is what the notebook's
token inspector draws):

===============  ==========================================================  ==================
check            passes when                                                 refusal
===============  ==========================================================  ==================
well-formed      three base64url segments; header JSON with ``alg``, ``kid``  MalformedToken
                 and ``typ: at+jwt`` (RFC 9068 §2.1, RFC 8725 §3.11)
algorithm        ``alg`` is not ``none`` and is on the allow-list            TokenForged
                 (RFC 8725 §3.1)
known key        ``kid`` is in the trusted :class:`KeySet`, not revoked,     UnknownKey
                 inside its validity window
key's algorithm  the token's ``alg`` is the one that key is pinned to —      TokenForged
                 defeats HS/RS confusion (RFC 8725 §2.1)
signature        PyJWT verifies the signature with that key                  TokenForged
claims           ``sub``, ``aud``, ``iat``, ``exp`` present, right types     MalformedToken
issuer           ``iss`` equals the expected issuer (when one is given)      WrongIssuer
not before       ``nbf`` and ``iat`` ≤ now + leeway (RFC 7519 §4.1.5)        TokenNotYetValid
not expired      now < ``exp`` + leeway (RFC 7519 §4.1.4)                    TokenExpired
audience         our identifier is in ``aud`` (RFC 7519 §4.1.3)              WrongAudience
scopes           every required scope is in ``scope`` (RFC 8693 §4.2)        MissingScope (403)
===============  ==========================================================  ==================

PyJWT checks the signature; its own ``exp``/``nbf``/``aud`` checks are switched off because
they read the system clock — ours read the injected one, so a test (or a notebook) can move
time forward and watch a token expire.

At the HTTP edge, :func:`authorize` reads the ``Authorization`` header and verifies; its
errors carry ``http_status`` (401, or 403 for a missing scope), :func:`challenge` builds the
RFC 6750 §3 ``WWW-Authenticate`` value and :func:`error_body` the ``google.rpc.Status`` JSON the
A2A HTTP bindings use for errors (A2A §11.6). A2A itself leaves authentication to the
transport (§7: the server MUST authenticate every request and SHOULD answer with the
binding's challenge) and defines no JSON-RPC error code for it, so the refusal is an HTTP
status with a challenge, before any JSON-RPC is parsed.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jwt
from jwt.types import Options

from agentproto.clock import Clock, iso_utc
from agentproto.security.errors import (
    ERROR_DOMAIN,
    MalformedToken,
    MissingScope,
    MissingToken,
    TokenError,
    TokenExpired,
    TokenForged,
    TokenNotYetValid,
    UnknownKey,
    WrongAudience,
    WrongIssuer,
)
from agentproto.security.keys import (
    ASYMMETRIC_ALGORITHMS,
    KeyNotTrusted,
    KeySet,
    TrustedKey,
    algorithm_for,
)

__all__ = [
    "TOKEN_TYPE",
    "Claims",
    "Check",
    "CheckResult",
    "CHECKS",
    "issue_token",
    "verify_token",
    "token_checks",
    "decode_unverified",
    "bearer_token",
    "authorize",
    "valid_until_ms",
    "challenge",
    "error_body",
]

#: The JOSE ``typ`` of an OAuth 2.0 JWT access token (RFC 9068 §2.1). Explicit typing keeps a
#: different kind of JWT (an ID token, a card signature) from being accepted as an access token.
TOKEN_TYPE = "at+jwt"
_TYPES = {TOKEN_TYPE, "application/at+jwt"}


# --------------------------------------------------------------------------- claims


@dataclass(frozen=True)
class Claims:
    """A verified token's answers: who, for whom, what, until when."""

    subject: str
    audience: tuple[str, ...]
    scopes: frozenset[str]
    issued_at: int
    expires_at: int
    issuer: str | None = None
    token_id: str | None = None
    not_before: int | None = None
    kid: str | None = None
    alg: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def expires_in_s(self, now_ms: int) -> float:
        """Seconds left at ``now_ms`` (negative once expired)."""
        return self.expires_at - now_ms / 1000

    def summary(self) -> str:
        """``sub → aud [scopes] until …`` in one line."""
        scopes = " ".join(sorted(self.scopes)) or "—"
        return (
            f"{self.subject} → {', '.join(self.audience)} [{scopes}] until {iso_utc(self.expires_at * 1000)}"
        )

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any], header: Mapping[str, Any]) -> Claims:
        aud = payload.get("aud")
        audience = (aud,) if isinstance(aud, str) else tuple(aud or ())
        return cls(
            subject=payload["sub"],
            audience=audience,
            scopes=frozenset(str(payload.get("scope", "")).split()),
            issued_at=int(payload["iat"]),
            expires_at=int(payload["exp"]),
            issuer=payload.get("iss"),
            token_id=payload.get("jti"),
            not_before=None if payload.get("nbf") is None else int(payload["nbf"]),
            kid=header.get("kid"),
            alg=header.get("alg"),
            raw=dict(payload),
        )


# --------------------------------------------------------------------------- issuing


def issue_token(
    subject: str,
    audience: str | Sequence[str],
    scopes: Iterable[str],
    ttl_s: int,
    key: Any,
    *,
    clock: Clock,
    kid: str,
    issuer: str | None = None,
    alg: str | None = None,
    token_id: str | None = None,
    not_before_s: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> str:
    """A signed access token for ``subject`` to call ``audience`` with ``scopes`` for ``ttl_s``.

    ``key`` is the issuer's private key (or a shared secret for HS256); ``alg`` defaults to the
    key's natural algorithm. ``iat`` is the injected clock's now, in whole seconds.
    """
    if ttl_s <= 0:
        raise ValueError("a token needs a positive lifetime (ttl_s > 0)")
    now_s = clock.now_ms() // 1000
    payload: dict[str, Any] = {}
    if issuer is not None:
        payload["iss"] = issuer
    payload.update(
        {
            "sub": subject,
            "aud": audience if isinstance(audience, str) else list(audience),
            "iat": now_s,
            "exp": now_s + int(ttl_s),
            "scope": " ".join(sorted(set(scopes))),
        }
    )
    if not_before_s is not None:
        payload["nbf"] = int(not_before_s)
    if token_id is not None:
        payload["jti"] = token_id
    payload.update(extra or {})
    return jwt.encode(
        payload, key, algorithm=alg or algorithm_for(key), headers={"kid": kid, "typ": TOKEN_TYPE}
    )


# --------------------------------------------------------------------------- decoding


def _b64decode(segment: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]*", segment):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def decode_unverified(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(header, payload)`` read WITHOUT checking anything — for display and debugging only.

    Raises :class:`MalformedToken` if the token is not three base64url segments of JSON objects.
    """
    parts = token.split(".") if isinstance(token, str) else []
    if len(parts) != 3:
        raise MalformedToken(
            "Not a JWT: expected three base64url segments separated by dots", rule="token.not-a-jwt"
        )
    try:
        header = json.loads(_b64decode(parts[0]))
        payload = json.loads(_b64decode(parts[1]))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise MalformedToken(
            "Not a JWT: a segment is not base64url-encoded JSON", rule="token.not-a-jwt"
        ) from None
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise MalformedToken("Not a JWT: header and payload must be JSON objects", rule="token.not-a-jwt")
    return header, payload


# --------------------------------------------------------------------------- the checks


@dataclass
class _Verification:
    """What the checks share while they run."""

    token: str
    audience: str
    required_scopes: frozenset[str]
    keys: KeySet
    now_ms: int
    leeway_s: float
    issuer: str | None
    algorithms: tuple[str, ...]
    header: dict[str, Any] = field(default_factory=dict)
    payload: dict[str, Any] = field(default_factory=dict)
    entry: TrustedKey | None = None

    @property
    def now_s(self) -> float:
        return self.now_ms / 1000


def _well_formed(v: _Verification) -> str:
    v.header, v.payload = decode_unverified(v.token)
    for name in ("alg", "kid"):
        if not isinstance(v.header.get(name), str):
            raise MalformedToken(f"The token header has no {name!r}", rule="token.header")
    typ = v.header.get("typ")
    if not isinstance(typ, str) or typ.lower() not in _TYPES:
        raise MalformedToken(
            f"The token header says typ {typ!r}, not {TOKEN_TYPE!r}: this is not an access token",
            rule="token.wrong-type",
        )
    return f"alg {v.header['alg']}, kid {v.header['kid']}, typ {typ}"


def _algorithm(v: _Verification) -> str:
    alg = v.header["alg"]
    if alg.lower() == "none":
        raise TokenForged(
            "alg 'none' means the token is unsigned; an unsigned token proves nothing", rule="token.alg-none"
        )
    if alg not in v.algorithms:
        raise TokenForged(
            f"alg {alg!r} is not on the allow-list ({', '.join(v.algorithms)})", rule="token.alg-not-allowed"
        )
    return f"{alg} is allowed"


def _known_key(v: _Verification) -> str:
    try:
        v.entry = v.keys.find(v.header["kid"], v.now_ms)
    except KeyNotTrusted as exc:
        raise UnknownKey(f"Key {exc.kid!r} {exc.reason}", kid=exc.kid) from None
    return f"{v.entry.kid} is trusted"


def _key_algorithm(v: _Verification) -> str:
    assert v.entry is not None
    if v.header["alg"] != v.entry.alg:
        raise TokenForged(
            f"Key {v.entry.kid!r} is pinned to {v.entry.alg}, but the token "
            f"claims {v.header['alg']} (algorithm confusion)",
            rule="token.alg-mismatch",
        )
    return f"{v.entry.kid} is pinned to {v.entry.alg}"


def _signature(v: _Verification) -> str:
    assert v.entry is not None
    off: Options = {
        "verify_exp": False,
        "verify_nbf": False,
        "verify_iat": False,
        "verify_aud": False,
        "verify_iss": False,
        "verify_sub": False,
        "verify_jti": False,
    }
    try:
        jwt.PyJWT(off).decode_complete(v.token, v.entry.key, algorithms=[v.entry.alg])
    except jwt.InvalidSignatureError:
        raise TokenForged(
            f"The signature does not verify with key {v.entry.kid!r}: the token "
            f"was altered, or signed by someone else",
            rule="token.bad-signature",
            kid=v.entry.kid,
        ) from None
    except jwt.PyJWTError as exc:
        raise MalformedToken(f"The token cannot be checked: {exc}", rule="token.undecodable") from None
    return f"verified with {v.entry.kid}"


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _claims(v: _Verification) -> str:
    p = v.payload
    missing = [c for c in ("sub", "aud", "iat", "exp") if c not in p]
    if missing:
        raise MalformedToken(f"The token lacks required claim(s): {', '.join(missing)}", rule="token.claims")
    aud = p["aud"]
    aud_ok = isinstance(aud, str) or (isinstance(aud, list) and all(isinstance(a, str) for a in aud))
    if not isinstance(p["sub"], str) or not aud_ok:
        raise MalformedToken(
            "'sub' must be a string and 'aud' a string or a list of strings", rule="token.claims"
        )
    for name in ("iat", "exp", "nbf"):
        if name in p and not _is_number(p[name]):
            raise MalformedToken(f"{name!r} must be a number of seconds (NumericDate)", rule="token.claims")
    if "scope" in p and not isinstance(p["scope"], str):
        raise MalformedToken("'scope' must be a space-separated string", rule="token.claims")
    return f"sub {p['sub']}"


def _issuer(v: _Verification) -> str:
    if v.issuer is None:
        return "not checked (no issuer configured)"
    if v.payload.get("iss") != v.issuer:
        raise WrongIssuer(f"The token was issued by {v.payload.get('iss')!r}, not by {v.issuer!r}")
    return v.issuer


def _not_before(v: _Verification) -> str:
    for name in ("nbf", "iat"):
        if name in v.payload and v.payload[name] > v.now_s + v.leeway_s:
            raise TokenNotYetValid(
                f"The token is not valid before {iso_utc(int(v.payload[name]) * 1000)} "
                f"({name}); now is {iso_utc(v.now_ms)}"
            )
    return f"issued {iso_utc(int(v.payload['iat']) * 1000)}"


def _not_expired(v: _Verification) -> str:
    exp = v.payload["exp"]
    if v.now_s >= exp + v.leeway_s:
        raise TokenExpired(
            f"The token expired at {iso_utc(int(exp) * 1000)}; now is "
            f"{iso_utc(v.now_ms)} (leeway {v.leeway_s:g} s)",
            expired_at=iso_utc(int(exp) * 1000),
        )
    return f"{exp - v.now_s:.0f} s left"


def _audience(v: _Verification) -> str:
    aud = v.payload["aud"]
    audiences = [aud] if isinstance(aud, str) else aud
    if v.audience not in audiences:
        raise WrongAudience(
            f"The token is for {', '.join(map(repr, audiences))}, not for {v.audience!r}", audience=audiences
        )
    return f"for {v.audience}"


def _scopes(v: _Verification) -> str:
    granted = set(str(v.payload.get("scope", "")).split())
    missing = sorted(v.required_scopes - granted)
    if missing:
        raise MissingScope(
            f"The token grants {{{', '.join(sorted(granted))}}}; this request needs {', '.join(missing)}",
            scope=missing,
        )
    return "needs " + (", ".join(sorted(v.required_scopes)) or "nothing")


@dataclass(frozen=True)
class Check:
    """One row of the verification table."""

    name: str
    passes_when: str
    run: Callable[[_Verification], str] = field(repr=False)


#: The verification table, in the order the checks run (see the module docstring).
CHECKS: tuple[Check, ...] = (
    Check("well-formed", "three base64url JSON segments, header alg/kid, typ at+jwt", _well_formed),
    Check("algorithm", "alg is not 'none' and is on the allow-list", _algorithm),
    Check("known key", "kid is trusted, not revoked, within its validity", _known_key),
    Check("key's algorithm", "alg is the one the key is pinned to", _key_algorithm),
    Check("signature", "the signature verifies with that key", _signature),
    Check("claims", "sub, aud, iat, exp present with the right types", _claims),
    Check("issuer", "iss is the trusted authorization server", _issuer),
    Check("not before", "nbf and iat are not in the future", _not_before),
    Check("not expired", "now is before exp (+ leeway)", _not_expired),
    Check("audience", "this agent is in aud", _audience),
    Check("scopes", "every required scope is granted", _scopes),
)


@dataclass(frozen=True)
class CheckResult:
    """How one check went: ``passed`` is ``None`` when an earlier check already failed."""

    name: str
    passed: bool | None
    detail: str = ""
    error: TokenError | None = None

    @property
    def mark(self) -> str:
        return {True: "✓", False: "✗", None: "·"}[self.passed]


def _verification(
    token: str,
    audience: str,
    required_scopes: Iterable[str],
    keys: KeySet | Mapping[str, Any],
    clock: Clock,
    leeway_s: float,
    issuer: str | None,
    algorithms: Iterable[str],
) -> _Verification:
    return _Verification(
        token=token,
        audience=audience,
        required_scopes=frozenset(required_scopes),
        keys=KeySet.of(keys),
        now_ms=clock.now_ms(),
        leeway_s=leeway_s,
        issuer=issuer,
        algorithms=tuple(algorithms),
    )


def token_checks(
    token: str,
    *,
    audience: str,
    keys: KeySet | Mapping[str, Any],
    clock: Clock,
    required_scopes: Iterable[str] = (),
    leeway_s: float = 0,
    issuer: str | None = None,
    algorithms: Iterable[str] = ASYMMETRIC_ALGORITHMS,
) -> list[CheckResult]:
    """Every row of :data:`CHECKS` for ``token``: passed, failed (with its error), or not reached."""
    v = _verification(token, audience, required_scopes, keys, clock, leeway_s, issuer, algorithms)
    out: list[CheckResult] = []
    failed = False
    for check in CHECKS:
        if failed:
            out.append(CheckResult(check.name, None))
            continue
        try:
            out.append(CheckResult(check.name, True, check.run(v)))
        except TokenError as exc:
            out.append(CheckResult(check.name, False, exc.message, exc))
            failed = True
    return out


def verify_token(
    token: str,
    *,
    audience: str,
    keys: KeySet | Mapping[str, Any],
    clock: Clock,
    required_scopes: Iterable[str] = (),
    leeway_s: float = 0,
    issuer: str | None = None,
    algorithms: Iterable[str] = ASYMMETRIC_ALGORITHMS,
) -> Claims:
    """The token's :class:`Claims` if every check passes; else the first check's error.

    ``keys`` is the trust store (a :class:`KeySet`, or ``{kid: public_key}``); ``algorithms``
    the allow-list (asymmetric only by default — add ``"HS256"`` deliberately, for a key set
    holding shared secrets); ``leeway_s`` tolerates clock skew on ``exp``/``nbf``/``iat``.
    """
    v = _verification(token, audience, required_scopes, keys, clock, leeway_s, issuer, algorithms)
    for check in CHECKS:
        check.run(v)
    return Claims.from_payload(v.payload, v.header)


# --------------------------------------------------------------------------- the HTTP edge


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is not None:
        return value
    lowered = name.lower()
    for key, val in headers.items():
        if key.lower() == lowered:
            return val
    return None


def bearer_token(headers: Mapping[str, str]) -> str:
    """The token of ``Authorization: Bearer <token>`` (RFC 6750 §2.1; the scheme name is
    case-insensitive). Raises :class:`MissingToken` or :class:`MalformedToken`."""
    value = _header(headers, "authorization")
    if not value or not value.strip():
        raise MissingToken("The request carries no credentials; send 'Authorization: Bearer <token>'")
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise MissingToken(f"The request uses the {scheme!r} scheme; this agent accepts Bearer tokens only")
    token = token.strip()
    if not token or " " in token:
        raise MalformedToken(
            "'Authorization: Bearer' must be followed by exactly one token", rule="token.bad-header"
        )
    return token


def authorize(
    headers: Mapping[str, str],
    *,
    audience: str,
    keys: KeySet | Mapping[str, Any],
    clock: Clock,
    required_scopes: Iterable[str] = (),
    leeway_s: float = 0,
    issuer: str | None = None,
    algorithms: Iterable[str] = ASYMMETRIC_ALGORITHMS,
) -> Claims:
    """Authenticate and authorise one request from its headers; return the caller's claims.

    Any Starlette ``request.headers`` (or a plain dict) will do. Raises a :class:`TokenError`
    whose ``http_status`` is 401 (authentication failed) or 403 (missing scope); pass it to
    :func:`challenge` and :func:`error_body` to answer.
    """
    return verify_token(
        bearer_token(headers),
        audience=audience,
        keys=keys,
        clock=clock,
        required_scopes=required_scopes,
        leeway_s=leeway_s,
        issuer=issuer,
        algorithms=algorithms,
    )


def valid_until_ms(claims: Claims, leeway_s: float = 0) -> int:
    """The clock time (ms) from which ``claims``' token is refused as expired — ``exp`` plus
    the verifier's leeway. A stream (SSE, gRPC server streaming) opened with the token must
    end there: it was authorised once, at its start, and must not outlive the token."""
    return int((claims.expires_at + leeway_s) * 1000)


def _quoted(text: str) -> str:
    """A ``quoted-string`` safe for an auth-param (RFC 6750 §3: no ``"`` or ``\\``)."""
    safe = "".join(c if 0x20 <= ord(c) < 0x7F and c not in '"\\' else "'" if c == '"' else "?" for c in text)
    return f'"{safe}"'


def challenge(exc: TokenError, *, realm: str = "agentproto") -> str:
    """The ``WWW-Authenticate`` value for ``exc`` (RFC 6750 §3)."""
    params = [f"realm={_quoted(realm)}"]
    if exc.error_code is not None:
        params.append(f"error={_quoted(exc.error_code)}")
        params.append(f"error_description={_quoted(exc.message)}")
    scope = exc.details.get("scope")
    if scope:
        params.append(f"scope={_quoted(' '.join(scope))}")
    return "Bearer " + ", ".join(params)


def error_body(exc: TokenError) -> dict[str, Any]:
    """``google.rpc.Status`` JSON (A2A §11.6) with an ``ErrorInfo`` naming the rule."""
    reason = exc.rule.replace(".", "_").replace("-", "_").upper()
    return {
        "error": {
            "code": exc.http_status,
            "status": exc.status_name,
            "message": exc.message,
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": reason,
                    "domain": ERROR_DOMAIN,
                    "metadata": {"rule": exc.rule},
                }
            ],
        }
    }
