"""The well-known paths the kit's servers answer on, named once."""

from __future__ import annotations

__all__ = ["AGENT_CARD_PATH", "TOKEN_PATH", "JWKS_PATH"]

#: The public Agent Card (A2A §8.2, RFC 8615).
AGENT_CARD_PATH = "/.well-known/agent-card.json"
#: Auth mode's token endpoint (OAuth 2.0 client credentials, RFC 6749 §4.4).
TOKEN_PATH = "/oauth/token"
#: Auth mode's JWK Set (RFC 7517 §5), the keys its tokens are signed with.
JWKS_PATH = "/.well-known/jwks.json"
