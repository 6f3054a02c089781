"""The AG-UI event parser: compatibility boundary → enforcement → strict validation.

Reading one event follows the processing model (spec ``basic/processing``), run by
:class:`EventParser`:

1. **Compatibility boundary** (:mod:`agentproto.agui._compat`, spec ``basic/versioning``):
   retired ``THINKING_*`` events and tolerated ``null`` fields are translated, with warnings,
   *before* enforcement would treat them as unknown. It MUST see the stream first.
   **Middleware** (``middleware=``: a function of the decoded event, its index and the warning
   list, returning the event or ``None`` to drop it) runs next, before enforcement removes
   anything it exists to translate ("Where middleware sits"); the kit's client installs its era
   shims there.
2. **Enforcement** (:mod:`agentproto.agui._enforce`): an unknown event type is *dropped* with a
   warning; an unknown property or an unrecognised union member is *stripped* with a warning
   naming its JSON path.
3. **Validation** in pydantic's *strict* mode: a known field with a wrong type, a bad enum
   value, a missing required field, or a whole optional field sent as ``null`` is fatal,
   raising :class:`~agentproto.agui.errors.MalformedEventError` (``PatchError`` for JSON
   Patch structure) with a JSON Pointer and the reason. Nothing is coerced: ``"15"`` is not
   a timestamp.

A fast path validates conforming JSON in one call to pydantic-core; only input that fails it
(or contains a ``null`` token that might be an optional field sent as null) takes the slower
walk above, so well-behaved streams pay almost nothing for the diagnostics. With middleware
every event takes the walk: the middleware must see each one.

Indexes are the zero-based arrival numbers of the events (``index=0`` is the first event).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from agentproto.agui._compat import CompatibilityBoundary, version_warning
from agentproto.agui._enforce import REMOVE, Enforcer, escape_pointer, model_shape
from agentproto.agui.errors import DecodeError, MalformedEventError, PatchError, PipelineWarning
from agentproto.agui.events import (
    _CLASS_BY_NAME,
    BaseEvent,
    RunAgentInput,
    RunStartedEvent,
    _validate_json,
)

__all__ = [
    "ParsedEvent",
    "EventParser",
    "Middleware",
    "parse_event",
    "parse_run_agent_input",
    "enforce_outgoing_input",
]

#: A middleware stage (spec ``basic/processing``, "Where middleware sits"): the decoded event
#: after the compatibility boundary, its index and the warning list; returns the event to go on
#: to enforcement (the same dict, or a new one) or ``None`` to drop it, warning why.
Middleware = Callable[[dict[str, Any], "int | None", list[PipelineWarning]], "dict[str, Any] | None"]


@dataclass(slots=True)
class ParsedEvent:
    """What parsing one wire object produced: the event (``None`` if dropped) and warnings."""

    event: BaseEvent | None
    warnings: list[PipelineWarning] = field(default_factory=list)

    @property
    def dropped(self) -> bool:
        return self.event is None


def _pointer_from_loc(data: Any, loc: tuple[int | str, ...]) -> str:
    """Turn a pydantic error location into a JSON Pointer into *data*.

    Locations also name union branches (``'interrupt'``, ``'str'``); those are not part of
    the document and are skipped. The last element may name a field that is missing.
    """
    parts: list[str] = []
    cur = data
    last = len(loc) - 1
    for i, item in enumerate(loc):
        if isinstance(cur, dict) and isinstance(item, str) and item in cur:
            parts.append(escape_pointer(item))
            cur = cur[item]
        elif isinstance(cur, list) and isinstance(item, int) and 0 <= item < len(cur):
            parts.append(str(item))
            cur = cur[item]
        elif i == last and isinstance(cur, dict) and isinstance(item, str):
            parts.append(escape_pointer(item))  # a missing field: name it
    return "".join("/" + p for p in parts)


#: pydantic error type → the JSON type the schema expected, in zod's vocabulary (the reference
#: TypeScript client validates with zod 3, whose type errors read "Expected object, received
#: array").
_EXPECTED_TYPE: dict[str, str] = {
    "string_type": "string",
    "int_type": "integer",
    "int_from_float": "integer",
    "float_type": "number",
    "bool_type": "boolean",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "list_type": "array",
    "tuple_type": "array",
    "none_required": "null",
}
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def _json_type(value: Any) -> str:
    """The JSON type of a decoded value, named as zod names it (``array``, ``null``, …)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _received(value: Any, expected: str) -> str:
    # zod's own refinement: a non-integral number where an integer belongs is a "float".
    if expected == "integer" and isinstance(value, float) and not value.is_integer():
        return "float"
    return _json_type(value)


