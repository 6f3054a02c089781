"""Security helpers: Agent Card signatures (JWS over canonical JSON) and JSON canonicalization.

=================  ===========================================================================
``jcs``            RFC 8785 canonical JSON — the bytes a signature covers
``cards``          ``sign_card`` / ``verify_card``: JWS signatures on A2A Agent Cards (§8.4)
=================  ===========================================================================
"""

from agentproto.security.cards import (
    DEFAULT_ALGORITHMS,
    InvalidSignatureError,
    NoSignatureError,
    SignatureError,
    canonical_card_payload,
    sign_card,
    verify_card,
)
from agentproto.security.jcs import CanonicalizationError, canonical_bytes, canonicalize

__all__ = [
    "canonicalize",
    "canonical_bytes",
    "CanonicalizationError",
    "canonical_card_payload",
    "sign_card",
    "verify_card",
    "SignatureError",
    "NoSignatureError",
    "InvalidSignatureError",
    "DEFAULT_ALGORITHMS",
]
