"""Trust between agents and their front ends: tokens, signed cards, and what a client may send.

=================  ===========================================================================
``tokens``         ``issue_token`` / ``verify_token`` / ``authorize``: bearer JWTs with a
                   table of checks (who, for whom, what, until when), RFC 6750 challenges;
                   ``decode_unverified`` reads a token for display without trusting it
``keys``           ``KeySet``: trusted keys pinned to one algorithm, revocable, JWKS in and out
``oauth``          ``AuthorizationServer``: the client-credentials grant, sans-I/O
``cards``          ``sign_card`` / ``verify_card``: JWS signatures on A2A Agent Cards (§8.4);
                   ``card_fingerprint`` of the bytes a signature covers
``jcs``            RFC 8785 canonical JSON — the bytes a card signature covers
``mutual``         ``mutual_check``: the caller checks the card, the callee checks the token
``client_input``   ``check_client_tool_results``: tool results a front end may not write
``forgery``        the attacker's moves: tokens with edited claims, ``alg: none``, re-signed or
                   HMAC-keyed with a public key; tampered cards (``tamper_card``)
``errors``         the error hierarchy (``TokenExpired``, ``CardTampered`` …)
``serving``        ``BearerAuth`` (ASGI middleware) and ``SignedCardAgent`` — the server's I/O
                   edge; import it explicitly (needs Starlette)
``probe``          ``post_run_input``: hand-made run inputs posted to an AG-UI server, the
                   answers as ``ForgeryAttempt`` — the attacker's I/O edge; import it explicitly
=================  ===========================================================================

Everything except ``serving`` and ``probe`` is sans-I/O: time comes from an injected clock.
This package sits above :mod:`agentproto.a2a` (it signs and checks Agent Cards) and below
:mod:`agentproto.agui` (whose server uses ``check_client_tool_results``); it imports no UI
library. The notebook widgets for these lessons live in :mod:`agentproto.course.trust`.

The names of the first card-signing release stay importable from here —
``InvalidSignatureError``, ``NoSignatureError``, ``SignatureError``, ``DEFAULT_ALGORITHMS`` —
but are not part of ``__all__``.
"""

from agentproto.security import errors
from agentproto.security.cards import (
    CARD_ALGORITHMS,
    canonical_card_payload,
    card_fingerprint,
    sign_card,
    signature_header,
    verify_card,
)
from agentproto.security.cards import DEFAULT_ALGORITHMS as DEFAULT_ALGORITHMS
from agentproto.security.client_input import check_client_tool_results, tool_calls_by_id
from agentproto.security.errors import *  # noqa: F403 - the error hierarchy (and ERROR_DOMAIN)
from agentproto.security.errors import InvalidSignatureError as InvalidSignatureError
from agentproto.security.errors import NoSignatureError as NoSignatureError
from agentproto.security.errors import SignatureError as SignatureError
from agentproto.security.forgery import (
    CARD_MOVES,
    hmac_with_public_key,
    resigned,
    tamper_card,
    with_claims,
    without_signature,
)
from agentproto.security.jcs import CanonicalizationError, canonical_bytes, canonicalize
from agentproto.security.keys import (
    ASYMMETRIC_ALGORITHMS,
    KeyNotTrusted,
    KeySet,
    TrustedKey,
    algorithm_for,
    public_key,
    teaching_key,
)
from agentproto.security.mutual import MutualResult, SideVerdict, mutual_check
from agentproto.security.oauth import AuthorizationServer, RegisteredClient
from agentproto.security.tokens import (
    CHECKS,
    TOKEN_TYPE,
    Check,
    CheckResult,
    Claims,
    authorize,
    bearer_token,
    challenge,
    decode_unverified,
    error_body,
    issue_token,
    token_checks,
    verify_token,
)

__all__ = [
    # tokens
    "issue_token",
    "verify_token",
    "token_checks",
    "authorize",
    "bearer_token",
    "decode_unverified",
    "challenge",
    "error_body",
    "Claims",
    "Check",
    "CheckResult",
    "CHECKS",
    "TOKEN_TYPE",
    # keys
    "KeySet",
    "TrustedKey",
    "KeyNotTrusted",
    "algorithm_for",
    "public_key",
    "teaching_key",
    "ASYMMETRIC_ALGORITHMS",
    # oauth
    "AuthorizationServer",
    "RegisteredClient",
    # cards and canonical JSON
    "sign_card",
    "verify_card",
    "canonical_card_payload",
    "card_fingerprint",
    "signature_header",
    "CARD_ALGORITHMS",
    "canonicalize",
    "canonical_bytes",
    "CanonicalizationError",
    # mutual verification, client input
    "mutual_check",
    "MutualResult",
    "SideVerdict",
    "check_client_tool_results",
    "tool_calls_by_id",
    # forgeries (the attacker's side)
    "with_claims",
    "without_signature",
    "resigned",
    "hmac_with_public_key",
    "tamper_card",
    "CARD_MOVES",
]

__all__ += errors.__all__  # SecurityError and its family
