"""Trusted keys: which key, for which algorithm, and until when.

A verifier must never let the token or card it is checking choose the algorithm (RFC 8725
§3.1, §2.1 "algorithm confusion"): the *key* decides. So every entry of a :class:`KeySet`
pins one algorithm to one key id, and may carry a validity window and a revoked flag — the
A2A spec says expired or revoked keys MUST NOT be used for verification (§8.4.3).

:class:`KeySet` is both the trust store of a verifier (public keys) and, through
:meth:`KeySet.to_jwks` / :meth:`KeySet.from_jwks`, the JSON Web Key Set (RFC 7517 §5) an issuer
publishes. :func:`teaching_key` makes reproducible keys for notebooks and tests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from jwt.algorithms import ECAlgorithm, OKPAlgorithm, RSAAlgorithm

from agentproto.errors import AgentProtoError

__all__ = [
    "TrustedKey",
    "KeySet",
    "KeyNotTrusted",
    "algorithm_for",
    "public_key",
    "teaching_key",
    "ASYMMETRIC_ALGORITHMS",
]

#: The asymmetric JWS algorithms this package accepts by default.
ASYMMETRIC_ALGORITHMS = (
    "ES256",
    "ES384",
    "ES512",
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "EdDSA",
)

_CURVE_ALG = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}


class KeyNotTrusted(AgentProtoError, KeyError):
    """The key id is not in the key set, or its entry may not be used now (``reason``)."""

    def __init__(self, kid: str | None, reason: str) -> None:
        super().__init__(kid)
        self.kid = kid
        self.reason = reason

    def __str__(self) -> str:
        return f"key {self.kid!r} {self.reason}"


def public_key(key: Any) -> Any:
    """The public half of a private key; anything else (a public key, a secret) unchanged."""
    getter = getattr(key, "public_key", None)
    return getter() if callable(getter) else key


def algorithm_for(key: Any) -> str:
    """The JWS ``alg`` a key is naturally used with (EC curve → ES*, RSA → RS256, Ed25519 →
    EdDSA, a shared secret → HS256)."""
    if isinstance(key, ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey):
        try:
            return _CURVE_ALG[key.curve.name]
        except KeyError:
            raise ValueError(f"no JWS algorithm for curve {key.curve.name}") from None
    if isinstance(key, rsa.RSAPrivateKey | rsa.RSAPublicKey):
        return "RS256"
    if isinstance(
        key,
        ed25519.Ed25519PrivateKey | ed25519.Ed25519PublicKey | ed448.Ed448PrivateKey | ed448.Ed448PublicKey,
    ):
        return "EdDSA"
    if isinstance(key, bytes | str):
        return "HS256"
    raise TypeError(f"not a key: {type(key).__name__}")


def teaching_key(label: str, alg: str = "ES256") -> Any:
    """A private key derived from ``label`` — the same key on every run, for notebooks and tests.

    Only ``ES256`` (P-256) and ``EdDSA`` (Ed25519) can be derived; anyone who reads the label
    can rebuild the key, so never use one outside teaching.
    """
    seed = hashlib.sha256(f"agentproto teaching key:{label}".encode()).digest()
    if alg == "EdDSA":
        return ed25519.Ed25519PrivateKey.from_private_bytes(seed)
    if alg == "ES256":
        order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
        return ec.derive_private_key(int.from_bytes(seed, "big") % (order - 1) + 1, ec.SECP256R1())
    raise ValueError(f"teaching keys exist for ES256 and EdDSA, not {alg}")


@dataclass(frozen=True)
class TrustedKey:
    """One verification key, pinned to one algorithm, with an optional validity window."""

    kid: str
    key: Any
    alg: str
    not_before_ms: int | None = None
    not_after_ms: int | None = None
    revoked: bool = False

    def usable_at(self, now_ms: int | None) -> str | None:
        """``None`` if the key may verify at ``now_ms``; otherwise why not."""
        if self.revoked:
            return "is revoked"
        if now_ms is not None and self.not_before_ms is not None and now_ms < self.not_before_ms:
            return "is not valid yet"
        if now_ms is not None and self.not_after_ms is not None and now_ms >= self.not_after_ms:
            return "has expired"
        return None

    def jwk(self) -> dict[str, Any]:
        """The public key as a JWK (RFC 7517) with ``kid``, ``alg`` and ``use: sig``."""
        key = public_key(self.key)
        if isinstance(key, ec.EllipticCurvePublicKey):
            jwk = ECAlgorithm.to_jwk(key, as_dict=True)
        elif isinstance(key, rsa.RSAPublicKey):
            jwk = RSAAlgorithm.to_jwk(key, as_dict=True)
        elif isinstance(key, ed25519.Ed25519PublicKey | ed448.Ed448PublicKey):
            jwk = OKPAlgorithm.to_jwk(key, as_dict=True)
        else:
            raise TypeError("shared secrets are never published in a JWK Set")
        return {**jwk, "kid": self.kid, "alg": self.alg, "use": "sig"}


class KeySet:
    """A trust store: ``kid`` → :class:`TrustedKey`.

    >>> keys = KeySet()
    >>> _ = keys.add("auth-1", teaching_key("auth"))
    >>> keys.find("auth-1").alg
    'ES256'
    """

    def __init__(self, keys: Iterable[TrustedKey] = ()) -> None:
        self._keys: dict[str, TrustedKey] = {}
        for entry in keys:
            self._keys[entry.kid] = entry

    @classmethod
    def of(cls, keys: Mapping[str, Any] | KeySet) -> KeySet:
        """A key set from another one, or from a ``{kid: key}`` mapping (algorithms inferred)."""
        if isinstance(keys, KeySet):
            return keys
        out = cls()
        for kid, key in keys.items():
            out.add(kid, key)
        return out

    def add(
        self,
        kid: str,
        key: Any,
        *,
        alg: str | None = None,
        not_before_ms: int | None = None,
        not_after_ms: int | None = None,
    ) -> TrustedKey:
        """Trust ``key`` under ``kid`` for ``alg`` only (default: the key's natural algorithm)."""
        entry = TrustedKey(kid, key, alg or algorithm_for(key), not_before_ms, not_after_ms)
        self._keys[kid] = entry
        return entry

    def revoke(self, kid: str) -> None:
        """Keep the entry, but refuse it from now on (a revoked key is not an unknown key)."""
        self._keys[kid] = replace(self._keys[kid], revoked=True)

    def remove(self, kid: str) -> None:
        self._keys.pop(kid, None)

    def find(self, kid: str | None, now_ms: int | None = None) -> TrustedKey:
        """The entry for ``kid`` if it may be used at ``now_ms``; else :class:`KeyNotTrusted`."""
        if kid is None:
            raise KeyNotTrusted(kid, "is missing (no kid in the header)")
        entry = self._keys.get(kid)
        if entry is None:
            raise KeyNotTrusted(kid, "is not in the trusted key set")
        problem = entry.usable_at(now_ms)
        if problem:
            raise KeyNotTrusted(kid, problem)
        return entry

    def public(self) -> KeySet:
        """The same entries with public keys only — what an issuer hands to verifiers."""
        return KeySet(replace(e, key=public_key(e.key)) for e in self._keys.values())

    def to_jwks(self) -> dict[str, Any]:
        """``{"keys": [...]}``: the usable asymmetric public keys (RFC 7517 §5)."""
        return {
            "keys": [
                e.jwk() for e in self._keys.values() if not e.revoked and not isinstance(e.key, bytes | str)
            ]
        }

    @classmethod
    def from_jwks(cls, jwks: Mapping[str, Any]) -> KeySet:
        """Parse a JWK Set; every key needs a ``kid``, and its ``alg`` (or its type) pins the
        algorithm."""
        out = cls()
        for raw in jwks.get("keys", []):
            if "kid" not in raw:
                raise ValueError("a JWK without 'kid' cannot be looked up")
            parsed = jwt.PyJWK(dict(raw))
            out.add(raw["kid"], parsed.key, alg=raw.get("alg") or parsed.algorithm_name)
        return out

    def __contains__(self, kid: object) -> bool:
        return kid in self._keys

    def __iter__(self) -> Iterator[TrustedKey]:
        return iter(self._keys.values())

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return (
            "KeySet("
            + ", ".join(f"{e.kid}:{e.alg}" + (" revoked" if e.revoked else "") for e in self._keys.values())
            + ")"
        )
