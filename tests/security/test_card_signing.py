"""Signed Agent Cards (A2A spec §8.4): the payload, signing, verification and its refusals."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from agentproto.a2a.agents import ConformanceAgent, TravelDeskAgent
from agentproto.a2a.types import AgentCapabilities, AgentCardSignature, AgentSkill
from agentproto.clock import FakeClock
from agentproto.security import (
    CardSignatureError,
    CardTampered,
    CardUnsigned,
    KeySet,
    SignatureInvalid,
    UnknownSigningKey,
    canonical_card_payload,
    canonicalize,
    sign_card,
    signature_header,
    teaching_key,
    verify_card,
)


@pytest.fixture(scope="module")
def key():
    return teaching_key("travel card")


@pytest.fixture
def card():
    return TravelDeskAgent().card("https://travel.example/a2a")


# --- the signed payload -----------------------------------------------------------------------


def test_the_payload_is_the_card_without_signatures_in_canonical_form(card, key):
    signed = sign_card(card, key, kid="k1")
    payload = canonical_card_payload(signed)
    assert payload == canonical_card_payload(card)
    parsed = json.loads(payload)
    assert "signatures" not in parsed and parsed["name"] == "Travel Desk"
    assert payload == canonicalize(parsed).encode()  # already canonical: sorted, no whitespace


def test_an_explicit_false_is_part_of_the_payload_but_an_unset_flag_is_not(card):
    # §5.7 field presence: an optional set to its default is kept; an unset one is omitted.
    with_false = card.model_copy(update={"capabilities": AgentCapabilities(streaming=False)})
    unset = card.model_copy(update={"capabilities": AgentCapabilities()})
    assert b'"streaming":false' in canonical_card_payload(with_false)
    assert b"streaming" not in canonical_card_payload(unset)


def test_the_spec_example_of_default_value_removal():
    # §8.4.1: REQUIRED "" and [] stay, explicit optional false stays, empty extensions go.
    from agentproto.a2a.types import AgentCard

    card = AgentCard.from_wire(
        {
            "name": "Example Agent",
            "description": "",
            "version": "1",
            "capabilities": {"streaming": False, "pushNotifications": False, "extensions": []},
            "skills": [],
        }
    )
    payload = canonical_card_payload(card).decode()
    assert '"capabilities":{"pushNotifications":false,"streaming":false}' in payload
    assert '"description":""' in payload and '"skills":[]' in payload
    assert "extensions" not in payload


# --- sign and verify --------------------------------------------------------------------------


def test_a_signed_card_verifies_with_the_issuers_public_key(card, key):
    signed = sign_card(
        card, key, kid="k1", jku="https://travel.example/jwks.json", header={"note": "rotation 2026"}
    )
    sig = signed.signatures[0]
    header = json.loads(base64.urlsafe_b64decode(sig.protected + "=="))
    assert header == {"alg": "ES256", "kid": "k1", "typ": "JOSE", "jku": "https://travel.example/jwks.json"}
    assert signature_header(sig) == header
    assert verify_card(signed, {"k1": key.public_key()}) == sig
    assert signed.to_wire()["signatures"][0]["header"] == {"note": "rotation 2026"}


def test_wire_dicts_are_signed_and_verified_like_models(card, key):
    signed = sign_card(card.to_wire(), key, kid="k1")
    assert isinstance(signed, dict) and signed["signatures"][0]["protected"]
    assert verify_card(signed, {"k1": key.public_key()}).protected == signed["signatures"][0]["protected"]
    signed["skills"][0]["description"] = "Books whatever the caller wants"
    with pytest.raises(CardTampered):
        verify_card(signed, {"k1": key.public_key()})


@pytest.mark.parametrize(
    "change",
    [
        {"name": "Bank of Agents"},
        {"version": "9.9.9"},
        {"capabilities": AgentCapabilities(streaming=True)},  # dropped pushNotifications
    ],
)
def test_a_card_changed_after_signing_is_tampered(card, key, change):
    signed = sign_card(card, key, kid="k1")
    with pytest.raises(CardTampered, match="does not match the card's canonical bytes"):
        verify_card(signed.model_copy(update=change), {"k1": key.public_key()})


def test_an_interface_url_swapped_for_the_attackers_is_tampered(card, key):
    # The endpoint is inside the signed bytes: a copied card cannot redirect traffic.
    signed = sign_card(card, key, kid="k1")
    evil = signed.to_wire()
    evil["supportedInterfaces"][0]["url"] = "https://evil.example/a2a"
    with pytest.raises(CardTampered):
        verify_card(evil, {"k1": key.public_key()})


def test_a_card_re_signed_by_a_stranger_under_the_trusted_kid_is_tampered(card, key):
    mallory = ec.generate_private_key(ec.SECP256R1())
    forged = sign_card(card.model_copy(update={"name": "Bank of Agents"}), mallory, kid="k1")
    with pytest.raises(CardTampered):
        verify_card(forged, {"k1": key.public_key()})


def test_a_card_signed_under_an_unknown_kid_names_an_unknown_key(card):
    mallory = ec.generate_private_key(ec.SECP256R1())
    forged = sign_card(card, mallory, kid="mallory-1")
    with pytest.raises(UnknownSigningKey, match="'mallory-1' is not in the trusted key set"):
        verify_card(forged, {"k1": teaching_key("travel card").public_key()})


def test_an_unsigned_card_is_refused(card):
    with pytest.raises(CardUnsigned):
        verify_card(card, {})


def test_one_good_signature_is_enough_for_key_rotation(card, key):
    old = teaching_key("old travel card")
    signed = sign_card(sign_card(card, old, kid="old"), key, kid="new")
    assert verify_card(signed, {"new": key.public_key()}).protected == signed.signatures[1].protected


def test_a_revoked_or_expired_key_is_not_used_for_verification(card, key):
    # §8.4.3: "Expired or revoked keys MUST NOT be used for verification".
    clock = FakeClock()
    signed = sign_card(card, key, kid="k1")
    keys = KeySet()
    keys.add("k1", key.public_key(), not_after_ms=clock.now_ms() + 1000)
    assert verify_card(signed, keys, clock=clock)
    clock.advance(1000)
    with pytest.raises(UnknownSigningKey, match="has expired"):
        verify_card(signed, keys, clock=clock)
    keys.add("k1", key.public_key())
    keys.revoke("k1")
    with pytest.raises(UnknownSigningKey, match="is revoked"):
        verify_card(signed, keys, clock=clock)


def test_hmac_signatures_are_refused_even_with_the_right_secret(card):
    secret = "a-shared-secret-of-at-least-32-bytes!!"
    hs = sign_card(card, secret, kid="k1", alg="HS256")
    with pytest.raises(SignatureInvalid, match="alg 'HS256' is not allowed"):
        verify_card(hs, {"k1": secret})


def test_alg_none_is_refused(card, key):
    signed = sign_card(card, key, kid="k1")
    none_header = base64.urlsafe_b64encode(b'{"alg":"none","kid":"k1"}').rstrip(b"=").decode()
    stripped = signed.model_copy(
        update={"signatures": [AgentCardSignature(protected=none_header, signature="")]}
    )
    with pytest.raises(SignatureInvalid, match="alg 'none' is not allowed"):
        verify_card(stripped, {"k1": key.public_key()})


def test_a_key_set_pins_the_algorithm(card):
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    signed = sign_card(card, rsa_key, kid="r1", alg="PS256")
    keys = KeySet()
    keys.add("r1", rsa_key.public_key())  # pinned to RS256, its natural algorithm
    with pytest.raises(SignatureInvalid, match="pinned to RS256"):
        verify_card(signed, keys)
    keys.add("r1", rsa_key.public_key(), alg="PS256")
    assert verify_card(signed, keys)


def test_a_key_set_ignores_the_jku_the_card_names(card, key):
    # A jku is the card's own claim; a KeySet answers from the verifier's trust store only.
    mallory = ec.generate_private_key(ec.SECP256R1())
    forged = sign_card(card, mallory, kid="k1", jku="https://evil.example/jwks.json")
    keys = KeySet()
    keys.add("k1", key.public_key())
    with pytest.raises(CardTampered):
        verify_card(forged, keys)


def test_a_lookup_function_receives_kid_and_jku():
    card = ConformanceAgent().card("https://sut.example/a2a")
    ed = ed25519.Ed25519PrivateKey.generate()
    signed = sign_card(card, ed, kid="ed", jku="https://sut.example/jwks.json")
    seen = []

    def lookup(kid, jku):
        seen.append((kid, jku))
        if jku != "https://sut.example/jwks.json":
            raise KeyError(kid)
        return ed.public_key()

    verify_card(signed, lookup)
    assert seen == [("ed", "https://sut.example/jwks.json")]


def test_garbage_signatures_are_reported_not_crashed_on(card, key):
    junk = card.model_copy(
        update={
            "signatures": [
                AgentCardSignature(protected="!!!", signature="x"),
                AgentCardSignature(protected="eyJ4IjoxfQ", signature="x"),
            ]
        }
    )
    with pytest.raises(SignatureInvalid) as info:
        verify_card(junk, {"k1": key.public_key()})
    assert len(info.value.reasons) == 2
    assert type(info.value) is SignatureInvalid


def test_every_refusal_is_a_card_signature_error(card, key):
    for bad in (card, sign_card(card, ec.generate_private_key(ec.SECP256R1()), kid="x")):
        with pytest.raises(CardSignatureError):
            verify_card(bad, {"k1": key.public_key()})


def test_a_skill_added_after_signing_is_tampered(card, key):
    signed = sign_card(card, key, kid="k1")
    extra = AgentSkill(id="transfer", name="Transfer money", description="Moves funds", tags=["bank"])
    with pytest.raises(CardTampered):
        verify_card(signed.model_copy(update={"skills": [*signed.skills, extra]}), {"k1": key.public_key()})


# --- interop with a2a-sdk's signing utilities ---------------------------------------------------


@pytest.mark.interop
def test_the_sdk_verifies_our_signature_and_we_verify_the_sdks(card, key):
    signing = pytest.importorskip("a2a.utils.signing")
    from agentproto.a2a.sdk_bridge import from_sdk, to_sdk

    verify_with_sdk = signing.create_signature_verifier(lambda kid, jku: key.public_key(), ["ES256"])
    verify_with_sdk(to_sdk(sign_card(card, key, kid="ours")))
    sdk_signer = signing.create_agent_card_signer(key, {"alg": "ES256", "kid": "sdk", "typ": "JOSE"})
    theirs = from_sdk(sdk_signer(to_sdk(card)), type(card))
    assert verify_card(theirs, {"sdk": key.public_key()}).protected


@pytest.mark.interop
def test_the_sdk_also_rejects_a_card_we_consider_tampered(card, key):
    signing = pytest.importorskip("a2a.utils.signing")
    from agentproto.a2a.sdk_bridge import to_sdk

    tampered = sign_card(card, key, kid="ours").model_copy(update={"name": "Bank of Agents"})
    verify_with_sdk = signing.create_signature_verifier(lambda kid, jku: key.public_key(), ["ES256"])
    with pytest.raises(signing.InvalidSignaturesError):
        verify_with_sdk(to_sdk(tampered))


def test_rs256_cards_sign_and_verify_and_the_sdk_agrees(card):
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    signed = sign_card(card, rsa_key, kid="rsa-1")
    assert signature_header(signed.signatures[0])["alg"] == "RS256"
    keys = KeySet()
    keys.add("rsa-1", rsa_key.public_key())
    assert verify_card(signed, keys)
    signing = pytest.importorskip("a2a.utils.signing")
    from agentproto.a2a.sdk_bridge import to_sdk

    signing.create_signature_verifier(lambda kid, jku: rsa_key.public_key(), ["RS256"])(to_sdk(signed))


def test_the_first_releases_names_still_import_and_catch():
    from agentproto.security import (
        DEFAULT_ALGORITHMS,
        InvalidSignatureError,
        NoSignatureError,
        SignatureError,
    )

    assert (InvalidSignatureError, NoSignatureError, SignatureError) == (
        SignatureInvalid,
        CardUnsigned,
        CardSignatureError,
    )
    assert issubclass(CardTampered, InvalidSignatureError)
    assert "ES256" in DEFAULT_ALGORITHMS
