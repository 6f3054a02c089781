"""The AG-UI event model: 31 event types, their shared shapes, and a spec-faithful parser.

Wire format: protocol 1.0 exactly as the official Python SDK ``ag-ui-protocol`` 1.0.0 ships
it (``ag_ui.core``), plus the one field spec 1.1 adds (``encryptedValueType``). Class names,
field order and JSON output mirror ``ag_ui.core``, so an event dumped here is byte-identical
to the same event dumped there and each side parses the other's JSON.

Theory of operation
-------------------
*Models.* Every shape is a pydantic v2 model with snake_case attributes and camelCase wire
aliases; Python code may construct with either spelling. Serialising (:func:`dump_event`,
:func:`event_to_json`) omits optional fields that have no value — "absent means absent"
(spec ``basic/index``) — while a ``null`` that is *data* survives: ``STATE_SNAPSHOT.snapshot``,
``CUSTOM.value``, ``RAW.event`` and anything inside an open object (metadata, state, patch
values). Objects the protocol closes forbid unknown members; the few it leaves open (JSON
Patch operations, metadata, activity content, ``responseSchema``) keep them.

*Parsing* follows the processing model (spec ``basic/processing``): a pipeline of
compatibility boundary → enforcement → validation, run by :class:`EventParser`.

1. **Compatibility boundary** (spec ``basic/versioning``, "Retired shapes"). Retired 0.x
   shapes are translated, with a warning, *before* enforcement would treat them as unknown:
   ``THINKING_*`` events become their ``REASONING_*`` replacements (the retired events
   carried no ids, so ids are minted from an injected id factory — the warning says so),
   and the whole-optional ``null`` fields that 1.0 clients have always tolerated become
   absent fields. This mirrors the reference TypeScript client's ``CompatibilityBoundary``.
2. **Enforcement.** An unknown event type is *dropped* with a warning; an unknown property,
   or an unrecognised member of a discriminated union (an outcome, content part, source,
   message role, patch ``op`` or reasoning ``subtype`` the schema does not name), is
   *stripped* with a warning naming its JSON path. Stripping follows the spec's placement
   rule: optional position → the field goes; required position → the containing object
   goes; list element → the element goes.
3. **Validation** in pydantic's *strict* mode: a known field with a wrong type, a bad enum
   value, a missing required field, or a whole optional field sent as ``null`` is fatal,
   raising :class:`~agentproto.agui.errors.MalformedEventError` (``PatchError`` for JSON
   Patch structure) with a JSON Pointer and the reason. Nothing is coerced: ``"15"`` is not
   a timestamp.

A fast path validates conforming JSON in one call to pydantic-core; only input that fails it
(or contains a ``null`` token that might be an optional field sent as null) takes the slower
walk above, so well-behaved streams pay almost nothing for the diagnostics.
"""

from __future__ import annotations

import json
import re
import typing
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any, Callable, Dict, List, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_serializer
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo
from pydantic.functional_serializers import SerializerFunctionWrapHandler

from agentproto.agui.errors import DecodeError, MalformedEventError, PatchError, PipelineWarning
from agentproto.clock import IdFactory

__all__ = [
    "PROTOCOL_VERSION",
    "EventType",
    "BaseEvent",
    # lifecycle
    "RunStartedEvent", "RunFinishedEvent", "RunErrorEvent", "StepStartedEvent",
    "StepFinishedEvent",
    # text
    "TextMessageStartEvent", "TextMessageContentEvent", "TextMessageEndEvent",
    "TextMessageChunkEvent",
    # tools
    "ToolCallStartEvent", "ToolCallArgsEvent", "ToolCallEndEvent", "ToolCallChunkEvent",
    "ToolCallResultEvent",
    # state, messages, activity
    "StateSnapshotEvent", "StateDeltaEvent", "MessagesSnapshotEvent", "ActivitySnapshotEvent",
    "ActivityDeltaEvent",
    # reasoning
    "ReasoningStartEvent", "ReasoningEndEvent", "ReasoningMessageStartEvent",
    "ReasoningMessageContentEvent", "ReasoningMessageEndEvent", "ReasoningMessageChunkEvent",
    "ReasoningEncryptedValueEvent",
    # subagents, passthrough
    "SubagentStartedEvent", "SubagentFinishedEvent", "SubagentErrorEvent", "RawEvent",
    "CustomEvent",
    "Event",
    # shapes
    "TextMessageRole", "Role", "ReasoningEncryptedValueSubtype",
    "FunctionCall", "ToolCall",
    "DeveloperMessage", "SystemMessage", "AssistantMessage", "UserMessage", "ToolMessage",
    "ActivityMessage", "ReasoningMessage", "Message",
    "TextPart", "ImagePart", "AudioPart", "VideoPart", "DocumentPart", "ContentPart",
    "DataSource", "UrlSource", "FileSource", "PartSource",
    "AddOperation", "RemoveOperation", "ReplaceOperation", "MoveOperation", "CopyOperation",
    "TestOperation", "JsonPatchOperation", "JsonPatch",
    "Tool", "Context", "ResumeEntry", "RunAgentInput", "Interrupt", "TokenUsage",
    "RunFinishedSuccessOutcome", "RunFinishedInterruptOutcome", "RunFinishedCancelledOutcome",
    "RunFinishedOutcome", "SubagentFinishedSuccessOutcome", "SubagentFinishedSuspendedOutcome",
    "SubagentFinishedOutcome",
    # functions
    "EVENT_CLASSES", "ParsedEvent", "EventParser", "CompatibilityBoundary", "parse_event",
    "parse_run_agent_input", "dump_event", "event_to_json", "dump_model",
]

#: The protocol version this package speaks: the 1.0 wire format plus the 1.1 addition
#: (``encryptedValueType``). Producers declare it on ``RUN_STARTED.protocolVersion``
#: (spec ``basic/versioning``, "Version negotiation").
PROTOCOL_VERSION = "1.1"

_JS_SAFE_INT = 9007199254740991  # JSON numbers survive a round trip only up to 2**53 - 1


# --------------------------------------------------------------------------------------------
# Base models
# --------------------------------------------------------------------------------------------

_OMITTABLE_CACHE = "_agentproto_omittable"


