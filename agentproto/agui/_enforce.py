"""Enforcement: strip what the schema does not name, with a warning, before strict validation.

Spec 1.1 ``basic/processing``: an unknown property, or an unrecognised member of a
discriminated union (an outcome, content part, source, message role, patch ``op`` or
reasoning ``subtype`` the schema does not name), is *stripped* with a warning naming its JSON
path (a text message ``role`` outside the four the schema names is such a member too).
Stripping follows the spec's placement rule: optional position → the field goes;
required position → the containing object goes; list element → the element goes. A whole
optional field sent as ``null`` is fatal (:class:`~agentproto.agui.errors.MalformedEventError`):
"absent means absent".

Theory of operation
-------------------
The walk is driven by the models' own field definitions: :func:`model_shape` compiles a model
class once into a small tree of shapes (fields with their aliases, discriminated unions by tag,
lists, closed string sets the spec treats as unions) and :class:`Enforcer` walks raw JSON
against it, copying a dict or list only when something in it is stripped. Used by
:mod:`agentproto.agui.parse` on the slow path only; conforming input never gets here.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Union

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from agentproto.agui.errors import MalformedEventError, PipelineWarning
from agentproto.agui.events import (
    ReasoningEncryptedValueEvent,
    TextMessageChunkEvent,
    TextMessageStartEvent,
)

__all__ = ["REMOVE", "Enforcer", "ModelShape", "model_shape", "escape_pointer"]

#: Sentinel a walk returns for "strip the value that contained this".
REMOVE: Any = object()


@dataclass(slots=True)
class _FieldSpec:
    shape: Any
    required: bool
    optional_none: bool  # declared Optional with default None: a null here is not data


@dataclass(slots=True)
class ModelShape:
    """A model class compiled for the walk: its fields by wire name."""

    cls: type[BaseModel]
    fields: dict[str, _FieldSpec]
    open: bool
    snake: dict[str, str]  # python name → alias, for "did you mean" hints


@dataclass(slots=True)
class _UnionShape:
    discriminator: str
    members: dict[str, Any]
    what: str


@dataclass(slots=True)
class _ListShape:
    item: Any


@dataclass(slots=True)
class _EnumMemberShape:
    """A closed string set the spec treats as an open union (``REASONING_ENCRYPTED_VALUE.subtype``)."""

    values: frozenset[str]
    what: str


_LEAF = None
_SHAPES: dict[type[BaseModel], ModelShape] = {}

# Closed string sets whose unknown values are unrecognised *members*, stripped rather than fatal:
# the reasoning subtype (spec events/reasoning, "Error Handling") and a text message's role —
# basic/processing names "a message `role`" as the example of a closed set whose unrecognised
# value the rule says to strip (its Note records the reference client's fatal check as a gap).
# Both roles here are optional (absent means "assistant"), so the field goes and the message
# stays. A role inside a message object is that union's discriminator (the element goes), and
# single-value literals (``TOOL_CALL_RESULT.role``, ``REASONING_MESSAGE_START.role``) stay fatal.
_ENUM_AS_UNION: dict[tuple[type[BaseModel], str], str] = {
    (ReasoningEncryptedValueEvent, "subtype"): "reasoning subtype",
    (TextMessageStartEvent, "role"): "text message role",
    (TextMessageChunkEvent, "role"): "text message role",
}


def _string_values(annotation: Any) -> frozenset[str]:
    """The strings of a ``Literal`` (inside ``Optional`` or ``X | None`` too)."""
    out: set[str] = set()
    for arg in typing.get_args(annotation):
        if isinstance(arg, str):
            out.add(arg)
        elif arg is not type(None):
            out |= _string_values(arg)
    return frozenset(out)


#: How a warning names a union, keyed by the union's first member.
_UNION_WHAT = {
    "RunFinishedSuccessOutcome": "outcome type",
    "SubagentFinishedSuccessOutcome": "subagent outcome type",
    "DataSource": "source type",
    "TextPart": "content part type",
    "AddOperation": "JSON Patch op",
    "DeveloperMessage": "message role",
}


def _shape_of(annotation: Any, info: FieldInfo | None = None) -> Any:
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        args = typing.get_args(annotation)
        disc = next(
            (
                m.discriminator
                for m in args[1:]
                if isinstance(m, FieldInfo) and isinstance(m.discriminator, str)
            ),
            None,
        )
        if disc:
            return _union_shape(args[0], disc)
        return _shape_of(args[0])
    if info is not None and isinstance(info.discriminator, str):
        return _union_shape(annotation, info.discriminator)
    if origin is Union or origin is types.UnionType:  # Optional[X] and X | None
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        shapes = [_shape_of(a) for a in members]
        shapes = [s for s in shapes if s is not _LEAF]
        if len(shapes) == 1:
            return shapes[0]
        return _LEAF
    if origin in (list, list):
        item = _shape_of(typing.get_args(annotation)[0])
        return _ListShape(item) if item is not _LEAF else _LEAF
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_shape(annotation)
    return _LEAF


def _union_shape(union: Any, disc: str) -> _UnionShape:
    members: dict[str, Any] = {}
    for cls in typing.get_args(union):
        default = cls.model_fields[disc].default
        members[default.value if isinstance(default, Enum) else default] = model_shape(cls)
    first = typing.get_args(union)[0]
    what = _UNION_WHAT.get(first.__name__, disc)
    return _UnionShape(disc, members, what)


def model_shape(cls: type[BaseModel]) -> ModelShape:
    """The compiled shape of ``cls`` (built once, then cached)."""
    shape = _SHAPES.get(cls)
    if shape is not None:
        return shape
    shape = ModelShape(cls, {}, cls.model_config.get("extra") == "allow", {})
    _SHAPES[cls] = shape  # register before recursing (messages nest tool calls, etc.)
    for name, info in cls.model_fields.items():
        alias = info.alias or name
        what = _ENUM_AS_UNION.get((cls, name))
        if what:
            sub: Any = _EnumMemberShape(_string_values(info.annotation), what)
        else:
            sub = _shape_of(info.annotation, info)
        required = info.is_required()
        shape.fields[alias] = _FieldSpec(sub, required, not required and info.default is None)
        shape.snake[name] = alias
    return shape


def escape_pointer(token: str | int) -> str:
    """One JSON Pointer reference token, escaped (RFC 6901: ``~`` → ``~0``, ``/`` → ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


class Enforcer:
    """Strips unrecognised material with warnings; raises on optional nulls (spec processing)."""

    __slots__ = ("warnings", "index", "event_type")

    def __init__(self, index: int | None, event_type: str) -> None:
        self.warnings: list[PipelineWarning] = []
        self.index = index
        self.event_type = event_type

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(PipelineWarning(self.index, path, message))

    def strip_member(self, path: str, what: str, name: str) -> Any:
        """Warn that the unrecognised union or enum member ``name`` is stripped; :data:`REMOVE`."""
        self.warn(
            path,
            f"unrecognised {what} {name!r} stripped "
            f"(spec basic/processing: unknown union members are removed)",
        )
        return REMOVE

    def walk(self, value: Any, shape: Any, path: str) -> Any:
        if shape is _LEAF:
            return value
        if isinstance(shape, ModelShape):
            return self.model(value, shape, path)
        if isinstance(shape, _UnionShape):
            if not isinstance(value, dict):
                return value  # wrong type: the validator reports it
            tag = value.get(shape.discriminator)
            if isinstance(tag, str) and tag not in shape.members:
                return self.strip_member(path, shape.what, tag)
            member = shape.members.get(tag) if isinstance(tag, str) else None
            return value if member is None else self.model(value, member, path)
        if isinstance(shape, _ListShape):
            if not isinstance(value, list):
                return value
            out = None
            for i, item in enumerate(value):
                new = self.walk(item, shape.item, f"{path}/{i}")
                if new is not item:
                    if out is None:
                        out = value[:i]
                    if new is not REMOVE:
                        out.append(new)
                elif out is not None:
                    out.append(item)
            return value if out is None else out
        if isinstance(shape, _EnumMemberShape):
            if isinstance(value, str) and value not in shape.values:
                return self.strip_member(path, shape.what, value)
            return value
        return value

    def model(self, value: Any, shape: ModelShape, path: str) -> Any:
        if not isinstance(value, dict):
            return value
        out = None
        fields = shape.fields
        for key, item in value.items():
            spec = fields.get(key)
            if spec is None:
                if shape.open:
                    continue
                hint = ""
                alias = shape.snake.get(key)
                if alias and alias != key:
                    hint = f" (the wire spelling is {alias!r}; snake_case is not)"
                self.warn(f"{path}/{escape_pointer(key)}", f"unknown field {key!r} stripped{hint}")
                if out is None:
                    out = dict(value)
                del out[key]
                continue
            if item is None:
                if spec.optional_none:
                    self.null_optional(f"{path}/{escape_pointer(key)}", key)
                continue
            if spec.shape is _LEAF:
                continue
            new = self.walk(item, spec.shape, f"{path}/{escape_pointer(key)}")
            if new is not item:
                if new is REMOVE:
                    if spec.required:
                        return REMOVE
                    if out is None:
                        out = dict(value)
                    del out[key]
                else:
                    if out is None:
                        out = dict(value)
                    out[key] = new
        return value if out is None else out

    def null_optional(self, path: str, key: str) -> None:
        if key == "subagentRunId" and path == "/subagentRunId":
            # The reference verifier's own wording for this mistake.
            msg = (
                f"Cannot send '{self.event_type}' with 'subagentRunId: null'. "
                f"The field is optional \u2014 omit it entirely."
            )
            raise MalformedEventError(
                msg,
                path=path,
                reason="null in an optional field",
                rule="schema.null-attribution",
                index=self.index,
                event_type=self.event_type,
            )
        raise MalformedEventError(
            f"{self.event_type} {path}: null is not a value for an optional field; omit the "
            f"field instead (spec basic/index, 'Absent means absent')",
            path=path,
            reason="null in an optional field",
            rule="schema.null-optional",
            index=self.index,
            event_type=self.event_type,
        )
