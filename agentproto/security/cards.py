"""Signed Agent Cards: a JWS over the canonical card (A2A spec §8.4).

Theory of operation
-------------------
Anyone can serve a JSON file at ``/.well-known/agent-card.json`` and call themselves "Bank Agent";
a signature lets a client check that the card was issued by a key it trusts (seed 000 Q12: card
forgery). The spec's recipe:

1. **Payload** = the card *without* ``signatures``, in ProtoJSON with field presence honoured
   (unset optionals omitted, explicitly set optionals kept even at their default, REQUIRED
   fields always kept, other empty fields omitted — exactly :meth:`AgentCard.to_wire`), then
   canonicalised with JCS (RFC 8785, :mod:`agentproto.security.jcs`).
2. **Protected header**: JSON with ``alg`` and ``kid`` (MUST), ``typ: "JOSE"`` (SHOULD), optional
   ``jku`` (where to fetch the key set).
3. **Signature** over ``BASE64URL(header) + "." + BASE64URL(payload)`` (RFC 7515 compact form);
   the card stores ``protected`` and ``signature`` only — the payload is the card itself, so it
   is *detached* — plus an optional unprotected ``header`` object.

Verification rebuilds the payload from the card it received, looks the key up by ``kid`` (and
``jku``) in keys *it already trusts*, and accepts the card if at least one signature checks out.
Several signatures allow key rotation. PyJWT does the JWS cryptography.

Note on interop: a2a-sdk 1.3.0 canonicalises by also dropping empty REQUIRED values (``"tags":
[]``); for cards without empty REQUIRED fields — every sensible card — both agree byte for byte
and each verifies the other's signatures (tested).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jwt
from jwt import api_jws

from agentproto.a2a.types import AgentCard, AgentCardSignature
from agentproto.security.jcs import canonical_bytes

__all__ = [
    "SignatureError",
    "NoSignatureError",
    "InvalidSignatureError",
    "canonical_card_payload",
    "sign_card",
    "verify_card",
    "DEFAULT_ALGORITHMS",
]

#: Asymmetric algorithms only: a card signed with a shared secret proves nothing to a stranger.
DEFAULT_ALGORITHMS = ("ES256", "ES384", "RS256", "PS256", "EdDSA")

KeyLookup = Mapping[str, Any] | Callable[[str | None, str | None], Any]


class SignatureError(Exception):
    """The card's signatures do not establish who issued it."""


class NoSignatureError(SignatureError):
    """The card carries no signature at all."""


class InvalidSignatureError(SignatureError):
    """No signature on the card verifies with a trusted key; ``reasons`` says why, per signature."""

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__("no valid signature: " + "; ".join(reasons))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def canonical_card_payload(card: AgentCard) -> bytes:
    """The bytes a card signature covers: the card without ``signatures``, JCS-canonical."""
    wire = card.to_wire()
    wire.pop("signatures", None)
    return canonical_bytes(wire)


def sign_card(card: AgentCard, key: Any, *, kid: str, alg: str = "ES256",
              jku: str | None = None, header: dict[str, Any] | None = None) -> AgentCard:
    """A copy of ``card`` with one more signature, made with ``key`` (a private key or PEM)."""
    protected: dict[str, Any] = {"alg": alg, "kid": kid, "typ": "JOSE"}
    if jku:
        protected["jku"] = jku
    # An ordinary compact JWS over the canonical bytes, payload then dropped ("detached
    # content", RFC 7515 Appendix F) — not RFC 7797's unencoded payload (no "b64": false).
    compact = api_jws.encode(canonical_card_payload(card), key, algorithm=alg,
                             headers=protected)
    header_b64, _, signature_b64 = compact.split(".")
    signature = AgentCardSignature(protected=header_b64, signature=signature_b64,
                                   header=header or {})
    return card.model_copy(update={"signatures": [*card.signatures, signature]})


def verify_card(card: AgentCard, keys: KeyLookup, *,
                algorithms: Iterable[str] = DEFAULT_ALGORITHMS) -> AgentCardSignature:
    """Return the first signature that verifies with a trusted key, or raise.

    ``keys`` maps ``kid`` → public key, or is a function ``(kid, jku) -> key`` (raise
    ``KeyError`` for an unknown key). Only ``algorithms`` are accepted, so a forger cannot pick
    ``none`` or a symmetric algorithm (RFC 8725 §3.1).
    """
    if not card.signatures:
        raise NoSignatureError("the card has no signatures")
    payload_b64 = _b64url(canonical_card_payload(card))
    allowed = list(algorithms)
    reasons: list[str] = []
    for i, sig in enumerate(card.signatures):
        try:
            header = json.loads(_b64url_decode(sig.protected))
        except (ValueError, UnicodeDecodeError):
            reasons.append(f"signature {i}: protected header is not base64url JSON")
            continue
        if not isinstance(header, dict) or "alg" not in header or "kid" not in header:
            reasons.append(f"signature {i}: protected header lacks alg or kid")
            continue
        kid, jku = header.get("kid"), header.get("jku")
        try:
            key = keys(kid, jku) if callable(keys) else keys[kid]
        except KeyError:
            reasons.append(f"signature {i}: key {kid!r} is not trusted")
            continue
        try:
            api_jws.decode(f"{sig.protected}.{payload_b64}.{sig.signature}", key,
                           algorithms=allowed)
        except jwt.PyJWTError as exc:
            reasons.append(f"signature {i} (kid {kid!r}): {exc}")
            continue
        return sig
    raise InvalidSignatureError(reasons)
