"""Trusted key sets and the client-credentials authorization server."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from agentproto.clock import IdFactory
from agentproto.security import (
    AuthorizationServer,
    KeyNotTrusted,
    KeySet,
    OAuthError,
    algorithm_for,
    decode_unverified,
    teaching_key,
    verify_token,
)

# --- keys ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, alg",
    [
        (lambda: ec.generate_private_key(ec.SECP256R1()), "ES256"),
        (lambda: ec.generate_private_key(ec.SECP384R1()), "ES384"),
        (lambda: ed25519.Ed25519PrivateKey.generate(), "EdDSA"),
        (lambda: b"0123456789abcdef0123456789abcdef", "HS256"),
    ],
)
def test_a_keys_natural_algorithm(make, alg):
    key = make()
    assert algorithm_for(key) == alg
    if not isinstance(key, bytes):
        assert algorithm_for(key.public_key()) == alg


def test_rsa_keys_default_to_rs256():
    assert algorithm_for(rsa.generate_private_key(public_exponent=65537, key_size=2048)) == "RS256"


def test_teaching_keys_are_reproducible_and_distinct():
    from cryptography.hazmat.primitives import serialization

    def raw(k):
        return k.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )

    assert raw(teaching_key("a")) == raw(teaching_key("a"))
    assert raw(teaching_key("a")) != raw(teaching_key("b"))
    assert algorithm_for(teaching_key("a", "EdDSA")) == "EdDSA"
    with pytest.raises(ValueError):
        teaching_key("a", "RS256")


def test_a_key_is_usable_only_inside_its_validity_window():
    keys = KeySet()
    keys.add("k", teaching_key("k").public_key(), not_before_ms=1000, not_after_ms=2000)
    with pytest.raises(KeyNotTrusted, match="not valid yet"):
        keys.find("k", 999)
    assert keys.find("k", 1000).kid == "k"
    with pytest.raises(KeyNotTrusted, match="has expired"):
        keys.find("k", 2000)
    assert keys.find("k").kid == "k"  # no clock, no window check


def test_a_revoked_key_stays_known_but_unusable():
    keys = KeySet()
    keys.add("k", teaching_key("k").public_key())
    keys.revoke("k")
    assert "k" in keys
    with pytest.raises(KeyNotTrusted, match="is revoked"):
        keys.find("k")
    assert keys.to_jwks() == {"keys": []}


def test_a_missing_kid_is_not_trusted():
    with pytest.raises(KeyNotTrusted, match="missing"):
        KeySet().find(None)


def test_a_jwk_set_round_trips_with_kid_and_pinned_algorithm():
    keys = KeySet()
    keys.add("ec", teaching_key("ec"))
    keys.add("ed", teaching_key("ed", "EdDSA"))
    keys.add("rsa", rsa.generate_private_key(public_exponent=65537, key_size=2048), alg="PS256")
    keys.add("secret", b"0123456789abcdef0123456789abcdef")
    jwks = keys.to_jwks()
    assert [k["kid"] for k in jwks["keys"]] == ["ec", "ed", "rsa"]  # secrets never published
    assert all("d" not in k for k in jwks["keys"])  # public halves only
    back = KeySet.from_jwks(jwks)
    assert [(e.kid, e.alg) for e in back] == [("ec", "ES256"), ("ed", "EdDSA"), ("rsa", "PS256")]


def test_a_jwk_without_kid_is_refused():
    jwks = KeySet()
    jwks.add("ec", teaching_key("ec"))
    doc = jwks.to_jwks()
    del doc["keys"][0]["kid"]
    with pytest.raises(ValueError, match="kid"):
        KeySet.from_jwks(doc)


# --- the authorization server ----------------------------------------------------------------------


@pytest.fixture
def auth(clock):
    server = AuthorizationServer(
        "https://auth.example",
        teaching_key("auth", "EdDSA"),
        kid="auth-1",
        clock=clock,
        ids=IdFactory("tok"),
        ttl_s=600,
    )
    server.register_client(
        "orchestrator",
        "s3cret-orchestrator",
        scopes={"flights:search", "flights:book"},
        resources={"flight-agent"},
    )
    return server


def form(**over):
    base = {
        "grant_type": "client_credentials",
        "client_id": "orchestrator",
        "client_secret": "s3cret-orchestrator",
        "resource": "flight-agent",
        "scope": "flights:search",
    }
    return {**base, **over}


def test_client_credentials_yield_a_bearer_token_the_agent_accepts(auth, clock):
    answer = auth.token(form())
    assert {k: v for k, v in answer.items() if k != "access_token"} == {
        "token_type": "Bearer",
        "expires_in": 600,
        "scope": "flights:search",
    }
    claims = verify_token(
        answer["access_token"],
        audience="flight-agent",
        keys=auth.key_set(),
        clock=clock,
        issuer="https://auth.example",
    )
    assert (claims.subject, claims.token_id) == ("orchestrator", "tok-1")
    assert list(auth.issued) == [
        {"jti": "tok-1", "client": "orchestrator", "resource": "flight-agent", "scope": "flights:search"}
    ]


def test_the_token_carries_every_claim_rfc_9068_requires(auth):
    """RFC 9068 §2.2: an at+jwt access token REQUIRES iss, exp, aud, sub, client_id, iat, jti;
    with no resource owner (client credentials) sub and client_id both name the client."""
    header, payload = decode_unverified(auth.token(form())["access_token"])
    assert header["typ"] == "at+jwt"
    assert {"iss", "exp", "aud", "sub", "client_id", "iat", "jti"} <= set(payload)
    assert payload["client_id"] == payload["sub"] == "orchestrator"
    assert payload["aud"] == "flight-agent"  # the RFC 8707 resource asked for
    assert payload["exp"] == payload["iat"] + 600


def test_the_published_jwks_is_enough_to_verify(auth, clock):
    token = auth.token(form())["access_token"]
    assert (
        verify_token(token, audience="flight-agent", keys=KeySet.from_jwks(auth.jwks()), clock=clock).subject
        == "orchestrator"
    )


def test_no_scope_asked_means_every_granted_scope(auth):
    assert auth.token(form(scope=""))["scope"] == "flights:book flights:search"


@pytest.mark.parametrize(
    "over, error, status",
    [
        ({"grant_type": "password"}, "unsupported_grant_type", 400),
        ({"client_secret": "guess"}, "invalid_client", 401),
        ({"client_id": "mallory"}, "invalid_client", 401),
        ({"resource": "bank-agent"}, "invalid_target", 400),
        ({"scope": "flights:search payments:transfer"}, "invalid_scope", 400),
    ],
)
def test_token_requests_are_refused_with_rfc_6749_codes(auth, over, error, status):
    with pytest.raises(OAuthError) as info:
        auth.token(form(**over))
    assert (info.value.error, info.value.http_status) == (error, status)
    assert info.value.to_json()["error"] == error
    assert info.value.rule == f"oauth.{error}"
    assert list(auth.issued) == []
