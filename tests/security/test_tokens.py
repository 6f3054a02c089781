"""Bearer tokens: issued with an injected clock, verified by a table of checks, refused by type."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from agentproto.clock import FakeClock
from agentproto.security import (
    CHECKS,
    KeySet,
    MalformedToken,
    MissingScope,
    MissingToken,
    TokenError,
    TokenExpired,
    TokenForged,
    TokenNotYetValid,
    UnknownKey,
    WrongAudience,
    WrongIssuer,
    authorize,
    bearer_token,
    challenge,
    decode_unverified,
    error_body,
    issue_token,
    teaching_key,
    token_checks,
    verify_token,
)

ISSUER = "https://auth.example"


@pytest.fixture(scope="module")
def auth_key():
    return teaching_key("auth server")


@pytest.fixture(scope="module")
def trusted(auth_key):
    keys = KeySet()
    keys.add("auth-1", auth_key.public_key())
    return keys


def mint(
    auth_key, clock, *, audience="flight-agent", scopes=("flights:search",), ttl_s=3600, kid="auth-1", **kw
):
    return issue_token(
        "orchestrator", audience, scopes, ttl_s, auth_key, clock=clock, kid=kid, issuer=ISSUER, **kw
    )


def check(token, trusted, clock, **kw):
    kw.setdefault("audience", "flight-agent")
    return verify_token(token, keys=trusted, clock=clock, issuer=ISSUER, **kw)


def b64(obj) -> str:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


# --- issuing and the happy path ----------------------------------------------------------------


def test_a_token_says_who_what_and_until_when(auth_key, trusted, clock):
    token = mint(auth_key, clock, scopes=["flights:search", "flights:book"], token_id="tok-1")
    header, payload = decode_unverified(token)
    assert header == {"alg": "ES256", "kid": "auth-1", "typ": "at+jwt"}
    assert payload == {
        "iss": ISSUER,
        "sub": "orchestrator",
        "aud": "flight-agent",
        "iat": clock.now_ms() // 1000,
        "exp": clock.now_ms() // 1000 + 3600,
        "scope": "flights:book flights:search",
        "jti": "tok-1",
    }
    claims = check(token, trusted, clock, required_scopes=["flights:book"])
    assert (claims.subject, claims.audience, claims.issuer) == ("orchestrator", ("flight-agent",), ISSUER)
    assert claims.scopes == {"flights:search", "flights:book"}
    assert claims.expires_in_s(clock.now_ms()) == 3600
    assert claims.summary().startswith("orchestrator → flight-agent [flights:book flights:search]")


def test_pyjwt_reads_our_tokens(auth_key, clock):
    token = mint(auth_key, clock)
    payload = jwt.decode(
        token,
        auth_key.public_key(),
        algorithms=["ES256"],
        audience="flight-agent",
        options={"verify_exp": False, "verify_iat": False},
    )
    assert payload["sub"] == "orchestrator"


def test_a_token_needs_a_positive_lifetime(auth_key, clock):
    with pytest.raises(ValueError):
        mint(auth_key, clock, ttl_s=0)


def test_eddsa_tokens_are_byte_for_byte_reproducible():
    key = teaching_key("auth", "EdDSA")
    assert issue_token("a", "b", ["s"], 60, key, clock=FakeClock(), kid="k") == issue_token(
        "a", "b", ["s"], 60, key, clock=FakeClock(), kid="k"
    )


def test_a_list_audience_accepts_each_named_agent(auth_key, trusted, clock):
    token = mint(auth_key, clock, audience=["flight-agent", "hotel-agent"])
    assert check(token, trusted, clock, audience="hotel-agent").audience == ("flight-agent", "hotel-agent")


# --- time ----------------------------------------------------------------------------------------


def test_a_token_expires_when_the_injected_clock_reaches_exp(auth_key, trusted, clock):
    token = mint(auth_key, clock, ttl_s=60)
    clock.advance(59_999)
    assert check(token, trusted, clock)
    clock.advance(1)
    with pytest.raises(TokenExpired, match="expired at 2026-01-01T00:01:00.000Z"):
        check(token, trusted, clock)


def test_leeway_tolerates_clock_skew_on_expiry(auth_key, trusted, clock):
    token = mint(auth_key, clock, ttl_s=60)
    clock.advance(90_000)
    assert check(token, trusted, clock, leeway_s=45)
    with pytest.raises(TokenExpired):
        check(token, trusted, clock, leeway_s=20)


def test_a_token_from_the_future_is_not_yet_valid(auth_key, trusted, clock):
    later = FakeClock(clock.now_ms() + 120_000)
    token = mint(auth_key, later)
    with pytest.raises(TokenNotYetValid):
        check(token, trusted, clock)
    assert check(token, trusted, clock, leeway_s=120)
    nbf = mint(auth_key, clock, not_before_s=clock.now_ms() // 1000 + 30)
    with pytest.raises(TokenNotYetValid, match=r"\(nbf\)"):
        check(nbf, trusted, clock)


# --- who and what ----------------------------------------------------------------------------------


def test_a_token_for_another_agent_is_refused(auth_key, trusted, clock):
    token = mint(auth_key, clock, audience="hotel-agent")
    with pytest.raises(WrongAudience, match="is for 'hotel-agent', not for 'flight-agent'"):
        check(token, trusted, clock)


def test_a_missing_scope_is_a_403_not_a_401(auth_key, trusted, clock):
    token = mint(auth_key, clock, scopes=["flights:search"])
    with pytest.raises(MissingScope) as info:
        check(token, trusted, clock, required_scopes=["flights:book"])
    assert info.value.http_status == 403 and info.value.error_code == "insufficient_scope"
    assert info.value.details["scope"] == ["flights:book"]


def test_a_token_from_another_issuer_is_refused(auth_key, trusted, clock):
    token = issue_token(
        "orchestrator",
        "flight-agent",
        [],
        60,
        auth_key,
        clock=clock,
        kid="auth-1",
        issuer="https://other-idp.example",
    )
    with pytest.raises(WrongIssuer):
        check(token, trusted, clock)


def test_required_claims_must_be_present(auth_key, trusted, clock):
    token = jwt.encode(
        {"sub": "x", "aud": "flight-agent", "iss": ISSUER},
        auth_key,
        algorithm="ES256",
        headers={"kid": "auth-1", "typ": "at+jwt"},
    )
    with pytest.raises(MalformedToken, match="iat, exp"):
        check(token, trusted, clock)


# --- forgeries -------------------------------------------------------------------------------------


def test_a_tampered_payload_breaks_the_signature(auth_key, trusted, clock):
    header, payload, sig = mint(auth_key, clock).split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["scope"] = "flights:search flights:book payments:transfer"
    with pytest.raises(TokenForged, match="signature does not verify") as info:
        check(f"{header}.{b64(claims)}.{sig}", trusted, clock)
    assert info.value.rule == "token.bad-signature"


def test_a_token_minted_by_a_stranger_under_our_kid_is_forged(trusted, clock):
    mallory = teaching_key("mallory")
    with pytest.raises(TokenForged):
        check(mint(mallory, clock), trusted, clock)


def test_a_token_signed_with_an_unknown_kid_names_an_unknown_key(trusted, clock):
    with pytest.raises(UnknownKey, match="'mallory-1' is not in the trusted key set"):
        check(mint(teaching_key("mallory"), clock, kid="mallory-1"), trusted, clock)


def test_a_revoked_key_is_no_longer_trusted(auth_key, clock):
    keys = KeySet()
    keys.add("auth-1", auth_key.public_key())
    token = mint(auth_key, clock)
    keys.revoke("auth-1")
    with pytest.raises(UnknownKey, match="is revoked"):
        check(token, keys, clock)


def test_the_alg_none_attack_is_refused(auth_key, trusted, clock):
    # RFC 8725 §2.1: an unsigned token with a header that says so.
    _, payload, _ = mint(auth_key, clock).split(".")
    unsigned = f"{b64({'alg': 'none', 'kid': 'auth-1', 'typ': 'at+jwt'})}.{payload}."
    with pytest.raises(TokenForged, match="alg 'none'") as info:
        check(unsigned, trusted, clock)
    assert info.value.rule == "token.alg-none"
    # Even a verifier that (wrongly) puts "none" on its allow-list does not accept it.
    with pytest.raises(TokenForged):
        check(unsigned, trusted, clock, algorithms=["ES256", "none"])


def test_the_hs_rs_confusion_attack_is_refused():
    # The attacker HMAC-signs a token with the *public* RSA key (which anyone can fetch) as the
    # secret. A verifier that lets the token's alg pick the algorithm would feed the public
    # key to HMAC and accept it; the key set pins kid auth-rsa to RS256.
    clock = FakeClock()
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public_pem = rsa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    keys = KeySet()
    keys.add("auth-rsa", rsa_key.public_key())  # pinned to RS256
    assert issue_token("o", "flight-agent", [], 60, rsa_key, clock=clock, kid="auth-rsa")
    now = clock.now_ms() // 1000
    signing_input = (
        b64({"alg": "HS256", "kid": "auth-rsa", "typ": "at+jwt"})
        + "."
        + b64({"sub": "mallory", "aud": "flight-agent", "iat": now, "exp": now + 60, "scope": "flights:book"})
    )
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    forged = f"{signing_input}.{b64(mac)}"
    for algorithms in (["RS256"], ["RS256", "HS256"]):
        with pytest.raises(TokenForged) as info:
            verify_token(forged, audience="flight-agent", keys=keys, clock=clock, algorithms=algorithms)
        assert info.value.rule in ("token.alg-not-allowed", "token.alg-mismatch")
    assert info.value.rule == "token.alg-mismatch"  # the pin caught it, not the allow-list


def test_an_id_token_or_other_jwt_is_not_an_access_token(auth_key, trusted, clock):
    token = jwt.encode(
        {"sub": "x", "aud": "flight-agent", "iat": 0, "exp": 10**10},
        auth_key,
        algorithm="ES256",
        headers={"kid": "auth-1"},
    )  # typ JWT
    with pytest.raises(MalformedToken, match="not an access token"):
        check(token, trusted, clock)


@pytest.mark.parametrize("garbage", ["", "abc", "a.b", "a.b.c.d", "!!.??.x", "e30.W10.x"])
def test_garbage_is_malformed(garbage, trusted, clock):
    with pytest.raises(MalformedToken):
        check(garbage, trusted, clock)


# --- the table ------------------------------------------------------------------------------------


def test_the_check_table_stops_at_the_first_failure(auth_key, trusted, clock):
    token = mint(auth_key, clock, audience="hotel-agent")
    rows = token_checks(
        token, audience="flight-agent", keys=trusted, clock=clock, required_scopes=["flights:search"]
    )
    assert [r.name for r in rows] == [c.name for c in CHECKS]
    assert [r.mark for r in rows] == ["✓"] * 9 + ["✗", "·"]
    assert isinstance(rows[9].error, WrongAudience)


def test_each_check_has_its_own_refusal(auth_key, trusted, clock):
    # One token per row of the table, each failing exactly there.
    cases = {
        "well-formed": "not-a-token",
        "algorithm": f"{b64({'alg': 'none', 'kid': 'auth-1', 'typ': 'at+jwt'})}.e30.",
        "known key": mint(auth_key, clock, kid="nobody"),
        "signature": mint(teaching_key("mallory"), clock),
        "not expired": mint(auth_key, FakeClock(clock.now_ms() - 7_200_000)),
        "audience": mint(auth_key, clock, audience="hotel-agent"),
        "scopes": mint(auth_key, clock, scopes=[]),
    }
    for name, token in cases.items():
        rows = token_checks(
            token,
            audience="flight-agent",
            keys=trusted,
            clock=clock,
            required_scopes=["flights:search"],
            issuer=ISSUER,
        )
        failed = [r.name for r in rows if r.passed is False]
        assert failed == [name], (name, [(r.name, r.detail) for r in rows])


# --- the HTTP edge --------------------------------------------------------------------------------


def test_authorize_reads_the_bearer_header_case_insensitively(auth_key, trusted, clock):
    token = mint(auth_key, clock)
    for headers in ({"Authorization": f"Bearer {token}"}, {"authorization": f"bearer {token}"}):
        assert (
            authorize(headers, audience="flight-agent", keys=trusted, clock=clock).subject == "orchestrator"
        )


@pytest.mark.parametrize(
    "headers, error",
    [
        ({}, MissingToken),
        ({"Authorization": ""}, MissingToken),
        ({"Authorization": "Basic b3JjaDpzZWNyZXQ="}, MissingToken),
        ({"Authorization": "Bearer"}, MalformedToken),
        ({"Authorization": "Bearer a b"}, MalformedToken),
    ],
)
def test_bad_authorization_headers(headers, error):
    with pytest.raises(error):
        bearer_token(headers)


def test_a_missing_token_gets_a_challenge_without_an_error_code():
    # RFC 6750 §3.1: no error code when the request carried no credentials.
    with pytest.raises(MissingToken) as info:
        bearer_token({})
    assert challenge(info.value, realm="flights") == 'Bearer realm="flights"'
    assert info.value.http_status == 401


def test_challenges_name_the_error_and_the_needed_scope(auth_key, trusted, clock):
    with pytest.raises(MissingScope) as info:
        check(mint(auth_key, clock, scopes=[]), trusted, clock, required_scopes=["flights:book"])
    value = challenge(info.value)
    assert value.startswith('Bearer realm="agentproto", error="insufficient_scope", error_description="')
    assert value.endswith(', scope="flights:book"')
    clock.advance(10**8)
    with pytest.raises(TokenExpired) as expired:
        check(mint(auth_key, FakeClock()), trusted, clock)
    assert 'error="invalid_token"' in challenge(expired.value)


def test_error_bodies_use_the_google_rpc_status_shape(auth_key, trusted, clock):
    with pytest.raises(TokenError) as info:
        check(mint(auth_key, clock, audience="hotel-agent"), trusted, clock)
    body = error_body(info.value)
    assert body["error"]["code"] == 401 and body["error"]["status"] == "UNAUTHENTICATED"
    assert body["error"]["details"][0]["reason"] == "TOKEN_WRONG_AUDIENCE"
    assert body["error"]["details"][0]["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"


def test_challenge_text_is_plain_ascii_without_quotes():
    exc = MalformedToken('bad "token" — really')
    assert challenge(exc).endswith("error_description=\"bad 'token' ? really\"")
