"""Security helpers: bearer tokens (JWT) and Agent Card signatures (JWS over canonical JSON)."""
