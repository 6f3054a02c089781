"""UI intents: ``CUSTOM`` events asking the front end to draw a component, checked at its boundary.

AG-UI does not look inside ``CUSTOM`` values (spec 1.1 ``events/passthrough``): to the protocol
``{"component": "iframe", …}`` is opaque application data, and the spec says to treat it as
untrusted input. A front end that lets an agent choose what to draw therefore needs its own
gate. :func:`validate_ui_intent` is that gate: an allow-list of components, a JSON Schema for
each component's props, a size limit, and an unsafe-content guard that refuses markup, script
URLs and inline event handlers in *any* string of the props (keys included), whatever the
schema says — defence in depth behind the schemas.

Theory of operation
-------------------
Checks run in a fixed order and the first failure raises; each has its own error class in
the :class:`~agentproto.agui.errors.AGUIError` hierarchy with a stable ``rule``:

=====================================  ===============================  =====================
check                                  error                            ``rule``
=====================================  ===============================  =====================
encoded size ≤ ``max_bytes``           :class:`IntentTooLargeError`     ``intent.too-large``
envelope ``{component, props[, v]}``   :class:`IntentEnvelopeError`     ``intent.envelope``
component on the allow-list            :class:`UnknownComponentError`   ``intent.unknown-component``
no unsafe content in the props         :class:`UnsafeContentError`      ``intent.unsafe-content``
props match the component's schema     :class:`IntentPropsError`        ``intent.invalid-props``
=====================================  ===============================  =====================

The function is pure: no I/O, no clock. ``jsonschema`` is imported on first use, so importing
this module (or :mod:`agentproto.agui`) stays light.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agentproto.agui.errors import (
    IntentEnvelopeError,
    IntentPropsError,
    IntentTooLargeError,
    UIIntentError,
    UnknownComponentError,
    UnsafeContentError,
)

__all__ = [
    "UI_INTENT_EVENT",
    "UI_COMPONENTS",
    "UIIntent",
    "validate_ui_intent",
    "find_unsafe",
    "UIIntentError",
    "IntentTooLargeError",
    "IntentEnvelopeError",
    "UnknownComponentError",
    "UnsafeContentError",
    "IntentPropsError",
]

#: The ``CUSTOM`` event name this front end listens to for UI intents. Prefixed, as the spec
#: asks of application names (spec 1.1 ``events/passthrough``: unprefixed names are reserved).
UI_INTENT_EVENT = "agentproto.ui_intent"

#: The default allow-list: component name → JSON Schema of its props. Anything else is refused.
UI_COMPONENTS: dict[str, dict[str, Any]] = {
    "order_summary": {
        "type": "object",
        "properties": {
            "orderId": {"type": "string", "pattern": "^[A-Z][0-9]{4}$"},
            "highlight": {"enum": ["status", "total", "refund"]},
        },
        "required": ["orderId"],
        "additionalProperties": False,
    },
    "progress": {
        "type": "object",
        "properties": {
            "label": {"type": "string", "maxLength": 80},
            "percent": {"type": "number", "minimum": 0, "maximum": 100},
        },
        "required": ["label", "percent"],
        "additionalProperties": False,
    },
    "notice": {
        "type": "object",
        "properties": {
            "level": {"enum": ["info", "warning", "error"]},
            "text": {"type": "string", "maxLength": 200},
        },
        "required": ["level", "text"],
        "additionalProperties": False,
    },
    "link_button": {
        "type": "object",
        "properties": {
            "label": {"type": "string", "maxLength": 40},
            "href": {"type": "string", "pattern": r"^https://shop\.example\.com/[A-Za-z0-9/_\-]*$"},
        },
        "required": ["label", "href"],
        "additionalProperties": False,
    },
}

_ENVELOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "component": {"type": "string", "minLength": 1, "maxLength": 64},
        "props": {"type": "object"},
        "version": {"const": 1},
    },
    "required": ["component", "props"],
    "additionalProperties": False,
}

#: Content no prop may carry, whatever its schema says: markup that executes, script URLs,
#: inline event handlers.
_UNSAFE = re.compile(
    r"<\s*/?\s*(script|iframe|object|embed|style|link|meta)\b|javascript\s*:|vbscript\s*:"
    r"|data\s*:\s*text/html|\bon[a-z]+\s*=",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class UIIntent:
    """A validated intent: an allow-listed component and props that match its schema."""

    component: str
    props: dict[str, Any]


def _esc(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _strings(value: Any, path: str) -> Iterator[tuple[str, str, bool]]:
    """Every string inside ``value``: (JSON Pointer, text, is it a key?)."""
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, Mapping):
        for k, v in value.items():
            where = f"{path}/{_esc(str(k))}"
            if isinstance(k, str):
                yield where, k, True
            yield from _strings(v, where)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}/{i}")


def find_unsafe(props: Any) -> tuple[str, str] | None:
    """The first unsafe string in ``props``: ``(JSON Pointer relative to props, match)``.

    A key that is itself unsafe is reported at its own pointer with ``#key`` appended.
    ``None`` when every string (key or value, at any depth) is clean.
    """
    for where, text, is_key in _strings(props, ""):
        found = _UNSAFE.search(text)
        if found:
            return (where or "/") + ("#key" if is_key else ""), found.group(0)
    return None


def _best_error(schema: Mapping[str, Any], instance: Any) -> Any:
    from agentproto._schemas import jsonschema as load_jsonschema  # lazily: keeps agentproto.agui light

    jsonschema = load_jsonschema()

    validator = jsonschema.Draft202012Validator(schema)
    return jsonschema.exceptions.best_match(validator.iter_errors(instance))


def validate_ui_intent(
    event: Any,
    *,
    components: Mapping[str, Mapping[str, Any]] = UI_COMPONENTS,
    max_bytes: int = 2048,
    index: int | None = None,
) -> UIIntent:
    """Check one ``CUSTOM`` event's ``value`` as a UI intent; return it, or raise.

    ``event`` is a wire ``CUSTOM`` event (a dict with ``"type": "CUSTOM"``) or the bare value.
    Raises a :class:`~agentproto.agui.errors.UIIntentError` subclass, in the order of the
    table in the module docstring; ``error.path`` points into the value (``/props/text``).
    ``index`` (the event's zero-based position in its stream) is copied onto the error.
    """
    if max_bytes <= 0:
        raise ValueError("max_bytes must be positive")
    value: Any = event.get("value") if isinstance(event, Mapping) and event.get("type") == "CUSTOM" else event
    try:
        size = len(json.dumps(value, ensure_ascii=False).encode())
    except (TypeError, ValueError):
        raise IntentEnvelopeError("UI intent is not JSON data", index=index) from None
    if size > max_bytes:
        raise IntentTooLargeError(
            f"UI intent is {size} bytes; this front end accepts at most {max_bytes}", index=index
        )
    error = _best_error(_ENVELOPE_SCHEMA, value)
    if error is not None:
        where = "".join(f"/{_esc(str(p))}" for p in error.absolute_path)
        raise IntentEnvelopeError(
            f"UI intent must be {{component, props}}: {error.message}", path=where, index=index
        )
    component = value["component"]
    if component not in components:
        raise UnknownComponentError(
            f"Component {component!r} is not on the allow-list ({', '.join(sorted(components))})",
            path="/component",
            component=component,
            index=index,
        )
    unsafe = find_unsafe(value["props"])
    if unsafe is not None:
        where, found = unsafe
        raise UnsafeContentError(
            f"Prop {where} of {component!r} carries unsafe content {found!r}",
            path="/props" + where.removesuffix("#key"),
            component=component,
            index=index,
        )
    error = _best_error(components[component], value["props"])
    if error is not None:
        where = "/" + "/".join(str(p) for p in error.absolute_path)
        raise IntentPropsError(
            f"Props of {component!r} do not match its schema at {where}: {error.message}",
            path="/props" + "".join(f"/{_esc(str(p))}" for p in error.absolute_path),
            component=component,
            index=index,
        )
    return UIIntent(component, dict(value["props"]))