class _Model(BaseModel):
    """Closed protocol object: camelCase on the wire, unknown members rejected, absent≠null."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
    )

    @classmethod
    def _omittable(cls) -> frozenset[str]:
        cached = cls.__dict__.get(_OMITTABLE_CACHE)
        if cached is None:
            keys: set[str] = set()
            for name, info in cls.model_fields.items():
                if not info.is_required() and info.default is None:
                    keys.add(name)
                    if info.alias:
                        keys.add(info.alias)
            cached = frozenset(keys)
            setattr(cls, _OMITTABLE_CACHE, cached)
        return cached

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler):
        # "Absent means absent" (spec basic/index): an optional field without a value is left
        # out. Required payloads and values inside open objects keep their nulls.
        data = handler(self)
        omittable = type(self)._omittable()
        return {k: v for k, v in data.items() if v is not None or k not in omittable}


class _OpenModel(_Model):
    """A protocol object the schema deliberately leaves open (JSON Patch operations)."""

    model_config = ConfigDict(extra="allow")


class EventType(str, Enum):
    """The 31 values of ``type`` (spec ``basic/index``, "The events")."""

    TEXT_MESSAGE_START = "TEXT_MESSAGE_START"
    TEXT_MESSAGE_CONTENT = "TEXT_MESSAGE_CONTENT"
    TEXT_MESSAGE_END = "TEXT_MESSAGE_END"
    TEXT_MESSAGE_CHUNK = "TEXT_MESSAGE_CHUNK"
    TOOL_CALL_START = "TOOL_CALL_START"
    TOOL_CALL_ARGS = "TOOL_CALL_ARGS"
    TOOL_CALL_END = "TOOL_CALL_END"
    TOOL_CALL_CHUNK = "TOOL_CALL_CHUNK"
    TOOL_CALL_RESULT = "TOOL_CALL_RESULT"
    STATE_SNAPSHOT = "STATE_SNAPSHOT"
    STATE_DELTA = "STATE_DELTA"
    MESSAGES_SNAPSHOT = "MESSAGES_SNAPSHOT"
    ACTIVITY_SNAPSHOT = "ACTIVITY_SNAPSHOT"
    ACTIVITY_DELTA = "ACTIVITY_DELTA"
    RAW = "RAW"
    CUSTOM = "CUSTOM"
    RUN_STARTED = "RUN_STARTED"
    RUN_FINISHED = "RUN_FINISHED"
    RUN_ERROR = "RUN_ERROR"
    STEP_STARTED = "STEP_STARTED"
    STEP_FINISHED = "STEP_FINISHED"
    REASONING_START = "REASONING_START"
    REASONING_MESSAGE_START = "REASONING_MESSAGE_START"
    REASONING_MESSAGE_CONTENT = "REASONING_MESSAGE_CONTENT"
    REASONING_MESSAGE_END = "REASONING_MESSAGE_END"
    REASONING_MESSAGE_CHUNK = "REASONING_MESSAGE_CHUNK"
    REASONING_END = "REASONING_END"
    REASONING_ENCRYPTED_VALUE = "REASONING_ENCRYPTED_VALUE"
    SUBAGENT_STARTED = "SUBAGENT_STARTED"
    SUBAGENT_FINISHED = "SUBAGENT_FINISHED"
    SUBAGENT_ERROR = "SUBAGENT_ERROR"


Metadata = Dict[str, Any]
TextMessageRole = Literal["developer", "system", "assistant", "user"]
Role = Literal["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]
ReasoningEncryptedValueSubtype = Literal["tool-call", "message"]
_Timestamp = Annotated[Optional[int], Field(default=None, ge=-_JS_SAFE_INT, le=_JS_SAFE_INT)]
_Count = Annotated[Optional[int], Field(default=None, ge=0, le=_JS_SAFE_INT)]


class BaseEvent(_Model):
    """The envelope every event shares (spec ``basic/index``, "Events")."""

    type: EventType
    timestamp: _Timestamp = None
    raw_event: Optional[Any] = None
    metadata: Optional[Metadata] = None


class _Attributable(BaseEvent):
    """Events that may belong to a subagent's work carry an optional ``subagentRunId``."""

    subagent_run_id: Optional[str] = None


# --------------------------------------------------------------------------------------------
# Content parts, messages, tools
# --------------------------------------------------------------------------------------------

class TextPart(_Model):
    type: Literal["text"] = "text"
    id: Optional[str] = None
    text: str
    metadata: Optional[Any] = None


class DataSource(_Model):
    """Bytes carried inline, base64-encoded."""

    type: Literal["data"] = "data"
    value: str
    mime_type: str


class UrlSource(_Model):
    type: Literal["url"] = "url"
    value: str
    mime_type: Optional[str] = None


class FileSource(_Model):
    """A provider-issued handle: opaque, never dereferenced by a consumer."""

    type: Literal["file"] = "file"
    value: str
    provider: Optional[str] = None
    mime_type: Optional[str] = None


PartSource = Annotated[Union[DataSource, UrlSource, FileSource], Field(discriminator="type")]


class ImagePart(_Model):
    type: Literal["image"] = "image"
    id: Optional[str] = None
    source: PartSource
    metadata: Optional[Any] = None


class AudioPart(_Model):
    type: Literal["audio"] = "audio"
    id: Optional[str] = None
    source: PartSource
    metadata: Optional[Any] = None


class VideoPart(_Model):
    type: Literal["video"] = "video"
    id: Optional[str] = None
    source: PartSource
    metadata: Optional[Any] = None


class DocumentPart(_Model):
    type: Literal["document"] = "document"
    id: Optional[str] = None
    source: PartSource
    metadata: Optional[Any] = None


ContentPart = Annotated[Union[TextPart, ImagePart, AudioPart, VideoPart, DocumentPart],
                        Field(discriminator="type")]


class FunctionCall(_Model):
    name: str
    arguments: str


class ToolCall(_Model):
    """A call an assistant message made; ``arguments`` is JSON *text*, never parsed here."""

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall
    encrypted_value: Optional[str] = None
    metadata: Optional[Metadata] = None
    encrypted_value_type: Optional[str] = None  # spec 1.1; last so 1.0 dumps stay identical


class DeveloperMessage(_Model):
    subagent_run_id: Optional[str] = None
    id: str
    role: Literal["developer"] = "developer"
    name: Optional[str] = None
    encrypted_value: Optional[str] = None
    metadata: Optional[Metadata] = None
    content: str
    encrypted_value_type: Optional[str] = None


class SystemMessage(_Model):
    subagent_run_id: Optional[str] = None
    id: str
    role: Literal["system"] = "system"
    name: Optional[str] = None
    encrypted_value: Optional[str] = None
    metadata: Optional[Metadata] = None
    content: str
    encrypted_value_type: Optional[str] = None


class AssistantMessage(_Model):
    subagent_run_id: Optional[str] = None
    id: str
    role: Literal["assistant"] = "assistant"
    name: Optional[str] = None
    encrypted_value: Optional[str] = None
    metadata: Optional[Metadata] = None
    content: Optional[str] = None
    tool_calls: Optional[List[ToolCall]] = None
    encrypted_value_type: Optional[str] = None


