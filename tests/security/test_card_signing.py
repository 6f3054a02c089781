"""Signed Agent Cards (A2A spec §8.4): JCS canonical JSON, detached JWS, verification."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from agentproto.a2a.agents import ConformanceAgent, TravelDeskAgent
from agentproto.a2a.types import AgentCapabilities, AgentCardSignature
from agentproto.security import (
    CanonicalizationError,
    InvalidSignatureError,
    NoSignatureError,
    canonical_card_payload,
    canonicalize,
    sign_card,
    verify_card,
)


@pytest.fixture(scope="module")
def key():
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture
def card():
    return TravelDeskAgent().card("https://travel.example/a2a")


# --- JCS (RFC 8785) ---------------------------------------------------------------------------

@pytest.mark.parametrize("value, text", [
    ({"b": 1, "a": 2}, '{"a":2,"b":1}'),
    ({"\u20ac": 1, "\r": 2, "\U0001f600": 3, "\uffff": 4},  # UTF-16 code unit order
     '{"\\r":2,"€":1,"😀":3,"\uffff":4}'),
    ("é\u2028\u0001\"\\/", '"é\u2028\\u0001\\"\\\\/"'),
    ([1.0, 100.0, 1e21, 1e-7, 1e-6, 0.1, -0.0, 5e-324], '[1,100,1e+21,1e-7,0.000001,0.1,0,5e-324]'),
    (123456789012345680000.0, "123456789012345680000"),
    ([True, False, None, []], "[true,false,null,[]]"),
])
def test_jcs_vectors(value, text):
    assert canonicalize(value) == text


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), {1: "x"}, {"a": object()}])
def test_jcs_refuses_what_has_no_canonical_form(bad):
    with pytest.raises(CanonicalizationError):
        canonicalize(bad)


def test_jcs_agrees_with_the_sdk_on_random_doubles():
    sdk_jcs = pytest.importorskip("a2a.utils._jcs")
    import random
    import struct

    rng = random.Random(7)
    for _ in range(5000):
        x = struct.unpack("d", rng.randbytes(8))[0]
        if x == x and abs(x) != float("inf"):
            assert canonicalize(x) == sdk_jcs.canonicalize(x)


# --- the signed payload -----------------------------------------------------------------------

def test_the_payload_is_the_card_without_signatures_in_canonical_form(card, key):
    signed = sign_card(card, key, kid="k1")
    payload = canonical_card_payload(signed)
    assert payload == canonical_card_payload(card)
    parsed = json.loads(payload)
    assert "signatures" not in parsed and parsed["name"] == "Travel Desk"
    assert payload == canonicalize(parsed).encode()  # already canonical: sorted, no whitespace
    assert list(parsed) == sorted(parsed)


def test_an_explicit_false_is_part_of_the_payload_but_an_unset_flag_is_not(card):
    with_false = card.model_copy(update={"capabilities": AgentCapabilities(streaming=False)})
    unset = card.model_copy(update={"capabilities": AgentCapabilities()})
    assert b'"streaming":false' in canonical_card_payload(with_false)
    assert b"streaming" not in canonical_card_payload(unset)


# --- sign and verify --------------------------------------------------------------------------

def test_a_signed_card_verifies_with_the_issuers_public_key(card, key):
    signed = sign_card(card, key, kid="k1", jku="https://travel.example/jwks.json",
                       header={"note": "rotation 2026"})
    sig = signed.signatures[0]
    header = json.loads(base64.urlsafe_b64decode(sig.protected + "=="))
    assert header == {"alg": "ES256", "kid": "k1", "typ": "JOSE",
                      "jku": "https://travel.example/jwks.json"}
    assert verify_card(signed, {"k1": key.public_key()}) == sig
    assert signed.to_wire()["signatures"][0]["header"] == {"note": "rotation 2026"}


def test_a_forged_card_fails_verification(card, key):
    signed = sign_card(card, key, kid="k1")
    forged = signed.model_copy(update={"name": "Bank of Agents"})
    with pytest.raises(InvalidSignatureError, match="Signature verification failed"):
        verify_card(forged, {"k1": key.public_key()})


def test_a_card_signed_by_an_untrusted_key_fails(card):
    mallory = ec.generate_private_key(ec.SECP256R1())
    signed = sign_card(card, mallory, kid="k1")
    with pytest.raises(InvalidSignatureError):
        verify_card(signed, {"k1": ec.generate_private_key(ec.SECP256R1()).public_key()})
    with pytest.raises(InvalidSignatureError, match="not trusted"):
        verify_card(signed, {})


def test_an_unsigned_card_has_no_signature(card):
    with pytest.raises(NoSignatureError):
        verify_card(card, {})


def test_one_good_signature_is_enough_for_key_rotation(card, key):
    old = ec.generate_private_key(ec.SECP256R1())
    signed = sign_card(sign_card(card, old, kid="old"), key, kid="new")
    assert verify_card(signed, {"new": key.public_key()}).protected == \
        signed.signatures[1].protected


def test_algorithm_confusion_is_refused(card, key):
    hs = sign_card(card, "a-shared-secret-of-at-least-32-bytes!!", kid="k1", alg="HS256")
    with pytest.raises(InvalidSignatureError, match="alg value is not allowed"):
        verify_card(hs, {"k1": "a-shared-secret-of-at-least-32-bytes!!"})


def test_garbage_signatures_are_reported_not_crashed_on(card, key):
    junk = card.model_copy(update={"signatures": [
        AgentCardSignature(protected="!!!", signature="x"),
        AgentCardSignature(protected="eyJ4IjoxfQ", signature="x")]})
    with pytest.raises(InvalidSignatureError) as info:
        verify_card(junk, {"k1": key.public_key()})
    assert len(info.value.reasons) == 2


def test_eddsa_and_a_key_lookup_function_work_too():
    card = ConformanceAgent().card("https://sut.example/a2a")
    ed = ed25519.Ed25519PrivateKey.generate()
    signed = sign_card(card, ed, kid="ed", alg="EdDSA")
    seen = []

    def lookup(kid, jku):
        seen.append((kid, jku))
        return ed.public_key()

    verify_card(signed, lookup)
    assert seen == [("ed", None)]


# --- interop with a2a-sdk's signing utilities ---------------------------------------------------

@pytest.mark.interop
def test_the_sdk_verifies_our_signature_and_we_verify_the_sdks(card, key):
    signing = pytest.importorskip("a2a.utils.signing")
    from agentproto.a2a.sdk_bridge import from_sdk, to_sdk

    verify_with_sdk = signing.create_signature_verifier(lambda kid, jku: key.public_key(),
                                                        ["ES256"])
    verify_with_sdk(to_sdk(sign_card(card, key, kid="ours")))
    sdk_signer = signing.create_agent_card_signer(key, {"alg": "ES256", "kid": "sdk",
                                                        "typ": "JOSE"})
    theirs = from_sdk(sdk_signer(to_sdk(card)), type(card))
    assert verify_card(theirs, {"sdk": key.public_key()}).protected
