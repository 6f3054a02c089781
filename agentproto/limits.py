"""Input limits shared by the AG-UI and A2A servers, sans I/O.

One validation boundary per endpoint: :func:`loads` parses a request body and checks it against
:class:`Limits` before any model, store or agent sees it, so hostile input becomes a typed
:class:`LimitError` (which each adapter maps to its documented 4xx or JSON-RPC error) instead of
a ``RecursionError``, a serializer failure deep inside pydantic, or a ``UnicodeEncodeError`` in
SQLite. The same :func:`check` runs on whatever a store is asked to persist, so a record that
passed on the way in also loads on the way out.

==========================  =========  ==================================================
limit                       default    why
==========================  =========  ==================================================
``max_depth``               64         pydantic and ``json`` recurse; 64 is deep for data
``max_string_chars``        200_000    one message of a conversation, not a file upload
``max_int_digits``          19         int64 (``historyLength``, ``pageSize``, amounts)
``max_items``               10_000     elements of one array / members of one object
``max_parts``               64         parts in one A2A message (see :func:`check_parts`)
lone surrogates             refused    not encodable as UTF-8: SQLite and every peer fail
==========================  =========  ==================================================

>>> loads(b'{"a": [1, 2, {"b": "c"}]}')
{'a': [1, 2, {'b': 'c'}]}
>>> try:
...     loads(b'[' * 100 + b']' * 100)
... except LimitError as exc:
...     print(exc.kind)
depth
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from agentproto.errors import AgentProtoError

__all__ = [
    "MAX_BODY_BYTES",
    "ConnectionLimits",
    "Limits",
    "LimitError",
    "DEFAULT_LIMITS",
    "loads",
    "check",
    "check_parts",
    "has_lone_surrogate",
]

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Limits:
    """What one request body may contain (see the module table)."""

    max_depth: int = 64
    max_string_chars: int = 200_000
    max_int_digits: int = 19
    max_items: int = 10_000
    max_parts: int = 64


DEFAULT_LIMITS = Limits()

#: The request body budget of every binding: HTTP bodies (413 beyond it) and gRPC messages
#: (``grpc.max_receive_message_length``, RESOURCE_EXHAUSTED beyond it).
MAX_BODY_BYTES = 1_000_000


@dataclass(frozen=True)
class ConnectionLimits:
    """What ``agentproto serve`` allows a connection (slowloris and idle connections; the
    table in :mod:`agentproto.demo.serve`): a request head within ``head_timeout_s`` (408),
    a body within ``body_timeout_s`` (408), an idle keep-alive for ``keep_alive_s``,
    ``max_per_peer`` connections from one address (429) and ``limit_concurrency`` in all
    (uvicorn's 503)."""

    head_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    keep_alive_s: int = 5
    max_per_peer: int = 256
    limit_concurrency: int = 1000


class LimitError(AgentProtoError, ValueError):
    """Input outside :class:`Limits`. ``kind`` is one of ``json``, ``depth``, ``string``,
    ``surrogate``, ``integer``, ``items``, ``parts``; ``path`` a JSONPath-like location."""

    def __init__(self, kind: str, message: str, path: str = "$") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.path = path


def has_lone_surrogate(text: str) -> bool:
    """True if ``text`` holds a UTF-16 surrogate code point (never valid in UTF-8)."""
    return _SURROGATE.search(text) is not None


def loads(body: bytes | bytearray | str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse JSON and :func:`check` it. Not JSON → ``LimitError("json", …)``."""
    digits = limits.max_int_digits

    def parse_int(text: str) -> int:
        if len(text.lstrip("-")) > digits:
            raise LimitError(
                "integer", f"integer with {len(text.lstrip('-'))} digits; at most {digits} are accepted"
            )
        return int(text)

    try:
        value = json.loads(body, parse_int=parse_int, parse_float=_finite, parse_constant=_not_json)
    except LimitError:
        raise
    except RecursionError:
        raise LimitError(
            "depth", f"JSON nested too deep; at most {limits.max_depth} levels are accepted"
        ) from None
    except (UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        raise LimitError("json", f"not valid JSON: {exc}") from None
    if not _fits(body, limits):
        check(value, limits)
    return value


def _finite(text: str) -> float:
    """A JSON number as a float, refused when no float holds it (``1e999``): RFC 8259 section 9
    lets a parser limit the range, and an infinity could not be written back as JSON."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _not_json(name: str) -> Any:
    """``NaN``, ``Infinity`` and ``-Infinity``, which Python's :mod:`json` accepts by default: RFC
    8259 section 6 does not permit them."""
    raise ValueError(f"{name} is not a JSON number (RFC 8259 section 6)")


def _fits(body: bytes | bytearray | str, limits: Limits) -> bool:
    """True if the text is too small to break a limit, whatever it holds: nesting needs an
    opening bracket per level, N members N-1 commas, a string no more characters than the
    text has, and a lone surrogate a ``\\u`` escape or a non-ASCII byte. (Brackets and commas
    inside strings only make the count larger.) Integers were checked while parsing."""
    text = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else bytes(body)
    return (
        len(text) <= limits.max_string_chars
        and text.count(b"{") + text.count(b"[") <= limits.max_depth
        and text.count(b",") < limits.max_items
        and text.isascii()
        and b"\\u" not in text
    )


#: Where a value sits, kept cheaply while walking: ``None`` is the root ``$``; a pair is the
#: parent's place and the key (``str``) or index (``int``). Rendered only for an error.
_Place = tuple[Any, str | int] | None


def check(value: Any, limits: Limits = DEFAULT_LIMITS) -> None:
    """Walk a parsed JSON value (iteratively: no recursion to exhaust) and raise
    :class:`LimitError` for the first thing outside ``limits``."""
    max_chars, max_depth, max_items = limits.max_string_chars, limits.max_depth, limits.max_items
    int_bound = 10**limits.max_int_digits
    stack: list[tuple[Any, int, _Place]] = [(value, 0, None)]
    while stack:
        item, depth, place = stack.pop()
        if isinstance(item, str):
            if len(item) > max_chars or not item.isascii():  # (ASCII has no surrogates)
                _check_str(item, place, limits)
        elif isinstance(item, bool) or item is None or isinstance(item, float):
            continue
        elif isinstance(item, int):
            if abs(item) >= int_bound:
                path = _path(place)
                raise LimitError(
                    "integer", f"integer at {_short(path)} has more than {limits.max_int_digits} digits", path
                )
        elif isinstance(item, dict | list):
            if depth >= max_depth or len(item) > max_items:
                _container_error(item, depth, _path(place), limits)
            if isinstance(item, dict):
                for k, v in item.items():
                    key = k if isinstance(k, str) else str(k)
                    if len(key) > max_chars or not key.isascii():
                        _check_str(key, (place, "<key>"), limits)
                    stack.append((v, depth + 1, (place, key)))
            else:
                stack.extend((v, depth + 1, (place, i)) for i, v in enumerate(item))


def _path(place: _Place) -> str:
    """A JSONPath-like rendering of a :data:`_Place`: ``$.params.message.parts[0]``."""
    steps = []
    while place is not None:
        place, step = place
        steps.append(f"[{step}]" if isinstance(step, int) else f".{step[:40]}")
    return "$" + "".join(reversed(steps))


def _container_error(item: dict[Any, Any] | list[Any], depth: int, path: str, limits: Limits) -> None:
    if depth >= limits.max_depth:
        raise LimitError(
            "depth",
            f"JSON nested too deep at {_short(path)}; at most {limits.max_depth} levels are accepted",
            path,
        )
    raise LimitError(
        "items",
        f"{_short(path)} has {len(item)} members; at most {limits.max_items} are accepted",
        path,
    )


def _short(path: str) -> str:
    return path if len(path) <= 80 else path[:60] + "…" + path[-16:]


def _check_str(text: str, place: _Place, limits: Limits) -> None:
    if len(text) > limits.max_string_chars:
        path = _path(place)
        raise LimitError(
            "string",
            f"string at {_short(path)} has {len(text)} characters; at most "
            f"{limits.max_string_chars} are accepted",
            path,
        )
    if has_lone_surrogate(text):
        path = _path(place)
        raise LimitError(
            "surrogate",
            f"string at {_short(path)} contains a lone UTF-16 surrogate (not encodable as UTF-8)",
            path,
        )


def check_parts(message: Any, limits: Limits = DEFAULT_LIMITS, path: str = "$") -> None:
    """An A2A ``Message`` (wire dict) has at most ``max_parts`` parts."""
    if isinstance(message, dict):
        parts = message.get("parts")
        if isinstance(parts, list) and len(parts) > limits.max_parts:
            raise LimitError(
                "parts",
                f"message has {len(parts)} parts; at most {limits.max_parts} are accepted",
                f"{path}.parts",
            )
