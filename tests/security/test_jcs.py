"""RFC 8785 (JSON Canonicalization Scheme): the vectors of the RFC itself, then edge cases."""

from __future__ import annotations

import json
import random
import struct

import pytest

from agentproto.security import CanonicalizationError, canonical_bytes, canonicalize

# RFC 8785 Appendix B: IEEE 754 bit patterns and their ECMAScript serialisation.
APPENDIX_B = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),  # minus zero
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


@pytest.mark.parametrize("bits, text", APPENDIX_B)
def test_numbers_serialise_as_ecmascript_does(bits, text):
    assert canonicalize(struct.unpack(">d", bytes.fromhex(bits))[0]) == text


@pytest.mark.parametrize("bits", ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"])
def test_nan_and_infinity_have_no_canonical_form(bits):
    with pytest.raises(CanonicalizationError):
        canonicalize(struct.unpack(">d", bytes.fromhex(bits))[0])


def test_the_rfc_sample_document_canonicalises_to_the_published_bytes():
    # RFC 8785 §3.2.2: primitive data types.
    source = (
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}'
    )
    expected = (
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,'
        '1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )
    assert canonicalize(json.loads(source)) == expected


def test_object_members_are_sorted_by_utf16_code_units():
    # RFC 8785 §3.2.3: the emoji (surrogates D83D DE00) sorts before U+FB33.
    source = {
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet",
        "1": "One",
        "\U0001f600": "Emoji",
        "\u0080": "Control",
        "\u00f6": "o umlaut",
    }
    keys = list(json.loads(canonicalize(source)))
    assert keys == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]
    assert sorted(source) != keys  # code-point order would put U+FB33 before the emoji


@pytest.mark.parametrize(
    "value, text",
    [
        ({"b": 1, "a": 2}, '{"a":2,"b":1}'),
        ('é\u2028\u0001"\\/', '"é\u2028\\u0001\\"\\\\/"'),
        ([1.0, 100.0, 1e21, 1e-7, 1e-6, 0.1, -0.0], "[1,100,1e+21,1e-7,0.000001,0.1,0]"),
        ([True, False, None, [], {}], "[true,false,null,[],{}]"),
        (2**53, "9007199254740992"),
    ],
)
def test_small_vectors(value, text):
    assert canonicalize(value) == text


@pytest.mark.parametrize("bad", [{1: "x"}, {"a": object()}, 2**53 + 1, -(2**60)])
def test_values_without_a_canonical_form_are_refused(bad):
    with pytest.raises(CanonicalizationError):
        canonicalize(bad)


def test_a_lone_surrogate_cannot_be_encoded():
    with pytest.raises(CanonicalizationError):
        canonical_bytes({"x": "\ud800"})


def test_nesting_is_bounded():
    deep: list = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(CanonicalizationError, match="deeper"):
        canonicalize(deep)


@pytest.mark.interop
def test_jcs_agrees_with_the_sdk_on_random_doubles():
    sdk_jcs = pytest.importorskip("a2a.utils._jcs")
    rng = random.Random(7)
    for _ in range(3000):
        x = struct.unpack("d", rng.randbytes(8))[0]
        if x == x and abs(x) != float("inf"):
            assert canonicalize(x) == sdk_jcs.canonicalize(x)
