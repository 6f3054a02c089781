"""JSON Canonicalization Scheme (RFC 8785): one byte sequence per JSON value.

A signature covers bytes, not meaning; two programs that serialise the same Agent Card must
produce the same bytes or a valid signature fails to verify. JCS fixes every free choice:

* no whitespace;
* object members sorted by their names compared as UTF-16 code units (RFC 8785 §3.2.3);
* strings as in ECMAScript ``JSON.stringify``: only ``"``, ``\\``, and control characters are
  escaped — the common ones as ``\\b \\f \\n \\r \\t``, the rest as ``\\u00xx`` — and everything else,
  non-ASCII included, is written as itself in UTF-8;
* numbers as ECMAScript formats them (§3.2.2.3): shortest round-trip digits, integers without
  ``.0``, exponent form ``1e+21`` / ``1e-7`` outside [1e-6, 1e21); NaN and infinities are not JSON.
  JSON numbers are IEEE 754 doubles (RFC 8785 §3.2.2, I-JSON RFC 7493 §2.2), so a Python
  ``int`` beyond ±2**53 has no exact canonical form and is refused rather than rounded
  (send such values as strings) — as a2a-sdk does.

>>> canonicalize({"b": [1, 2.5, "x"], "a": {"é": True, "c": None}})
'{"a":{"c":null,"é":true},"b":[1,2.5,"x"]}'
>>> canonicalize(1e21), canonicalize(1e-7), canonicalize(-0.0), canonicalize(100.0)
('1e+21', '1e-7', '0', '100')
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from agentproto.errors import AgentProtoError

__all__ = ["canonicalize", "canonical_bytes", "CanonicalizationError"]

MAX_DEPTH = 100
#: Largest integer magnitude an IEEE 754 double holds exactly.
MAX_EXACT_INT = 2**53


class CanonicalizationError(AgentProtoError, ValueError):
    """The value has no canonical JSON form (NaN, infinity, a non-string key, too deep …)."""


def canonicalize(value: Any) -> str:
    """The RFC 8785 canonical JSON text of ``value`` (dicts, lists, str, int, float, bool, None)."""
    out: list[str] = []
    _write(value, out, 0)
    return "".join(out)


def canonical_bytes(value: Any) -> bytes:
    """:func:`canonicalize` encoded as UTF-8 — the bytes that get signed."""
    try:
        return canonicalize(value).encode("utf-8")
    except UnicodeEncodeError:
        raise CanonicalizationError("a string holds a lone surrogate (not valid Unicode)") from None


def _write(value: Any, out: list[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise CanonicalizationError(f"nesting deeper than {MAX_DEPTH}")
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, int):
        if abs(value) > MAX_EXACT_INT:
            raise CanonicalizationError(
                f"{value} is beyond ±2**53: no JSON number holds it exactly (send it as a string)"
            )
        out.append(str(value))
    elif isinstance(value, float):
        out.append(_number(value))
    elif isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise CanonicalizationError(f"object keys must be strings, not {key!r}")
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16)):
            if i:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _write(value[key], out, depth + 1)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out, depth + 1)
        out.append("]")
    else:
        raise CanonicalizationError(f"not a JSON value: {type(value).__name__}")


def _utf16(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _string(s: str) -> str:
    # json.dumps(ensure_ascii=False) escapes exactly what ECMAScript does, in lowercase hex.
    return json.dumps(s, ensure_ascii=False)


def _number(x: float) -> str:
    """ECMAScript Number::toString (ECMA-262 §6.1.6.1.20) on the shortest round-trip digits."""
    if math.isnan(x) or math.isinf(x):
        raise CanonicalizationError("NaN and Infinity have no JSON form")
    if x == 0:
        return "0"  # -0 too
    sign = "-" if x < 0 else ""
    _, digit_tuple, exp = Decimal(repr(abs(x))).as_tuple()
    assert isinstance(exp, int)  # a finite number: NaN and Infinity were refused above
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    exp += len(digit_tuple) - len(digits)  # value = digits × 10**exp
    k = len(digits)
    n = exp + k  # value = 0.digits × 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"