class UserMessage(_Model):
    subagent_run_id: Optional[str] = None
    id: str
    role: Literal["user"] = "user"
    name: Optional[str] = None
    encrypted_value: Optional[str] = None
    metadata: Optional[Metadata] = None
    content: Union[str, List[ContentPart]]
    encrypted_value_type: Optional[str] = None


class ToolMessage(_Model):
    subagent_run_id: Optional[str] = None
    id: str
    role: Literal["tool"] = "tool"
    content: Union[str, List[ContentPart]]
    tool_call_id: str
    error: Optional[str] = None
    encrypted_value: Optional[str] = None
    metadata: Optional[Metadata] = None
    encrypted_value_type: Optional[str] = None


class ActivityMessage(_Model):
    """Structured progress kept in the message list; never sent back to the producer."""

    subagent_run_id: Optional[str] = None
    id: str
    role: Literal["activity"] = "activity"
    activity_type: str
    content: Dict[str, Any]
    metadata: Optional[Metadata] = None


class ReasoningMessage(_Model):
    subagent_run_id: Optional[str] = None
    id: str
    role: Literal["reasoning"] = "reasoning"
    content: str
    encrypted_value: Optional[str] = None
    metadata: Optional[Metadata] = None
    encrypted_value_type: Optional[str] = None


Message = Annotated[
    Union[DeveloperMessage, SystemMessage, AssistantMessage, UserMessage, ToolMessage,
          ActivityMessage, ReasoningMessage],
    Field(discriminator="role"),
]


class Tool(_Model):
    name: str
    description: str
    parameters: Optional[Any] = None
    metadata: Optional[Metadata] = None


class Context(_Model):
    description: str
    value: str


class ResumeEntry(_Model):
    """One answer to an interrupt, sent on the run that continues it (spec interrupt-resume)."""

    interrupt_id: str
    status: Literal["resolved", "cancelled"]
    payload: Optional[Any] = None
    metadata: Optional[Metadata] = None


class RunAgentInput(_Model):
    """The request that starts a run (spec ``basic/run-input``)."""

    thread_id: str
    run_id: str
    protocol_version: Optional[str] = None
    parent_run_id: Optional[str] = None
    state: Optional[Any] = None
    messages: List[Message]
    tools: Optional[List[Tool]] = None
    context: Optional[List[Context]] = None
    forwarded_props: Optional[Any] = None
    resume: Optional[List[ResumeEntry]] = None


# --------------------------------------------------------------------------------------------
# JSON Patch (RFC 6902) — operations are open objects
# --------------------------------------------------------------------------------------------

_POINTER = r"^(/([^/~]|~[01])*)*$"
JsonPointer = Annotated[str, Field(pattern=_POINTER)]


class AddOperation(_OpenModel):
    op: Literal["add"] = "add"
    path: JsonPointer
    value: Any


class RemoveOperation(_OpenModel):
    op: Literal["remove"] = "remove"
    path: JsonPointer


class ReplaceOperation(_OpenModel):
    op: Literal["replace"] = "replace"
    path: JsonPointer
    value: Any


class MoveOperation(_OpenModel):
    model_config = ConfigDict(serialize_by_alias=True)
    op: Literal["move"] = "move"
    from_: JsonPointer = Field(alias="from")
    path: JsonPointer


class CopyOperation(_OpenModel):
    model_config = ConfigDict(serialize_by_alias=True)
    op: Literal["copy"] = "copy"
    from_: JsonPointer = Field(alias="from")
    path: JsonPointer


class TestOperation(_OpenModel):
    __test__ = False  # not a pytest test class
    op: Literal["test"] = "test"
    path: JsonPointer
    value: Any


JsonPatchOperation = Annotated[
    Union[AddOperation, RemoveOperation, ReplaceOperation, MoveOperation, CopyOperation,
          TestOperation],
    Field(discriminator="op"),
]
JsonPatch = List[JsonPatchOperation]


# --------------------------------------------------------------------------------------------
# Outcomes, interrupts, usage
# --------------------------------------------------------------------------------------------

class Interrupt(_Model):
    """Something a run needs from outside before it can continue (spec interrupt-resume)."""

    subagent_run_id: Optional[str] = None
    id: str
    reason: str
    message: Optional[str] = None
    tool_call_id: Optional[str] = None
    response_schema: Optional[Dict[str, Any]] = None
    expires_at: Optional[str] = None
    metadata: Optional[Metadata] = None


class RunFinishedSuccessOutcome(_Model):
    type: Literal["success"] = "success"
    pending_tool_call_ids: Optional[List[str]] = None


class RunFinishedInterruptOutcome(_Model):
    type: Literal["interrupt"] = "interrupt"
    interrupts: List[Interrupt] = Field(min_length=1)


class RunFinishedCancelledOutcome(_Model):
    type: Literal["cancelled"] = "cancelled"


RunFinishedOutcome = Annotated[
    Union[RunFinishedSuccessOutcome, RunFinishedInterruptOutcome, RunFinishedCancelledOutcome],
    Field(discriminator="type"),
]


class TokenUsage(_Model):
    """Token counts for one provider/model; cached and reasoning counts are *parts* of totals."""

    provider: Optional[str] = None
    model: Optional[str] = None
    input_tokens: _Count = None
    output_tokens: _Count = None
    total_tokens: _Count = None
    reasoning_tokens: _Count = None
    cached_input_tokens: _Count = None
    cache_write_input_tokens: _Count = None


class SubagentFinishedSuccessOutcome(_Model):
    type: Literal["success"] = "success"


class SubagentFinishedSuspendedOutcome(_Model):
    type: Literal["suspended"] = "suspended"
    interrupt_ids: Optional[List[str]] = None


SubagentFinishedOutcome = Annotated[
    Union[SubagentFinishedSuccessOutcome, SubagentFinishedSuspendedOutcome],
    Field(discriminator="type"),
]


# --------------------------------------------------------------------------------------------
# The 31 events
# --------------------------------------------------------------------------------------------

class TextMessageStartEvent(_Attributable):
    type: Literal[EventType.TEXT_MESSAGE_START] = EventType.TEXT_MESSAGE_START
    message_id: str
    role: Optional[TextMessageRole] = None  # absent means "assistant" (spec text-messages)
    name: Optional[str] = None


class TextMessageContentEvent(_Attributable):
    type: Literal[EventType.TEXT_MESSAGE_CONTENT] = EventType.TEXT_MESSAGE_CONTENT
    message_id: str
    delta: str  # may be "" (keep-alives are legal)