def _options(listed: Any) -> str:
    """pydantic's ``"'a', 'b' or 'c'"`` as zod's ``'a' | 'b' | 'c'``."""
    text = str(listed)
    found = _QUOTED.findall(text)
    return " | ".join(f"'{x}'" for x in found) if found else text


def _describe(err: ErrorDetails, also_expected: list[str] | None = None) -> str:
    """The schema's complaint in the reference client's (zod 3) words.

    ``Required`` for a missing field; ``Expected <type>, received <type>`` for a value of the
    wrong JSON type (``also_expected``: the other types a union at the same place accepts);
    ``Invalid literal value, expected "x"`` / ``Invalid enum value. Expected 'a' | 'b',
    received 'c'`` for a closed set of strings; ``Array must contain at least 1 element(s)``
    for a list that is too short. Anything else keeps pydantic's sentence and shows the value.
    """
    kind = err.get("type", "")
    value = err.get("input")
    if kind == "missing":
        return "Required"
    expected = _EXPECTED_TYPE.get(kind)
    if expected is not None:
        wanted = " | ".join(dict.fromkeys([expected, *(also_expected or ())]))
        return f"Expected {wanted}, received {_received(value, expected)}"
    ctx = err.get("ctx") or {}
    if kind in ("literal_error", "enum"):
        found = _QUOTED.findall(str(ctx.get("expected", "")))
        if len(found) == 1:
            return f"Invalid literal value, expected {json.dumps(found[0])}"
        options = _options(ctx.get("expected", ""))
        if isinstance(value, str):
            return f"Invalid enum value. Expected {options}, received '{value[:60]}'"
        return f"Expected {options}, received {_json_type(value)}"
    if kind == "union_tag_invalid":
        return (
            f"Invalid discriminator value. Expected {_options(ctx.get('expected_tags', ''))}, "
            f"received {json.dumps(ctx.get('tag'))[:60]}"
        )
    if kind == "too_short" and isinstance(value, list):
        return f"Array must contain at least {ctx.get('min_length')} element(s)"
    shown = json.dumps(value)[:60] if _jsonable(value) else repr(value)[:60]
    return f"{err.get('msg', 'invalid value')} (got {shown})"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def _malformed(exc: ValidationError, data: Any, index: int | None, type_name: str) -> MalformedEventError:
    errors = exc.errors(include_url=False)
    # Prefer the most specific error: the one with the longest location.
    err = max(errors, key=lambda e: len(e.get("loc", ())))
    path = _pointer_from_loc(data, tuple(err.get("loc", ())))
    # A union of types (``content``: a string or a list of parts) fails once per branch at
    # the same place: name every type it would have taken, not just the last branch tried.
    also = [
        _EXPECTED_TYPE[e["type"]]
        for e in errors
        if e is not err
        and e["type"] in _EXPECTED_TYPE
        and _pointer_from_loc(data, tuple(e.get("loc", ()))) == path
    ]
    reason = _describe(err, also)
    rule = "schema.missing-field" if err.get("type") == "missing" else "schema.invalid-value"
    patchy = (type_name == "STATE_DELTA" and (path == "/delta" or path.startswith("/delta/"))) or (
        type_name == "ACTIVITY_DELTA" and (path == "/patch" or path.startswith("/patch/"))
    )
    if patchy:
        return PatchError(
            f"malformed JSON Patch in {type_name} at {path}: {reason}",
            path=path,
            reason=reason,
            index=index,
            event_type=type_name,
        )
    return _refusal(type_name, path, reason, rule, index, event_type=type_name)


