"""Signed Agent Cards: a JWS over the canonical card (A2A spec §8.4).

Theory of operation
-------------------
Anyone can serve a JSON file at ``/.well-known/agent-card.json`` and call themselves "Bank Agent";
a signature lets a client check that the card was issued by a key it trusts and has not been
changed since (seed 000 Q12, seed 004 §10: verify *who you are talking to*). The spec's recipe:

1. **Payload** = the card *without* ``signatures``, in ProtoJSON with field presence honoured
   (§5.7: unset optionals omitted, explicitly set optionals kept even at their default,
   REQUIRED fields always kept, other empty fields omitted — exactly :meth:`AgentCard.to_wire`),
   then canonicalised with JCS (RFC 8785, :mod:`agentproto.security.jcs`) — §8.4.1.
2. **Protected header** (§8.4.2): JSON with ``alg`` and ``kid`` (MUST), ``typ: "JOSE"``
   (SHOULD), optional ``jku`` (where the key set lives).
3. **Signature** over ``BASE64URL(header) + "." + BASE64URL(payload)`` (RFC 7515 compact form);
   the card stores ``protected`` and ``signature`` only — the payload is the card itself, so it
   is *detached* — plus an optional unprotected ``header`` object.

Verification (§8.4.3) rebuilds the payload from the card as received, finds the key by ``kid``
in keys the client *already trusts*, refuses expired or revoked keys, and accepts the card if
at least one signature checks out (several signatures allow key rotation). Each signature that
fails is classified, and the error raised is the most telling one:

==============================================  ======================
what happened                                   error
==============================================  ======================
no ``signatures`` at all                        :class:`CardUnsigned`
a trusted key's signature does not match        :class:`CardTampered`
every signature names a key we do not trust     :class:`UnknownSigningKey`
otherwise (bad header, ``alg`` not allowed …)   :class:`SignatureInvalid`
==============================================  ======================

A ``jku`` in the header is only a hint: a verifier that fetched keys from whatever URL the card
names would trust whoever wrote the card. With a :class:`KeySet` the ``jku`` is ignored; a
lookup function receives it and must check it against its own allow-list.

Cards may be :class:`~agentproto.a2a.types.AgentCard` models or wire dicts; a dict is read
through the model, so unknown members are neither signed nor checked (as in a2a-sdk).

Note on interop: a2a-sdk 1.3.0 canonicalises by also dropping empty REQUIRED values (``"tags":
[]``); for cards without empty REQUIRED fields — every sensible card — both agree byte for byte
and each verifies the other's signatures (tested).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import jwt
from jwt import api_jws

from agentproto.a2a.types import AgentCard, AgentCardSignature
from agentproto.clock import Clock
from agentproto.security.errors import (
    CardSignatureError,
    CardTampered,
    CardUnsigned,
    SignatureInvalid,
    UnknownSigningKey,
)
from agentproto.security.jcs import canonical_bytes
from agentproto.security.keys import (
    ASYMMETRIC_ALGORITHMS,
    KeyNotTrusted,
    KeySet,
    TrustedKey,
    algorithm_for,
)

__all__ = [
    "canonical_card_payload",
    "card_fingerprint",
    "sign_card",
    "verify_card",
    "signature_header",
    "KeyLookup",
    "CARD_ALGORITHMS",
]

#: Asymmetric algorithms only: a card signed with a shared secret proves nothing to a stranger.
CARD_ALGORITHMS = ASYMMETRIC_ALGORITHMS
DEFAULT_ALGORITHMS = CARD_ALGORITHMS  # the first release's name, kept for existing callers

#: A trust store, ``{kid: public_key}``, or a function ``(kid, jku) -> key`` raising ``KeyError``.
KeyLookup = KeySet | Mapping[str, Any] | Callable[[str | None, str | None], Any]

CardT = TypeVar("CardT", AgentCard, dict[str, Any])


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _model(card: AgentCard | Mapping[str, Any]) -> AgentCard:
    return card if isinstance(card, AgentCard) else AgentCard.from_wire(dict(card))


def canonical_card_payload(card: AgentCard | Mapping[str, Any]) -> bytes:
    """The bytes a card signature covers: the card without ``signatures``, JCS-canonical."""
    wire = _model(card).to_wire()
    wire.pop("signatures", None)
    return canonical_bytes(wire)


def card_fingerprint(card: AgentCard | Mapping[str, Any], digits: int = 16) -> str:
    """The first ``digits`` hex digits of SHA-256 over :func:`canonical_card_payload`.

    Two cards have the same fingerprint exactly when a signature over one covers the other:
    signatures themselves are not part of it.
    """
    return hashlib.sha256(canonical_card_payload(card)).hexdigest()[:digits]


def signature_header(signature: AgentCardSignature | Mapping[str, Any]) -> dict[str, Any]:
    """The decoded protected header of one signature (``{}`` if it is not base64url JSON)."""
    protected = (
        signature.protected if isinstance(signature, AgentCardSignature) else signature.get("protected", "")
    )
    try:
        header = json.loads(_b64url_decode(protected))
    except (ValueError, UnicodeDecodeError):
        return {}
    return header if isinstance(header, dict) else {}


def sign_card(
    card: CardT,
    key: Any,
    *,
    kid: str,
    alg: str | None = None,
    jku: str | None = None,
    header: dict[str, Any] | None = None,
) -> CardT:
    """A copy of ``card`` with one more signature, made with the private ``key``.

    ``alg`` defaults to the key's natural algorithm (ES256 for a P-256 key, RS256 for RSA …).
    Returns the same kind of object it was given (model or wire dict).
    """
    model: AgentCard = _model(card)
    algorithm = alg or algorithm_for(key)
    protected: dict[str, Any] = {"alg": algorithm, "kid": kid, "typ": "JOSE"}
    if jku:
        protected["jku"] = jku
    # An ordinary compact JWS over the canonical bytes, payload then dropped ("detached
    # content", RFC 7515 Appendix F) — not RFC 7797's unencoded payload (no "b64": false).
    compact = api_jws.encode(canonical_card_payload(model), key, algorithm=algorithm, headers=protected)
    header_b64, _, signature_b64 = compact.split(".")
    signature = AgentCardSignature(protected=header_b64, signature=signature_b64, header=header or {})
    signed = model.model_copy(update={"signatures": [*model.signatures, signature]})
    return signed if isinstance(card, AgentCard) else signed.to_wire()


def _lookup(keys: KeyLookup, kid: str, jku: str | None, alg: str, now_ms: int | None) -> Any:
    """The verification key for one signature; ``KeyNotTrusted``/``KeyError`` if none."""
    if callable(keys) and not isinstance(keys, KeySet):
        found = keys(kid, jku)
        if isinstance(found, TrustedKey):
            problem = found.usable_at(now_ms)
            if problem:
                raise KeyNotTrusted(kid, problem)
            if found.alg != alg:
                raise ValueError(f"key {kid!r} is pinned to {found.alg}, the signature claims {alg}")
            return found.key
        return found
    entry = KeySet.of(keys).find(kid, now_ms)
    if entry.alg != alg:
        raise ValueError(f"key {kid!r} is pinned to {entry.alg}, the signature claims {alg}")
    return entry.key


def verify_card(
    card: AgentCard | Mapping[str, Any],
    keys: KeyLookup,
    *,
    algorithms: Iterable[str] = CARD_ALGORITHMS,
    clock: Clock | None = None,
) -> AgentCardSignature:
    """Return the first signature that verifies with a trusted key, or raise.

    ``keys`` is a :class:`KeySet` (whose entries pin the algorithm and may expire or be
    revoked — judged at ``clock``'s time), a ``{kid: public_key}`` mapping, or a function
    ``(kid, jku) -> key`` that raises ``KeyError`` for a key it does not trust. Only
    ``algorithms`` are accepted, so a forger cannot pick ``none`` or a symmetric algorithm
    (RFC 8725 §3.1). Raises a :class:`CardSignatureError` subclass (see the module table).
    """
    model = _model(card)
    if not model.signatures:
        raise CardUnsigned("The card has no signatures: nothing says who issued it")
    payload_b64 = _b64url(canonical_card_payload(model))
    allowed = list(algorithms)
    now_ms = clock.now_ms() if clock is not None else None
    reasons: list[str] = []
    kinds: list[str] = []  # per signature: "invalid" | "unknown" | "tampered"
    for i, sig in enumerate(model.signatures):
        header = signature_header(sig)
        kid, alg = header.get("kid"), header.get("alg")
        if not header or not isinstance(kid, str) or not isinstance(alg, str):
            reasons.append(f"signature {i}: the protected header is not base64url JSON with 'alg' and 'kid'")
            kinds.append("invalid")
            continue
        if alg not in allowed:
            reasons.append(f"signature {i} (kid {kid!r}): alg {alg!r} is not allowed")
            kinds.append("invalid")
            continue
        try:
            key = _lookup(keys, kid, header.get("jku"), alg, now_ms)
        except KeyError as exc:
            why = str(exc) if isinstance(exc, KeyNotTrusted) else f"key {kid!r} is not trusted"
            reasons.append(f"signature {i}: {why}")
            kinds.append("unknown")
            continue
        except ValueError as exc:
            reasons.append(f"signature {i}: {exc}")
            kinds.append("invalid")
            continue
        try:
            api_jws.decode(f"{sig.protected}.{payload_b64}.{sig.signature}", key, algorithms=[alg])
        except jwt.InvalidSignatureError:
            reasons.append(f"signature {i} (kid {kid!r}): does not match the card's canonical bytes")
            kinds.append("tampered")
            continue
        except jwt.PyJWTError as exc:
            reasons.append(f"signature {i} (kid {kid!r}): {exc}")
            kinds.append("invalid")
            continue
        return sig
    error: type[CardSignatureError]
    if "tampered" in kinds:
        error, summary = CardTampered, "The card was changed after it was signed"
    elif all(k == "unknown" for k in kinds):
        error, summary = UnknownSigningKey, "No signature is by a key this client trusts"
    else:
        error, summary = SignatureInvalid, "No usable signature on the card"
    raise error(f"{summary}: " + "; ".join(reasons), reasons=reasons)