class TextMessageEndEvent(_Attributable):
    type: Literal[EventType.TEXT_MESSAGE_END] = EventType.TEXT_MESSAGE_END
    message_id: str


class TextMessageChunkEvent(_Attributable):
    type: Literal[EventType.TEXT_MESSAGE_CHUNK] = EventType.TEXT_MESSAGE_CHUNK
    message_id: Optional[str] = None
    role: Optional[TextMessageRole] = None
    delta: Optional[str] = None
    name: Optional[str] = None


class ToolCallStartEvent(_Attributable):
    type: Literal[EventType.TOOL_CALL_START] = EventType.TOOL_CALL_START
    tool_call_id: str
    tool_call_name: str
    parent_message_id: Optional[str] = None


class ToolCallArgsEvent(_Attributable):
    type: Literal[EventType.TOOL_CALL_ARGS] = EventType.TOOL_CALL_ARGS
    tool_call_id: str
    delta: str


class ToolCallEndEvent(_Attributable):
    """The arguments are complete. Not a result: that is ``TOOL_CALL_RESULT``."""

    type: Literal[EventType.TOOL_CALL_END] = EventType.TOOL_CALL_END
    tool_call_id: str


class ToolCallChunkEvent(_Attributable):
    type: Literal[EventType.TOOL_CALL_CHUNK] = EventType.TOOL_CALL_CHUNK
    tool_call_id: Optional[str] = None
    tool_call_name: Optional[str] = None
    parent_message_id: Optional[str] = None
    delta: Optional[str] = None


class ToolCallResultEvent(_Attributable):
    """What a tool returned; mints a ``tool`` message with its own ``messageId``."""

    type: Literal[EventType.TOOL_CALL_RESULT] = EventType.TOOL_CALL_RESULT
    message_id: str
    tool_call_id: str
    content: Union[str, List[ContentPart]]
    role: Optional[Literal["tool"]] = None


class StateSnapshotEvent(_Attributable):
    type: Literal[EventType.STATE_SNAPSHOT] = EventType.STATE_SNAPSHOT
    snapshot: Any  # any JSON value, null included


class StateDeltaEvent(_Attributable):
    type: Literal[EventType.STATE_DELTA] = EventType.STATE_DELTA
    delta: JsonPatch


class MessagesSnapshotEvent(BaseEvent):
    type: Literal[EventType.MESSAGES_SNAPSHOT] = EventType.MESSAGES_SNAPSHOT
    messages: List[Message]


class ActivitySnapshotEvent(_Attributable):
    type: Literal[EventType.ACTIVITY_SNAPSHOT] = EventType.ACTIVITY_SNAPSHOT
    message_id: str
    activity_type: str
    content: Dict[str, Any]
    replace: Optional[bool] = None  # absent means true


class ActivityDeltaEvent(_Attributable):
    type: Literal[EventType.ACTIVITY_DELTA] = EventType.ACTIVITY_DELTA
    message_id: str
    activity_type: str
    patch: JsonPatch


class RawEvent(_Attributable):
    type: Literal[EventType.RAW] = EventType.RAW
    event: Any
    source: Optional[str] = None


class CustomEvent(_Attributable):
    type: Literal[EventType.CUSTOM] = EventType.CUSTOM
    name: str
    value: Any


class RunStartedEvent(BaseEvent):
    type: Literal[EventType.RUN_STARTED] = EventType.RUN_STARTED
    thread_id: str
    run_id: str
    protocol_version: Optional[str] = None
    parent_run_id: Optional[str] = None
    input: Optional[RunAgentInput] = None


class RunFinishedEvent(BaseEvent):
    type: Literal[EventType.RUN_FINISHED] = EventType.RUN_FINISHED
    thread_id: str
    run_id: str
    result: Optional[Any] = None
    outcome: Optional[RunFinishedOutcome] = None  # absent means success
    usage: Optional[List[TokenUsage]] = None


class RunErrorEvent(BaseEvent):
    type: Literal[EventType.RUN_ERROR] = EventType.RUN_ERROR
    message: str
    code: Optional[str] = None
    usage: Optional[List[TokenUsage]] = None


class StepStartedEvent(_Attributable):
    type: Literal[EventType.STEP_STARTED] = EventType.STEP_STARTED
    step_name: str


class StepFinishedEvent(_Attributable):
    type: Literal[EventType.STEP_FINISHED] = EventType.STEP_FINISHED
    step_name: str


class ReasoningStartEvent(_Attributable):
    type: Literal[EventType.REASONING_START] = EventType.REASONING_START
    message_id: str


class ReasoningMessageStartEvent(_Attributable):
    type: Literal[EventType.REASONING_MESSAGE_START] = EventType.REASONING_MESSAGE_START
    message_id: str
    role: Literal["reasoning"] = "reasoning"


class ReasoningMessageContentEvent(_Attributable):
    type: Literal[EventType.REASONING_MESSAGE_CONTENT] = EventType.REASONING_MESSAGE_CONTENT
    message_id: str
    delta: str


class ReasoningMessageEndEvent(_Attributable):
    type: Literal[EventType.REASONING_MESSAGE_END] = EventType.REASONING_MESSAGE_END
    message_id: str


class ReasoningMessageChunkEvent(_Attributable):
    type: Literal[EventType.REASONING_MESSAGE_CHUNK] = EventType.REASONING_MESSAGE_CHUNK
    message_id: Optional[str] = None
    delta: Optional[str] = None


class ReasoningEndEvent(_Attributable):
    type: Literal[EventType.REASONING_END] = EventType.REASONING_END
    message_id: str


class ReasoningEncryptedValueEvent(_Attributable):
    type: Literal[EventType.REASONING_ENCRYPTED_VALUE] = EventType.REASONING_ENCRYPTED_VALUE
    subtype: ReasoningEncryptedValueSubtype
    entity_id: str
    encrypted_value: str
    encrypted_value_type: Optional[str] = None  # spec 1.1


class SubagentStartedEvent(BaseEvent):
    type: Literal[EventType.SUBAGENT_STARTED] = EventType.SUBAGENT_STARTED
    subagent_run_id: str
    name: str
    description: Optional[str] = None
    parent_subagent_run_id: Optional[str] = None
    parent_tool_call_id: Optional[str] = None
    parent_message_id: Optional[str] = None


class SubagentFinishedEvent(BaseEvent):
    type: Literal[EventType.SUBAGENT_FINISHED] = EventType.SUBAGENT_FINISHED
    subagent_run_id: str
    result: Optional[Any] = None
    outcome: Optional[SubagentFinishedOutcome] = None


