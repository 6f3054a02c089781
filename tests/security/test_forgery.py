"""The attacker's moves: every forged token and tampered card is refused by the rule it targets."""

from __future__ import annotations

import pytest

from agentproto.a2a.agents import TravelDeskAgent
from agentproto.security import (
    CARD_MOVES,
    CardSignatureError,
    CardTampered,
    CardUnsigned,
    KeySet,
    TokenForged,
    UnknownKey,
    card_fingerprint,
    decode_unverified,
    hmac_with_public_key,
    issue_token,
    resigned,
    sign_card,
    signature_header,
    tamper_card,
    teaching_key,
    token_checks,
    verify_card,
    verify_token,
    with_claims,
    without_signature,
)
from agentproto.security.forgery import ATTACKER_URL, IMPOSTOR_NAME, encode_segment

ISSUER = "https://auth.example"
AUTH_KEY = teaching_key("auth server", "EdDSA")
MALLORY = teaching_key("mallory", "EdDSA")
ALL_ALGORITHMS = ("EdDSA", "ES256", "HS256")


@pytest.fixture
def keys():
    trusted = KeySet()
    trusted.add("auth-1", AUTH_KEY.public_key())
    return trusted


@pytest.fixture
def genuine(clock):
    return issue_token(
        "orchestrator",
        "flight-agent",
        ["flights:search"],
        3600,
        AUTH_KEY,
        clock=clock,
        kid="auth-1",
        issuer=ISSUER,
    )


def failed_rule(token, keys, clock):
    """The rule of the first check that refuses ``token`` (``None`` if it is accepted)."""
    rows = token_checks(
        token, audience="flight-agent", keys=keys, clock=clock, issuer=ISSUER, algorithms=ALL_ALGORITHMS
    )
    return next((r.error.rule for r in rows if r.error is not None), None)


# --- tokens -----------------------------------------------------------------------------------


def test_the_genuine_token_is_accepted(genuine, keys, clock):
    assert failed_rule(genuine, keys, clock) is None


def test_editing_claims_keeps_the_old_signature_which_no_longer_verifies(genuine, keys, clock):
    forged = with_claims(genuine, sub="admin", scope="flights:book")
    _, claims = decode_unverified(forged)
    assert (claims["sub"], claims["scope"]) == ("admin", "flights:book")
    assert forged.rsplit(".", 1)[1] == genuine.rsplit(".", 1)[1]
    assert failed_rule(forged, keys, clock) == "token.bad-signature"


def test_an_edit_that_changes_nothing_returns_the_token_itself(genuine):
    assert with_claims(genuine) == genuine
    assert with_claims(genuine, sub="orchestrator") == genuine


def test_alg_none_removes_the_signature_and_is_refused(genuine, keys, clock):
    forged = without_signature(genuine)
    header, claims = decode_unverified(forged)
    assert header["alg"] == "none" and forged.endswith(".")
    assert claims == decode_unverified(genuine)[1]
    assert failed_rule(forged, keys, clock) == "token.alg-none"


def test_a_stranger_signing_under_the_issuers_kid_fails_the_signature(genuine, keys, clock):
    forged = resigned(genuine, MALLORY)
    assert decode_unverified(forged)[0]["kid"] == "auth-1"
    assert decode_unverified(forged)[0]["typ"] == "at+jwt"
    with pytest.raises(TokenForged):
        verify_token(forged, audience="flight-agent", keys=keys, clock=clock)
    assert failed_rule(forged, keys, clock) == "token.bad-signature"


def test_a_stranger_signing_under_her_own_kid_is_an_unknown_key(genuine, keys, clock):
    forged = resigned(genuine, MALLORY, kid="mallory-1")
    with pytest.raises(UnknownKey):
        verify_token(forged, audience="flight-agent", keys=keys, clock=clock)


def test_re_signing_with_the_trusted_key_would_pass_so_the_key_is_what_matters(genuine, keys, clock):
    edited = with_claims(genuine, scope="flights:book")
    assert failed_rule(resigned(edited, AUTH_KEY), keys, clock) is None


