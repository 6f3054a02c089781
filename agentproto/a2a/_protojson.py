"""ProtoJSON dict ⇄ protobuf message for the gRPC binding, without ``json_format``'s cost.

``google.protobuf.json_format`` (``ParseDict``, ``MessageToDict``) is pure Python and checks
every value against every rule of the ProtoJSON mapping; on the gRPC binding it was a fifth
of a ``SendMessage``. The shapes A2A messages carry are few: strings, booleans, 32-bit
integers, enum names, nested messages, repeated fields and string-keyed maps. :func:`parse`
and :func:`dump` convert those directly, field by field, with the descriptor's ``json_name``
and enum names (the very names ``json_format`` uses). The well-known types (``Timestamp``,
``Struct``, ``Value`` …) are left to ``json_format`` itself, one small sub-message at a time;
anything else this module does not handle (bytes, floats, 64-bit integers, ``null``, an
unknown enum value, a value of the wrong type) makes the *whole* message go through
``json_format``, so every answer and every error is exactly ``json_format``'s.

>>> from a2a.types import a2a_pb2 as pb
>>> dump(parse({"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}, pb.Message()))
{'messageId': 'm1', 'role': 'ROLE_USER', 'parts': [{'text': 'hi'}]}
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

__all__ = ["parse", "dump"]

_P = TypeVar("_P", bound=Message)
_STRING, _BOOL = FieldDescriptor.CPPTYPE_STRING, FieldDescriptor.CPPTYPE_BOOL
_ENUM, _MESSAGE = FieldDescriptor.CPPTYPE_ENUM, FieldDescriptor.CPPTYPE_MESSAGE
_INT32 = frozenset({FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_UINT32})


class _Slow(Exception):
    """A value outside the direct path: the whole message goes through ``json_format``."""


def parse(data: dict[str, Any], message: _P) -> _P:
    """``json_format.ParseDict(data, message, ignore_unknown_fields=True)``, faster."""
    try:
        _fill(message, data)
    except (_Slow, ValueError, TypeError, json_format.ParseError):
        message.Clear()
        json_format.ParseDict(data, message, ignore_unknown_fields=True)
    return message


def dump(message: Message) -> dict[str, Any]:
    """``json_format.MessageToDict(message)`` (camelCase names, enum names), faster."""
    try:
        return _dict(message)
    except _Slow:
        out: dict[str, Any] = json_format.MessageToDict(message, preserving_proto_field_name=False)
        return out


@functools.cache
def _fields(descriptor: Descriptor) -> dict[str, FieldDescriptor]:
    """A message's fields by ProtoJSON name, and by proto name (``ParseDict`` takes both)."""
    return {**{f.name: f for f in descriptor.fields}, **{f.json_name: f for f in descriptor.fields}}


@functools.cache
def _enum_numbers(enum: EnumDescriptor) -> dict[str, int]:
    # a value with options might carry a JSON name of its own: json_format decides those
    return {v.name: v.number for v in enum.values if not v.has_options}


@functools.cache
def _enum_names(enum: EnumDescriptor) -> dict[int, str]:
    return {number: name for name, number in _enum_numbers(enum).items()}


def _well_known(descriptor: Descriptor) -> bool:
    name: str = descriptor.full_name
    return name.startswith("google.protobuf.")


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and bool(field.message_type.GetOptions().map_entry)


# ------------------------------------------------------------------ dict → message


def _fill(message: Message, data: Any) -> None:
    if not isinstance(data, dict):
        raise _Slow
    fields = _fields(message.DESCRIPTOR)
    oneofs: set[str] = set()
    for key, value in data.items():
        field = fields.get(key)
        if field is None:  # unknown fields are ignored (spec §5.7)
            continue
        if value is None:
            raise _Slow
        if field.containing_oneof is not None:
            if field.containing_oneof.name in oneofs:
                raise _Slow  # json_format's error
            oneofs.add(field.containing_oneof.name)
        if _is_map(field):
            _fill_map(getattr(message, field.name), field, value)
        elif field.is_repeated:
            if not isinstance(value, list):
                raise _Slow
            items = getattr(message, field.name)
            if field.cpp_type == _MESSAGE:
                for item in value:
                    _fill_message(items.add(), item)
            else:
                items.extend([_scalar(field, item) for item in value])
        elif field.cpp_type == _MESSAGE:
            sub = getattr(message, field.name)
            sub.SetInParent()
            _fill_message(sub, value)
        else:
            setattr(message, field.name, _scalar(field, value))


def _fill_message(message: Message, value: Any) -> None:
    if _well_known(message.DESCRIPTOR):
        if value is None:
            raise _Slow
        json_format.ParseDict(value, message, ignore_unknown_fields=True)
    else:
        _fill(message, value)


def _fill_map(container: Any, field: FieldDescriptor, value: Any) -> None:
    key_field = field.message_type.fields_by_name["key"]
    value_field = field.message_type.fields_by_name["value"]
    if not isinstance(value, dict) or key_field.cpp_type != _STRING:
        raise _Slow
    for key, item in value.items():
        if item is None:
            raise _Slow
        if value_field.cpp_type == _MESSAGE:
            _fill_message(container[key], item)
        else:
            container[key] = _scalar(value_field, item)


def _scalar(field: FieldDescriptor, value: Any) -> Any:
    kind = field.cpp_type
    if kind == _STRING and field.type != FieldDescriptor.TYPE_BYTES and isinstance(value, str):
        return value
    if kind == _BOOL and isinstance(value, bool):
        return value
    if kind == _ENUM and isinstance(value, str) and value in _enum_numbers(field.enum_type):
        return _enum_numbers(field.enum_type)[value]
    if kind in _INT32 and isinstance(value, int) and not isinstance(value, bool):
        return value
    raise _Slow


# ------------------------------------------------------------------ message → dict


def _dict(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field, value in message.ListFields():
        if _is_map(field):
            v_field = field.message_type.fields_by_name["value"]
            if field.message_type.fields_by_name["key"].cpp_type != _STRING:
                raise _Slow
            out[field.json_name] = {k: _value(v_field, v) for k, v in value.items()}
        elif field.is_repeated:
            out[field.json_name] = [_value(field, v) for v in value]
        else:
            out[field.json_name] = _value(field, value)
    return out


def _value(field: FieldDescriptor, value: Any) -> Any:
    kind = field.cpp_type
    if kind == _MESSAGE:
        if _well_known(value.DESCRIPTOR):
            return json_format.MessageToDict(value, preserving_proto_field_name=False)
        return _dict(value)
    if (kind == _STRING and field.type != FieldDescriptor.TYPE_BYTES) or kind == _BOOL or kind in _INT32:
        return value
    if kind == _ENUM and value in _enum_names(field.enum_type):
        return _enum_names(field.enum_type)[value]
    raise _Slow
