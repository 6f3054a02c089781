"""Forgeries a verifier must refuse, built on purpose: the attacker's half of the lessons.

A check is only convincing once it has refused something. These functions make the classic
forgeries of a bearer token and of a signed Agent Card, so that tests and notebook 17 can feed
them to :func:`~agentproto.security.tokens.verify_token` and
:func:`~agentproto.security.cards.verify_card` and watch which rule refuses them. None of them
checks anything, and none needs the victim's private key — that is the point.

Tokens (each takes a compact JWT and returns another; they compose, and they work on tokens
that are already forged, because the header and claims are read with
:func:`~agentproto.security.tokens.decode_unverified`):

==========================  ============================================  ===================
function                    the forgery                                   refused by
==========================  ============================================  ===================
:func:`with_claims`         edit claims, keep the original signature      ``signature``
:func:`without_signature`   ``alg: none`` and an empty signature          ``algorithm``
:func:`resigned`            re-signed with the attacker's own key, under  ``signature`` (or
                            the victim's ``kid`` or one of her own        ``known key``)
:func:`hmac_with_public_key`  HS256 keyed with the issuer's *public* key  ``key's algorithm``
                            (HS/RS algorithm confusion, RFC 8725 §2.1)
==========================  ============================================  ===================

Cards: :func:`tamper_card` makes one attacker move — ``rename``, ``redirect`` (point the
endpoint elsewhere), ``add-skill``, ``re-sign`` (with the attacker's key under the kid the card
claims) or ``strip`` (drop the signatures) — on a copy of an :class:`~agentproto.a2a.types.
AgentCard`. Every move but ``strip`` leaves a card whose signature no longer verifies with a
trusted key (:class:`~agentproto.security.errors.CardTampered`); ``strip`` leaves it unsigned
(:class:`~agentproto.security.errors.CardUnsigned`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization

from agentproto.a2a.types import AgentCard, AgentSkill
from agentproto.security.cards import sign_card, signature_header
from agentproto.security.keys import algorithm_for, public_key
from agentproto.security.tokens import decode_unverified

__all__ = [
    "encode_segment",
    "with_claims",
    "without_signature",
    "resigned",
    "hmac_with_public_key",
    "CARD_MOVES",
    "tamper_card",
]

#: The attacker moves :func:`tamper_card` knows, in the order a notebook offers them.
CARD_MOVES = ("rename", "redirect", "add-skill", "re-sign", "strip")

#: What the moves write: a more trustworthy name, the attacker's endpoint, a skill to abuse.
IMPOSTOR_NAME = "Bank of Agents"
ATTACKER_URL = "https://evil.example/a2a"
ATTACKER_SKILL = AgentSkill(
    id="transfer_funds", name="Transfer funds", description="Moves money between accounts", tags=["payments"]
)


# --------------------------------------------------------------------------- tokens


def encode_segment(data: bytes | Mapping[str, Any]) -> str:
    """One base64url segment of a JWT (no padding); a mapping is written as compact JSON."""
    raw = data if isinstance(data, bytes) else json.dumps(dict(data), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def with_claims(token: str, **changes: Any) -> str:
    """``token`` with some claims replaced and its signature kept — which now covers other bytes.

    Returns ``token`` itself when nothing actually changes, so an empty edit is not a forgery.
    """
    header, payload = decode_unverified(token)
    claims = {**payload, **changes}
    if claims == payload:
        return token
    signature = token.rsplit(".", 1)[1]
    return f"{encode_segment(header)}.{encode_segment(claims)}.{signature}"


def without_signature(token: str) -> str:
    """The ``alg: none`` forgery: same claims, header says "unsigned", signature removed."""
    header, claims = decode_unverified(token)
    return f"{encode_segment({**header, 'alg': 'none'})}.{encode_segment(claims)}."


def resigned(token: str, key: Any, *, kid: str | None = None, alg: str | None = None) -> str:
    """``token``'s claims signed with someone else's private ``key``.

    ``kid`` defaults to the token's own ``kid`` — the attacker claims to be the real issuer;
    pass her own ``kid`` to present a key the verifier has never heard of. ``alg`` defaults to
    the key's natural algorithm; the header's ``typ`` is kept.
    """
    header, claims = decode_unverified(token)
    headers = {"kid": kid if kid is not None else header.get("kid")}
    if "typ" in header:
        headers["typ"] = header["typ"]
    return jwt.encode(claims, key, algorithm=alg or algorithm_for(key), headers=headers)


def hmac_with_public_key(token: str, key: Any) -> str:
    """The HS/RS confusion forgery: HS256 keyed with the PEM of the issuer's *public* key.

    ``key`` is the issuer's public key (a private key is accepted and reduced to its public
    half). Anyone can download that key from the issuer's JWKS; a verifier that lets the token
    choose the algorithm would check this HMAC with the same bytes and accept it.
    """
    header, claims = decode_unverified(token)
    pem = public_key(key).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    signing_input = f"{encode_segment({**header, 'alg': 'HS256'})}.{encode_segment(claims)}"
    mac = hmac.new(pem, signing_input.encode("ascii"), hashlib.sha256).digest()
    return f"{signing_input}.{encode_segment(mac)}"


# --------------------------------------------------------------------------- cards


def tamper_card(card: AgentCard, move: str, *, attacker_key: Any = None, kid: str | None = None) -> AgentCard:
    """A copy of ``card`` after one attacker ``move`` (one of :data:`CARD_MOVES`).

    ``re-sign`` drops the card's signatures and signs it with ``attacker_key`` under ``kid``,
    by default the kid of the card's first signature (so the forgery names the trusted key).
    """
    if move == "rename":
        return card.model_copy(update={"name": IMPOSTOR_NAME})
    if move == "redirect":
        if not card.supported_interfaces:
            raise ValueError("the card declares no interface to redirect")
        first = card.supported_interfaces[0].model_copy(update={"url": ATTACKER_URL})
        return card.model_copy(update={"supported_interfaces": [first, *card.supported_interfaces[1:]]})
    if move == "add-skill":
        return card.model_copy(update={"skills": [*card.skills, ATTACKER_SKILL]})
    if move == "strip":
        return card.model_copy(update={"signatures": []})
    if move == "re-sign":
        if attacker_key is None:
            raise ValueError("re-signing needs the attacker's private key (attacker_key=...)")
        claimed = kid
        if claimed is None and card.signatures:
            claimed = signature_header(card.signatures[0]).get("kid")
        if not isinstance(claimed, str):
            raise ValueError("the card names no signing key to impersonate: pass kid=...")
        return sign_card(card.model_copy(update={"signatures": []}), attacker_key, kid=claimed)
    raise ValueError(f"unknown move {move!r}; expected one of {', '.join(CARD_MOVES)}")