class SubagentErrorEvent(BaseEvent):
    type: Literal[EventType.SUBAGENT_ERROR] = EventType.SUBAGENT_ERROR
    subagent_run_id: str
    message: str
    code: Optional[str] = None


Event = Annotated[
    Union[TextMessageStartEvent, TextMessageContentEvent, TextMessageEndEvent,
          TextMessageChunkEvent, ToolCallStartEvent, ToolCallArgsEvent, ToolCallEndEvent,
          ToolCallChunkEvent, ToolCallResultEvent, StateSnapshotEvent, StateDeltaEvent,
          MessagesSnapshotEvent, ActivitySnapshotEvent, ActivityDeltaEvent, RawEvent,
          CustomEvent, RunStartedEvent, RunFinishedEvent, RunErrorEvent, StepStartedEvent,
          StepFinishedEvent, ReasoningStartEvent, ReasoningMessageStartEvent,
          ReasoningMessageContentEvent, ReasoningMessageEndEvent, ReasoningMessageChunkEvent,
          ReasoningEndEvent, ReasoningEncryptedValueEvent, SubagentStartedEvent,
          SubagentFinishedEvent, SubagentErrorEvent],
    Field(discriminator="type"),
]

#: ``EventType`` → model class, for all 31 types.
EVENT_CLASSES: dict[EventType, type[BaseEvent]] = {
    cls.model_fields["type"].default: cls for cls in typing.get_args(typing.get_args(Event)[0])
}
_CLASS_BY_NAME: dict[str, type[BaseEvent]] = {t.value: c for t, c in EVENT_CLASSES.items()}

_EVENT_ADAPTER: TypeAdapter = TypeAdapter(Event)
_validate_json = _EVENT_ADAPTER.validator.validate_json  # the pydantic-core call, no wrapper
_INPUT_ADAPTER: TypeAdapter = TypeAdapter(RunAgentInput)


# --------------------------------------------------------------------------------------------
# Serialisation
# --------------------------------------------------------------------------------------------

def dump_model(model: BaseModel) -> Any:
    """Any protocol model as wire-shaped JSON data (camelCase, absent optionals omitted)."""
    return model.model_dump(mode="json", by_alias=True)


def dump_event(event: BaseEvent) -> dict:
    """An event as a JSON-ready dict: camelCase keys, absent optionals dropped, data nulls kept."""
    return event.model_dump(mode="json", by_alias=True)


def event_to_json(event: BaseEvent) -> str:
    """An event as compact JSON text, exactly as ``ag_ui.core``'s ``model_dump_json(by_alias=True)``."""
    return event.model_dump_json(by_alias=True)


# --------------------------------------------------------------------------------------------
# Enforcement: a walk over the raw JSON driven by the models' own field definitions
# --------------------------------------------------------------------------------------------

_REMOVE = object()  # sentinel: "strip the value that contained this"


@dataclass(slots=True)
class _FieldSpec:
    shape: Any
    required: bool
    optional_none: bool  # declared Optional with default None: a null here is not data


@dataclass(slots=True)
class _ModelShape:
    cls: type
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
_SHAPES: dict[type, _ModelShape] = {}

# Closed string sets that the spec explicitly calls unrecognised *members* rather than bad
# values (spec events/reasoning, "Error Handling").
_ENUM_AS_UNION = {(ReasoningEncryptedValueEvent, "subtype"): "reasoning subtype"}

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
        disc = next((m.discriminator for m in args[1:] if isinstance(m, FieldInfo)
                     and m.discriminator), None)
        if disc:
            return _union_shape(args[0], disc)
        return _shape_of(args[0])
    if info is not None and info.discriminator:
        return _union_shape(annotation, info.discriminator)
    if origin is Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        shapes = [_shape_of(a) for a in args]
        shapes = [s for s in shapes if s is not _LEAF]
        if len(shapes) == 1:
            return shapes[0]
        return _LEAF
    if origin in (list, List):
        item = _shape_of(typing.get_args(annotation)[0])
        return _ListShape(item) if item is not _LEAF else _LEAF
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model_shape(annotation)
    return _LEAF


def _union_shape(union: Any, disc: str) -> _UnionShape:
    members: dict[str, Any] = {}
    for cls in typing.get_args(union):
        default = cls.model_fields[disc].default
        members[default.value if isinstance(default, Enum) else default] = _model_shape(cls)
    first = typing.get_args(union)[0]
    what = _UNION_WHAT.get(first.__name__, disc)
    return _UnionShape(disc, members, what)


def _model_shape(cls: type) -> _ModelShape:
    shape = _SHAPES.get(cls)
    if shape is not None:
        return shape
    shape = _ModelShape(cls, {}, cls.model_config.get("extra") == "allow", {})
    _SHAPES[cls] = shape  # register before recursing (messages nest tool calls, etc.)
    for name, info in cls.model_fields.items():
        alias = info.alias or name
        what = _ENUM_AS_UNION.get((cls, name))
        if what:
            values = frozenset(typing.get_args(info.annotation))
            sub: Any = _EnumMemberShape(values, what)
        else:
            sub = _shape_of(info.annotation, info)
        required = info.is_required()
        shape.fields[alias] = _FieldSpec(sub, required, not required and info.default is None)
        shape.snake[name] = alias
    return shape


