"""Trust between agents and their front ends: tokens, signed cards, and what a client may send.

=================  ===========================================================================
``tokens``         ``issue_token`` / ``verify_token`` / ``authorize``: bearer JWTs with a
                   table of checks (who, for whom, what, until when), RFC 6750 challenges
``keys``           ``KeySet``: trusted keys pinned to one algorithm, revocable, JWKS in and out
``oauth``          ``AuthorizationServer``: the client-credentials grant, sans-I/O
``cards``          ``sign_card`` / ``verify_card``: JWS signatures on A2A Agent Cards (§8.4)
``jcs``            RFC 8785 canonical JSON — the bytes a card signature covers
``mutual``         ``mutual_check``: the caller checks the card, the callee checks the token
``client_input``   ``check_client_tool_results``: tool results a front end may not write
``serving``        ``BearerAuth`` (ASGI middleware) and ``SignedCardAgent`` — the I/O edge
``errors``         the error hierarchy (``TokenExpired``, ``CardTampered`` …)
``views``          notebook widgets (token inspector, card tamper lab); import it explicitly
=================  ===========================================================================

Everything except ``serving`` and ``views`` is sans-I/O: time comes from an injected clock.
"""

from agentproto.security.cards import (  # noqa: F401  (DEFAULT_ALGORITHMS: earlier name)
    CARD_ALGORITHMS,
    DEFAULT_ALGORITHMS,
    canonical_card_payload,
    sign_card,
    signature_header,
    verify_card,
)
from agentproto.security.client_input import check_client_tool_results, tool_calls_by_id
from agentproto.security.errors import (
    CardSignatureError,
    CardTampered,
    CardUnsigned,
    ForgedToolResult,
    MalformedToken,
    MissingScope,
    MissingToken,
    OAuthError,
    SecurityError,
    SignatureInvalid,
    TokenError,
    TokenExpired,
    TokenForged,
    TokenNotYetValid,
    UnknownKey,
    UnknownSigningKey,
    WrongAudience,
    WrongIssuer,
)
from agentproto.security.errors import (  # noqa: F401  (earlier names, kept importable)
    InvalidSignatureError,
    NoSignatureError,
    SignatureError,
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
from agentproto.security.mutual import MutualResult, Verdict, mutual_check
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
    "issue_token", "verify_token", "token_checks", "authorize", "bearer_token",
    "decode_unverified", "challenge", "error_body", "Claims", "Check", "CheckResult", "CHECKS",
    "TOKEN_TYPE",
    # keys
    "KeySet", "TrustedKey", "KeyNotTrusted", "algorithm_for", "public_key", "teaching_key",
    "ASYMMETRIC_ALGORITHMS",
    # oauth
    "AuthorizationServer", "RegisteredClient",
    # cards and canonical JSON
    "sign_card", "verify_card", "canonical_card_payload", "signature_header", "CARD_ALGORITHMS",
    "canonicalize", "canonical_bytes", "CanonicalizationError",
    # mutual verification, client input
    "mutual_check", "MutualResult", "Verdict",
    "check_client_tool_results", "tool_calls_by_id",
    # errors
    "SecurityError", "TokenError", "MissingToken", "MalformedToken", "TokenForged",
    "UnknownKey", "TokenExpired", "TokenNotYetValid", "WrongIssuer", "WrongAudience",
    "MissingScope", "CardSignatureError", "CardUnsigned", "SignatureInvalid", "CardTampered",
    "UnknownSigningKey", "ForgedToolResult", "OAuthError",
]