def _refusal(
    what: str, path: str, reason: str, rule: str, index: int | None, *, event_type: str | None = None
) -> MalformedEventError:
    """The :class:`MalformedEventError` for ``what`` (an event type, ``event``, ``RunAgentInput``)
    refused at ``path``: one message form for every refusal of the schema."""
    return MalformedEventError(
        f"malformed {what} at {path or '/'}: {reason}",
        path=path,
        reason=reason,
        rule=rule,
        index=index,
        event_type=event_type,
    )


class EventParser:
    """Parses a stream's events one at a time (compatibility → enforcement → strict validation).

    Stateful only because the compatibility boundary is: retired ``THINKING_*`` events name
    no ids, so the parser remembers the span and message it minted. Use one parser per stream.
    """

    def __init__(self, *, ids: Callable[[], str] | None = None, middleware: Middleware | None = None) -> None:
        self.boundary = CompatibilityBoundary(ids)
        self.middleware = middleware

    def fast(self, obj: str | bytes | bytearray) -> BaseEvent | None:
        """The fast path: one pydantic-core call for conforming JSON text, else ``None``.

        Succeeds only when the text validates strictly as it stands — no unknown field, no
        unknown type, nothing to translate — so there is nothing to warn about. Text with a
        ``null`` token takes the slow path, because a null in an optional ``Any`` field
        (``result``, ``rawEvent``) validates but must not pass silently.
        """
        if self.middleware is not None or ("null" if type(obj) is str else b"null") in obj:  # type: ignore[operator]
            return None
        try:
            # Aliases only: the models also accept Python names, but JSON must use the wire
            # spelling (by_alias is already on in the models' config).
            event: BaseEvent = _validate_json(obj, strict=True, by_name=False)
        except ValidationError:
            return None
        if type(event) is RunStartedEvent:  # class checks: Enum member access is slow
            self.boundary.new_run()
            if event.protocol_version is not None:
                return None  # let the slow path judge the version declaration
        return event

    def parse(
        self, obj: dict[str, Any] | str | bytes | bytearray, *, index: int | None = None
    ) -> ParsedEvent:
        """Parse one event given as JSON text/bytes or as an already-decoded dict."""
        if isinstance(obj, (bytes, bytearray, str)):
            event = self.fast(obj)
            if event is not None:
                return ParsedEvent(event, [])
            try:
                data = json.loads(obj)
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                raise DecodeError(
                    f"event is not valid JSON: {exc}", rule="decode.json", index=index
                ) from None
        else:
            data = obj
        return self.parse_data(data, index=index)

    def parse_data(self, data: Any, *, index: int | None = None) -> ParsedEvent:
        """The slow path: decoded JSON data through compatibility, enforcement, validation."""
        if not isinstance(data, dict):
            reason = f"Expected object, received {_json_type(data)}"
            raise _refusal("event", "", reason, "schema.not-an-object", index)
        warnings: list[PipelineWarning] = []
        data = self.boundary.translate(data, index, warnings)
        if self.middleware is not None:
            moved = self.middleware(data, index, warnings)
            if moved is None:  # dropped by the middleware, which said why in ``warnings``
                return ParsedEvent(None, warnings)
            data = moved
        kind = data.get("type")
        if "type" not in data:
            raise _refusal("event", "/type", "Required", "schema.missing-field", index)
        if not isinstance(kind, str):
            reason = f"Expected string, received {_json_type(kind)}"
            raise _refusal("event", "/type", reason, "schema.invalid-value", index)
        cls = _CLASS_BY_NAME.get(kind)
        if cls is None:
            warnings.append(
                PipelineWarning(
                    index,
                    "/type",
                    f"unknown event type {kind!r} dropped (spec basic/processing: an unrecognised "
                    f"event MUST NOT abort the run)",
                )
            )
            return ParsedEvent(None, warnings)
        enforcer = Enforcer(index, kind)
        try:
            stripped = enforcer.model(data, model_shape(cls), "")
        except MalformedEventError as refused:
            refused.warnings = warnings + enforcer.warnings
            raise
        warnings.extend(enforcer.warnings)
        if stripped is REMOVE:
            warnings.append(
                PipelineWarning(index, "", f"{kind} dropped: a required field held an unrecognised member")
            )
            return ParsedEvent(None, warnings)
        try:
            event = cls.model_validate(stripped, strict=True, by_alias=True, by_name=False)
        except ValidationError as exc:
            malformed = _malformed(exc, stripped, index, kind)
            malformed.warnings = warnings  # what was stripped on the way still deserves a mention
            raise malformed from None
        parsed = self._checked(event, index)
        parsed.warnings[:0] = warnings
        return parsed

    @staticmethod
    def _checked(event: BaseEvent, index: int | None) -> ParsedEvent:
        warnings: list[PipelineWarning] = []
        if type(event) is RunStartedEvent and event.protocol_version is not None:
            w = version_warning(event.protocol_version, index)
            if w is not None:
                warnings.append(w)
        return ParsedEvent(event, warnings)