def _esc(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


class _Enforcer:
    """Strips unrecognised material with warnings; raises on optional nulls (spec processing)."""

    __slots__ = ("warnings", "index", "event_type")

    def __init__(self, index: int | None, event_type: str) -> None:
        self.warnings: list[PipelineWarning] = []
        self.index = index
        self.event_type = event_type

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(PipelineWarning(self.index, path, message))

    def walk(self, value: Any, shape: Any, path: str) -> Any:
        if shape is _LEAF:
            return value
        if isinstance(shape, _ModelShape):
            return self.model(value, shape, path)
        if isinstance(shape, _UnionShape):
            if not isinstance(value, dict):
                return value  # wrong type: the validator reports it
            tag = value.get(shape.discriminator)
            if isinstance(tag, str) and tag not in shape.members:
                self.warn(path, f"unrecognised {shape.what} {tag!r} stripped "
                                f"(spec basic/processing: unknown union members are removed)")
                return _REMOVE
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
                    if new is not _REMOVE:
                        out.append(new)
                elif out is not None:
                    out.append(item)
            return value if out is None else out
        if isinstance(shape, _EnumMemberShape):
            if isinstance(value, str) and value not in shape.values:
                self.warn(path, f"unrecognised {shape.what} {value!r} stripped "
                                f"(spec basic/processing: unknown union members are removed)")
                return _REMOVE
            return value
        return value

    def model(self, value: Any, shape: _ModelShape, path: str) -> Any:
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
                self.warn(f"{path}/{_esc(key)}", f"unknown field {key!r} stripped{hint}")
                if out is None:
                    out = dict(value)
                del out[key]
                continue
            if item is None:
                if spec.optional_none:
                    self.null_optional(f"{path}/{_esc(key)}", key)
                continue
            if spec.shape is _LEAF:
                continue
            new = self.walk(item, spec.shape, f"{path}/{_esc(key)}")
            if new is not item:
                if new is _REMOVE:
                    if spec.required:
                        return _REMOVE
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
            msg = (f"Cannot send '{self.event_type}' with 'subagentRunId: null'. "
                   f"The field is optional \u2014 omit it entirely.")
            raise MalformedEventError(msg, path=path, reason="null in an optional field",
                                      rule="schema.null-attribution", index=self.index,
                                      event_type=self.event_type)
        raise MalformedEventError(
            f"{self.event_type} {path}: null is not a value for an optional field; omit the "
            f"field instead (spec basic/index, 'Absent means absent')",
            path=path, reason="null in an optional field", rule="schema.null-optional",
            index=self.index, event_type=self.event_type)


# --------------------------------------------------------------------------------------------
# Compatibility boundary: retired shapes, tolerated nulls (spec basic/versioning)
# --------------------------------------------------------------------------------------------

_THINKING = {
    "THINKING_START": "REASONING_START",
    "THINKING_END": "REASONING_END",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
}

#: Whole optional fields that 1.0 clients have always read as absent when sent as ``null``
#: (the reference client's compatibility table). Anywhere else, an optional ``null`` is fatal.
_TOLERATED_NULLS: dict[str, tuple[str, ...]] = {
    "*": ("rawEvent",),
    "RUN_STARTED": ("parentRunId", "input"),
    "RUN_FINISHED": ("result", "outcome"),
    "RUN_ERROR": ("usage",),
    "SUBAGENT_FINISHED": ("result",),
    "TOOL_CALL_START": ("parentMessageId",),
    "TOOL_CALL_CHUNK": ("parentMessageId",),
    "TOOL_CALL_RESULT": ("role",),
}
_TOLERATED_OUTCOME_NULLS = ("pendingToolCallIds",)
_TOLERATED_USAGE_NULLS = ("provider", "reasoningTokens", "cachedInputTokens",
                          "cacheWriteInputTokens")
_TOLERATED_INPUT_NULLS = ("forwardedProps",)
_TOLERATED_TOOL_NULLS = ("parameters",)
_TOLERATED_RESUME_NULLS = ("payload",)
_MEDIA_PARTS = frozenset({"image", "audio", "video", "document"})


class CompatibilityBoundary:
    """Translates retired 0.x shapes into 1.x before enforcement (always on, like the reference).

    ``THINKING_*`` events carried no ids; the translation takes them from ``ids`` (a
    zero-argument callable, deterministic by default) and says so in a warning, because an
    id the producer never wrote can later surface in a verification error.
    Tolerated optional ``null`` fields become absent, warned once per field per run.
    """

    def __init__(self, ids: Callable[[], str] | None = None) -> None:
        self._ids = ids or IdFactory("thinking")
        self._span: str | None = None
        self._message: str | None = None
        self._noticed: set[str] = set()

    def new_run(self) -> None:
        """A RUN_STARTED went by: tolerated nulls are warned about afresh in each run."""
        self._noticed.clear()

    def translate(self, obj: dict, index: int | None,
                  warnings: list[PipelineWarning]) -> dict:
        kind = obj.get("type")
        if kind == "RUN_STARTED":
            self.new_run()
        obj = self._nulls(obj, kind, index, warnings)
        if isinstance(kind, str) and kind in _THINKING:
            obj = self._thinking(obj, kind, index, warnings)
        return obj

    # -- nulls ---------------------------------------------------------------------------
    def _drop_nulls(self, obj: Any, keys: tuple[str, ...], where: str, base: str,
                    index: int | None, warnings: list[PipelineWarning]) -> Any:
        if not isinstance(obj, dict):
            return obj
        out = None
        for key in keys:
            if key in obj and obj[key] is None:
                if out is None:
                    out = dict(obj)
                del out[key]
                label = f"{where}.{key}"
                if label not in self._noticed:
                    self._noticed.add(label)
                    warnings.append(PipelineWarning(
                        index, f"{base}/{key}",
                        f"{label}: null read as an absent field (compatibility shim for "
                        f"pre-1.0 producers; send no field instead)"))
        return obj if out is None else out

    def _nulls(self, obj: dict, kind: Any, index: int | None,
               warnings: list[PipelineWarning]) -> dict:
        drop = self._drop_nulls
        obj = drop(obj, _TOLERATED_NULLS["*"], "event", "", index, warnings)
        if not isinstance(kind, str):
            return obj
        fields = _TOLERATED_NULLS.get(kind)
        if fields:
            obj = drop(obj, fields, kind, "", index, warnings)
        if kind == "RUN_FINISHED":
            outcome = obj.get("outcome")
            new = drop(outcome, _TOLERATED_OUTCOME_NULLS, "RUN_FINISHED.outcome", "/outcome",
                       index, warnings)
            usage = obj.get("usage")
            new_usage = usage
            if isinstance(usage, list):
                new_usage = [drop(u, _TOLERATED_USAGE_NULLS, "RUN_FINISHED.usage[]",
                                  f"/usage/{i}", index, warnings) for i, u in enumerate(usage)]
                if all(a is b for a, b in zip(new_usage, usage)):
                    new_usage = usage
            if new is not outcome or new_usage is not usage:
                obj = dict(obj)
                if new is not outcome:
                    obj["outcome"] = new
                if new_usage is not usage:
                    obj["usage"] = new_usage
        elif kind == "RUN_STARTED" and isinstance(obj.get("input"), dict):
            new_input = self._input_nulls(obj["input"], "/input", index, warnings)
            if new_input is not obj["input"]:
                obj = {**obj, "input": new_input}
        elif kind == "MESSAGES_SNAPSHOT" and isinstance(obj.get("messages"), list):
            msgs = self._message_nulls(obj["messages"], "/messages", index, warnings)
            if msgs is not obj["messages"]:
                obj = {**obj, "messages": msgs}
        return obj

    def _input_nulls(self, inp: dict, base: str, index: int | None,
                     warnings: list[PipelineWarning]) -> dict:
        drop = self._drop_nulls
        out = drop(inp, _TOLERATED_INPUT_NULLS, "RunAgentInput", base, index, warnings)
        for key, keys, label in (("tools", _TOLERATED_TOOL_NULLS, "Tool"),
                                 ("resume", _TOLERATED_RESUME_NULLS, "ResumeEntry")):
            items = out.get(key)
            if isinstance(items, list):
                new = [drop(x, keys, label, f"{base}/{key}/{i}", index, warnings)
                       for i, x in enumerate(items)]
                if any(a is not b for a, b in zip(new, items)):
                    out = {**out, key: new}
        msgs = out.get("messages")
        if isinstance(msgs, list):
            new_msgs = self._message_nulls(msgs, f"{base}/messages", index, warnings)
            if new_msgs is not msgs:
                out = {**out, "messages": new_msgs}
        return out

    def _message_nulls(self, msgs: list, base: str, index: int | None,
                       warnings: list[PipelineWarning]) -> list:
        changed = False
        out = []
        for i, msg in enumerate(msgs):
            content = msg.get("content") if isinstance(msg, dict) else None
            if isinstance(content, list):
                parts = [self._drop_nulls(p, ("metadata",), f"{p.get('type')} input content",
                                          f"{base}/{i}/content/{j}", index, warnings)
                         if isinstance(p, dict) and p.get("type") in _MEDIA_PARTS else p
                         for j, p in enumerate(content)]
                if any(a is not b for a, b in zip(parts, content)):
                    msg = {**msg, "content": parts}
                    changed = True
            out.append(msg)
        return out if changed else msgs

    # -- THINKING_* ----------------------------------------------------------------------
    def _mint(self, what: str, established: str | None, index: int | None,
              warnings: list[PipelineWarning]) -> str:
        if established is not None:
            return established
        minted = self._ids()
        warnings.append(PipelineWarning(
            index, "/messageId",
            f"minted messageId {minted!r} for {what}: no THINKING opener preceded it, so "
            f"the id is this consumer's invention, not the producer's"))
        return minted

    def _thinking(self, obj: dict, kind: str, index: int | None,
                  warnings: list[PipelineWarning]) -> dict:
        new_kind = _THINKING[kind]
        warnings.append(PipelineWarning(
            index, "/type",
            f"retired event {kind} translated to {new_kind} (spec basic/versioning, "
            f"'Retired shapes')"))
        out = dict(obj)
        out["type"] = new_kind
        if kind == "THINKING_START":
            self._span = self._ids()
            out["messageId"] = self._span
            if "title" in out:
                title = out.pop("title")
                warnings.append(PipelineWarning(
                    index, "/title",
                    f"THINKING_START.title {title!r} dropped: REASONING_START has no title, "
                    f"so the span's label is lost"))
        elif kind == "THINKING_TEXT_MESSAGE_START":
            self._message = self._ids()
            out["messageId"] = self._message
            out["role"] = "reasoning"
        elif kind == "THINKING_TEXT_MESSAGE_CONTENT":
            out["messageId"] = self._mint(kind, self._message, index, warnings)
        elif kind == "THINKING_TEXT_MESSAGE_END":
            out["messageId"] = self._mint(kind, self._message, index, warnings)
            self._message = None
        else:  # THINKING_END
            out["messageId"] = self._mint(kind, self._span, index, warnings)
            self._span = None
        return out


# --------------------------------------------------------------------------------------------
# The parser
# --------------------------------------------------------------------------------------------

@dataclass(slots=True)
class ParsedEvent:
    """What parsing one wire object produced: the event (``None`` if dropped) and warnings."""

    event: BaseEvent | None
    warnings: list[PipelineWarning] = field(default_factory=list)

    @property
    def dropped(self) -> bool:
        return self.event is None


_VERSION_RE = re.compile(r"^(\d+)\.(\d+)$")


def _version_warning(version: str, index: int | None) -> PipelineWarning | None:
    """Spec basic/versioning: a newer or uninterpretable declaration proceeds, with a warning."""
    m = _VERSION_RE.match(version)
    ours = tuple(int(x) for x in PROTOCOL_VERSION.split("."))
    if m is None:
        return PipelineWarning(index, "/protocolVersion",
                               f"cannot interpret protocolVersion {version!r} (expected "
                               f"MAJOR.MINOR); proceeding as if it were newer than "
                               f"{PROTOCOL_VERSION}")
    if (int(m.group(1)), int(m.group(2))) > ours:
        return PipelineWarning(index, "/protocolVersion",
                               f"producer speaks protocol {version}; this consumer speaks "
                               f"{PROTOCOL_VERSION}. Unrecognised material will be stripped")
    return None


def _pointer_from_loc(data: Any, loc: tuple) -> str:
    """Turn a pydantic error location into a JSON Pointer into *data*.

    Locations also name union branches (``'interrupt'``, ``'str'``); those are not part of
    the document and are skipped. The last element may name a field that is missing.
    """
    parts: list[str] = []
    cur = data
    last = len(loc) - 1
    for i, item in enumerate(loc):
        if isinstance(cur, dict) and isinstance(item, str) and item in cur:
            parts.append(_esc(item))
            cur = cur[item]
        elif isinstance(cur, list) and isinstance(item, int) and 0 <= item < len(cur):
            parts.append(str(item))
            cur = cur[item]
        elif i == last and isinstance(cur, dict) and isinstance(item, str):
            parts.append(_esc(item))  # a missing field: name it
    return "".join("/" + p for p in parts)


def _describe(err: dict) -> str:
    kind = err.get("type", "")
    if kind == "missing":
        return "required field is missing"
    value = err.get("input")
    shown = json.dumps(value)[:60] if _jsonable(value) else repr(value)[:60]
    return f"{err.get('msg', 'invalid value')} (got {shown})"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def _malformed(exc: ValidationError, data: Any, cls: type, index: int | None,
               type_name: str) -> MalformedEventError:
    errors = exc.errors(include_url=False)
    # Prefer the most specific error: the one with the longest location.
    err = max(errors, key=lambda e: len(e.get("loc", ())))
    path = _pointer_from_loc(data, tuple(err.get("loc", ())))
    reason = _describe(err)
    rule = "schema.missing-field" if err.get("type") == "missing" else "schema.invalid-value"
    patchy = (type_name == "STATE_DELTA" and (path == "/delta" or path.startswith("/delta/"))) \
        or (type_name == "ACTIVITY_DELTA" and (path == "/patch" or path.startswith("/patch/")))
    if patchy:
        return PatchError(f"malformed JSON Patch in {type_name} at {path}: {reason}",
                          path=path, reason=reason, index=index, event_type=type_name)
    return MalformedEventError(f"malformed {type_name} at {path or '/'}: {reason}",
                               path=path, reason=reason, rule=rule, index=index,
                               event_type=type_name)


class EventParser:
    """Parses a stream's events one at a time (compatibility → enforcement → strict validation).

    Stateful only because the compatibility boundary is: retired ``THINKING_*`` events name
    no ids, so the parser remembers the span and message it minted. Use one parser per stream.
    """

    def __init__(self, *, ids: Callable[[], str] | None = None) -> None:
        self.boundary = CompatibilityBoundary(ids)

    def fast(self, obj: str | bytes) -> BaseEvent | None:
        """The fast path: one pydantic-core call for conforming JSON text, else ``None``.

        Succeeds only when the text validates strictly as it stands — no unknown field, no
        unknown type, nothing to translate — so there is nothing to warn about. Text with a
        ``null`` token takes the slow path, because a null in an optional ``Any`` field
        (``result``, ``rawEvent``) validates but must not pass silently.
        """
        if ("null" if type(obj) is str else b"null") in obj:
            return None
        try:
            # Aliases only: the models also accept Python names, but JSON must use the wire
            # spelling (by_alias is already on in the models' config).
            event = _validate_json(obj, strict=True, by_name=False)
        except ValidationError:
            return None
        if type(event) is RunStartedEvent:  # class checks: Enum member access is slow
            self.boundary.new_run()
            if event.protocol_version is not None:
                return None  # let the slow path judge the version declaration
        return event

    def parse(self, obj: dict | str | bytes | bytearray, *, index: int | None = None
              ) -> ParsedEvent:
        """Parse one event given as JSON text/bytes or as an already-decoded dict."""
        if isinstance(obj, (bytes, bytearray, str)):
            event = self.fast(obj)
            if event is not None:
                return ParsedEvent(event, [])
            try:
                data = json.loads(obj)
            except (UnicodeDecodeError, ValueError) as exc:
                raise DecodeError(f"event is not valid JSON: {exc}", rule="decode.json",
                                  index=index) from None
        else:
            data = obj
        return self.parse_data(data, index=index)

    def parse_data(self, data: Any, *, index: int | None = None) -> ParsedEvent:
        """The slow path: decoded JSON data through compatibility, enforcement, validation."""
        if not isinstance(data, dict):
            raise MalformedEventError(
                f"an event must be a JSON object, got {type(data).__name__}", path="",
                reason="not an object", rule="schema.not-an-object", index=index)
        warnings: list[PipelineWarning] = []
        data = self.boundary.translate(data, index, warnings)
        kind = data.get("type")
        if "type" not in data:
            raise MalformedEventError("event has no 'type'", path="/type",
                                      reason="required field is missing",
                                      rule="schema.missing-field", index=index)
        if not isinstance(kind, str):
            raise MalformedEventError(f"event 'type' must be a string, got {kind!r}",
                                      path="/type", reason="not a string",
                                      rule="schema.invalid-value", index=index)
        cls = _CLASS_BY_NAME.get(kind)
        if cls is None:
            warnings.append(PipelineWarning(
                index, "/type",
                f"unknown event type {kind!r} dropped (spec basic/processing: an unrecognised "
                f"event MUST NOT abort the run)"))
            return ParsedEvent(None, warnings)
        enforcer = _Enforcer(index, kind)
        try:
            stripped = enforcer.model(data, _model_shape(cls), "")
        except MalformedEventError as error:
            error.warnings = warnings + enforcer.warnings
            raise
        warnings.extend(enforcer.warnings)
        if stripped is _REMOVE:
            warnings.append(PipelineWarning(
                index, "", f"{kind} dropped: a required field held an unrecognised member"))
            return ParsedEvent(None, warnings)
        try:
            event = cls.model_validate(stripped, strict=True, by_alias=True, by_name=False)
        except ValidationError as exc:
            error = _malformed(exc, stripped, cls, index, kind)
            error.warnings = warnings  # what was stripped on the way still deserves a mention
            raise error from None
        parsed = self._checked(event, index)
        parsed.warnings[:0] = warnings
        return parsed

    @staticmethod
    def _checked(event: BaseEvent, index: int | None) -> ParsedEvent:
        warnings: list[PipelineWarning] = []
        if type(event) is RunStartedEvent and event.protocol_version is not None:
            w = _version_warning(event.protocol_version, index)
            if w is not None:
                warnings.append(w)
        return ParsedEvent(event, warnings)


def parse_event(obj: dict | str | bytes, *, index: int | None = None) -> ParsedEvent:
    """Parse one event (spec ``basic/processing``). For a whole stream use :class:`EventParser`.

    Returns a :class:`ParsedEvent` whose ``event`` is ``None`` when the event was dropped
    (unknown type). Raises :class:`MalformedEventError` (or :class:`PatchError`) for a
    malformed known value, :class:`DecodeError` for text that is not JSON.
    """
    return EventParser().parse(obj, index=index)


def parse_run_agent_input(obj: dict | str | bytes) -> tuple[RunAgentInput, list[PipelineWarning]]:
    """Parse a ``RunAgentInput`` under the same processing model as events.

    Spec ``basic/processing`` ("Outgoing material"): unrecognised material is stripped with a
    warning, a malformed known field is fatal (:class:`MalformedEventError`).
    """
    if isinstance(obj, (bytes, bytearray, str)):
        try:
            obj = json.loads(obj)
        except (UnicodeDecodeError, ValueError) as exc:
            raise DecodeError(f"run input is not valid JSON: {exc}", rule="decode.json") from None
    if not isinstance(obj, dict):
        raise MalformedEventError("RunAgentInput must be a JSON object", path="",
                                  reason="not an object", rule="schema.not-an-object")
    warnings: list[PipelineWarning] = []
    obj = CompatibilityBoundary()._input_nulls(obj, "", None, warnings)
    enforcer = _Enforcer(None, "RunAgentInput")
    stripped = enforcer.model(obj, _model_shape(RunAgentInput), "")
    warnings.extend(enforcer.warnings)
    try:
        value = RunAgentInput.model_validate(stripped, strict=True, by_alias=True, by_name=False)
    except ValidationError as exc:
        error = _malformed(exc, stripped, RunAgentInput, None, "RunAgentInput")
        error.warnings = warnings
        if warnings:  # e.g. `thread_id` stripped, then `threadId` missing: say why
            notes = "; ".join(f"{w.path}: {w.message}" for w in warnings[:3])
            error = type(error)(f"{error.message} (also: {notes})", path=error.path,
                                reason=error.reason, rule=error.rule)
            error.warnings = warnings
        raise error from None
    return value, warnings