def test_an_hmac_keyed_with_the_public_key_is_refused_by_the_keys_pin(genuine, keys, clock):
    forged = hmac_with_public_key(genuine, AUTH_KEY.public_key())
    assert decode_unverified(forged)[0]["alg"] == "HS256"
    assert hmac_with_public_key(genuine, AUTH_KEY) == forged  # a private key is reduced
    assert failed_rule(forged, keys, clock) == "token.alg-mismatch"


def test_forgeries_compose_with_claim_edits(genuine, keys, clock):
    forged = without_signature(with_claims(genuine, sub="admin"))
    assert decode_unverified(forged)[1]["sub"] == "admin"
    assert failed_rule(forged, keys, clock) == "token.alg-none"


def test_segments_are_unpadded_base64url_of_compact_json():
    assert encode_segment({"a": 1}) == "eyJhIjoxfQ"
    assert encode_segment(b"\xfb\xff") == "-_8"


# --- cards ------------------------------------------------------------------------------------

CARD_KEY = teaching_key("travel card")
ATTACKER = teaching_key("attacker card")


@pytest.fixture
def signed():
    return sign_card(TravelDeskAgent().card("https://travel.example/a2a"), CARD_KEY, kid="travel-card-1")


@pytest.fixture
def card_keys():
    trusted = KeySet()
    trusted.add("travel-card-1", CARD_KEY.public_key())
    return trusted


@pytest.mark.parametrize(
    "move, error",
    [
        ("rename", CardTampered),
        ("redirect", CardTampered),
        ("add-skill", CardTampered),
        ("re-sign", CardTampered),
        ("strip", CardUnsigned),
    ],
)
def test_every_card_move_is_refused(signed, card_keys, move, error):
    assert verify_card(signed, card_keys)
    with pytest.raises(error):
        verify_card(tamper_card(signed, move, attacker_key=ATTACKER), card_keys)


def test_every_offered_move_breaks_the_signature_check(signed, card_keys):
    for move in CARD_MOVES:
        with pytest.raises(CardSignatureError):
            verify_card(tamper_card(signed, move, attacker_key=ATTACKER), card_keys)


def test_the_moves_change_what_they_say_and_leave_the_original_alone(signed):
    assert tamper_card(signed, "rename").name == IMPOSTOR_NAME
    assert tamper_card(signed, "redirect").supported_interfaces[0].url == ATTACKER_URL
    grown = tamper_card(signed, "add-skill")
    assert [s.id for s in grown.skills] == [*(s.id for s in signed.skills), "transfer_funds"]
    assert tamper_card(signed, "strip").signatures == []
    assert signed.name != IMPOSTOR_NAME and signed.signatures


def test_re_signing_impersonates_the_kid_the_card_names(signed):
    forged = tamper_card(signed, "re-sign", attacker_key=ATTACKER)
    assert len(forged.signatures) == 1
    assert signature_header(forged.signatures[0])["kid"] == "travel-card-1"
    assert verify_card(forged, {"travel-card-1": ATTACKER.public_key()})  # her key, her card
    own = tamper_card(signed, "re-sign", attacker_key=ATTACKER, kid="attacker-1")
    assert signature_header(own.signatures[0])["kid"] == "attacker-1"


def test_re_signing_needs_a_key_and_a_kid(signed):
    with pytest.raises(ValueError, match="attacker_key"):
        tamper_card(signed, "re-sign")
    with pytest.raises(ValueError, match="kid"):
        tamper_card(tamper_card(signed, "strip"), "re-sign", attacker_key=ATTACKER)


def test_an_unknown_move_is_refused(signed):
    with pytest.raises(ValueError, match="teleport"):
        tamper_card(signed, "teleport")


def test_the_fingerprint_covers_the_card_but_not_its_signatures(signed):
    assert len(card_fingerprint(signed)) == 16 and len(card_fingerprint(signed, 64)) == 64
    assert card_fingerprint(tamper_card(signed, "strip")) == card_fingerprint(signed)
    assert card_fingerprint(tamper_card(signed, "rename")) != card_fingerprint(signed)