def parse_event(obj: dict[str, Any] | str | bytes | bytearray, *, index: int | None = None) -> ParsedEvent:
    """Parse one event (spec ``basic/processing``). For a whole stream use :class:`EventParser`.

    Returns a :class:`ParsedEvent` whose ``event`` is ``None`` when the event was dropped
    (unknown type). Raises :class:`MalformedEventError` (or :class:`PatchError`) for a
    malformed known value, :class:`DecodeError` for text that is not JSON.
    """
    return EventParser().parse(obj, index=index)


def parse_run_agent_input(
    obj: dict[str, Any] | str | bytes | bytearray,
) -> tuple[RunAgentInput, list[PipelineWarning]]:
    """Parse a ``RunAgentInput`` under the same processing model as events.

    Spec ``basic/processing`` ("Outgoing material"): a producer receiving a run input applies
    the same asymmetry as a consumer reading events — unrecognised material is stripped with a
    warning, a malformed known field is fatal (:class:`MalformedEventError`). Retired shapes
    are translated first (:class:`~agentproto.agui._compat.CompatibilityBoundary`).
    """
    if isinstance(obj, (bytes, bytearray, str)):
        try:
            obj = json.loads(obj)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise DecodeError(f"run input is not valid JSON: {exc}", rule="decode.json") from None
    warnings: list[PipelineWarning] = []
    if isinstance(obj, dict):
        obj = CompatibilityBoundary().translate_input(obj, "", None, warnings)
    value, _, stripped_warnings = _enforce_run_input(obj)
    return value, warnings + stripped_warnings


def enforce_outgoing_input(obj: Mapping[str, Any]) -> tuple[dict[str, Any], list[PipelineWarning]]:
    """The consumer's side of "Outgoing material" (spec ``basic/processing``): "Immediately
    before transmission, a consumer MUST remove unrecognised material from the run input,
    SHOULD warn about what it removed, and MUST treat a malformed known field as fatal before
    anything is sent." Returns the input as it may be sent (a new dict) and the warnings;
    raises :class:`MalformedEventError` for a malformed known field."""
    _, stripped, warnings = _enforce_run_input(dict(obj))
    return stripped, warnings


def _enforce_run_input(obj: Any) -> tuple[RunAgentInput, dict[str, Any], list[PipelineWarning]]:
    """Strip unrecognised material (with warnings), then validate what is left: the model, the
    stripped dict (the input minus what was removed, otherwise untouched) and the warnings."""
    if not isinstance(obj, dict):
        reason = f"Expected object, received {_json_type(obj)}"
        raise _refusal("RunAgentInput", "", reason, "schema.not-an-object", None)
    enforcer = Enforcer(None, "RunAgentInput")
    stripped = enforcer.model(obj, model_shape(RunAgentInput), "")
    warnings = list(enforcer.warnings)
    try:
        value = RunAgentInput.model_validate(stripped, strict=True, by_alias=True, by_name=False)
    except ValidationError as exc:
        error = _malformed(exc, stripped, None, "RunAgentInput")
        error.warnings = warnings
        if warnings:  # e.g. `thread_id` stripped, then `threadId` missing: say why
            notes = "; ".join(f"{w.path}: {w.message}" for w in warnings[:3])
            error = type(error)(
                f"{error.message} (also: {notes})", path=error.path, reason=error.reason, rule=error.rule
            )
            error.warnings = warnings
        raise error from None
    return value, stripped, warnings
