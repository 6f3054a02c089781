"""Bridges to the official ``a2a-sdk`` (1.3.0), for interop tests, benchmarks and comparisons.

The SDK is an optional dependency (``pip install -e .[interop]``); it is imported only when a
function here is called.

* :func:`to_sdk` / :func:`from_sdk` convert between our pydantic models and the SDK's protobuf
  messages through their common ProtoJSON form — the same bytes on the wire, so a successful
  round trip is evidence that both sides agree on every field name and enum value.

The SDK's *server*, running the SDK twin of our echo agent, is an adapter of its own:
:func:`agentproto.a2a._server_sdk.sdk_echo_app`. This module stays pure (pydantic and protobuf
messages, no I/O), like the rest of the A2A core.
"""

from __future__ import annotations

from typing import Any, TypeVar

from agentproto.a2a.types import ProtoModel

__all__ = ["to_sdk", "from_sdk", "sdk_class"]

M = TypeVar("M", bound=ProtoModel)


def sdk_class(model: type[ProtoModel] | ProtoModel) -> type:
    """The a2a-sdk protobuf class with the same name as one of our models."""
    from a2a.types import a2a_pb2

    cls = model if isinstance(model, type) else type(model)
    found: type = getattr(a2a_pb2, cls.__name__)
    return found


def to_sdk(model: ProtoModel) -> Any:
    """Our model → the SDK's protobuf message (strict: unknown field names raise)."""
    from google.protobuf.json_format import ParseDict

    return ParseDict(model.to_wire(), sdk_class(model)(), ignore_unknown_fields=False)


def from_sdk(message: Any, model: type[M]) -> M:
    """The SDK's protobuf message → our model."""
    from google.protobuf.json_format import MessageToDict

    return model.from_wire(MessageToDict(message))
