"""The AG-UI event model: 31 event types and their shared shapes, with wire serialisation.

Wire format: protocol 1.0 exactly as the official Python SDK ``ag-ui-protocol`` 1.0.0 ships
it (``ag_ui.core``), plus the one field spec 1.1 adds (``encryptedValueType``). Class names,
field order and JSON output mirror ``ag_ui.core``, so an event dumped here is byte-identical
to the same event dumped there and each side parses the other's JSON.

Theory of operation
-------------------
Every shape is a pydantic v2 model with snake_case attributes and camelCase wire aliases;
Python code may construct with either spelling. Serialising (:func:`dump_event`,
:func:`event_to_json`) omits optional fields that have no value — "absent means absent"
(spec ``basic/index``) — while a ``null`` that is *data* survives: ``STATE_SNAPSHOT.snapshot``,
``CUSTOM.value``, ``RAW.event`` and anything inside an open object (metadata, state, patch
values). Objects the protocol closes forbid unknown members; the few it leaves open (JSON
Patch operations, metadata, activity content, ``responseSchema``) keep them.

Reading events *from the wire* is not done by validating these models directly: the
processing model (spec ``basic/processing``) strips unrecognised material with warnings and
translates retired shapes first. That is :mod:`agentproto.agui.parse` (the parser),
:mod:`agentproto.agui.enforce` (the stripping walk) and :mod:`agentproto.agui.compat` (the
compatibility boundary). Their public names (:class:`~agentproto.agui.parse.EventParser`,
:func:`~agentproto.agui.parse.parse_event`, …) can still be imported from this module.
"""

from __future__ import annotations

import typing
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    model_serializer,
)
from pydantic.alias_generators import to_camel

__all__ = [
    "PROTOCOL_VERSION",
    "EventType",
    "BaseEvent",
    # lifecycle
    "RunStartedEvent",
    "RunFinishedEvent",
    "RunErrorEvent",
    "StepStartedEvent",
    "StepFinishedEvent",
    # text
    "TextMessageStartEvent",
    "TextMessageContentEvent",
    "TextMessageEndEvent",
    "TextMessageChunkEvent",
    # tools
    "ToolCallStartEvent",
    "ToolCallArgsEvent",
    "ToolCallEndEvent",
    "ToolCallChunkEvent",
    "ToolCallResultEvent",
    # state, messages, activity
    "StateSnapshotEvent",
    "StateDeltaEvent",
    "MessagesSnapshotEvent",
    "ActivitySnapshotEvent",
    "ActivityDeltaEvent",
    # reasoning
    "ReasoningStartEvent",
    "ReasoningEndEvent",
    "ReasoningMessageStartEvent",
    "ReasoningMessageContentEvent",
    "ReasoningMessageEndEvent",
    "ReasoningMessageChunkEvent",
    "ReasoningEncryptedValueEvent",
    # subagents, passthrough
    "SubagentStartedEvent",
    "SubagentFinishedEvent",
    "SubagentErrorEvent",
    "RawEvent",
    "CustomEvent",
    "Event",
    # shapes
    "TextMessageRole",
    "Role",
    "ReasoningEncryptedValueSubtype",
    "FunctionCall",
    "ToolCall",
    "DeveloperMessage",
    "SystemMessage",
    "AssistantMessage",
    "UserMessage",
    "ToolMessage",
    "ActivityMessage",
    "ReasoningMessage",
    "Message",
    "TextPart",
    "ImagePart",
    "AudioPart",
    "VideoPart",
    "DocumentPart",
    "ContentPart",
    "DataSource",
    "UrlSource",
    "FileSource",
    "PartSource",
    "AddOperation",
    "RemoveOperation",
    "ReplaceOperation",
    "MoveOperation",
    "CopyOperation",
    "TestOperation",
    "JsonPatchOperation",
    "JsonPatch",
    "Tool",
    "Context",
    "ResumeEntry",
    "RunAgentInput",
    "Interrupt",
    "TokenUsage",
    "RunFinishedSuccessOutcome",
    "RunFinishedInterruptOutcome",
    "RunFinishedCancelledOutcome",
    "RunFinishedOutcome",
    "SubagentFinishedSuccessOutcome",
    "SubagentFinishedSuspendedOutcome",
    "SubagentFinishedOutcome",
    # serialisation
    "EVENT_CLASSES",
    "dump_event",
    "event_to_json",
    "dump_model",
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
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
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


Metadata = dict[str, Any]
TextMessageRole = Literal["developer", "system", "assistant", "user"]
Role = Literal["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]
ReasoningEncryptedValueSubtype = Literal["tool-call", "message"]
_Timestamp = Annotated[int | None, Field(default=None, ge=-_JS_SAFE_INT, le=_JS_SAFE_INT)]
_Count = Annotated[int | None, Field(default=None, ge=0, le=_JS_SAFE_INT)]


class BaseEvent(_Model):
    """The envelope every event shares (spec ``basic/index``, "Events")."""

    type: EventType
    timestamp: _Timestamp = None
    raw_event: Any | None = None
    metadata: Metadata | None = None


class _Attributable(BaseEvent):
    """Events that may belong to a subagent's work carry an optional ``subagentRunId``."""

    subagent_run_id: str | None = None


# --------------------------------------------------------------------------------------------
# Content parts, messages, tools
# --------------------------------------------------------------------------------------------


class TextPart(_Model):
    type: Literal["text"] = "text"
    id: str | None = None
    text: str
    metadata: Any | None = None


class DataSource(_Model):
    """Bytes carried inline, base64-encoded."""

    type: Literal["data"] = "data"
    value: str
    mime_type: str


class UrlSource(_Model):
    type: Literal["url"] = "url"
    value: str
    mime_type: str | None = None


class FileSource(_Model):
    """A provider-issued handle: opaque, never dereferenced by a consumer."""

    type: Literal["file"] = "file"
    value: str
    provider: str | None = None
    mime_type: str | None = None


PartSource = Annotated[DataSource | UrlSource | FileSource, Field(discriminator="type")]


class ImagePart(_Model):
    type: Literal["image"] = "image"
    id: str | None = None
    source: PartSource
    metadata: Any | None = None


class AudioPart(_Model):
    type: Literal["audio"] = "audio"
    id: str | None = None
    source: PartSource
    metadata: Any | None = None


class VideoPart(_Model):
    type: Literal["video"] = "video"
    id: str | None = None
    source: PartSource
    metadata: Any | None = None


class DocumentPart(_Model):
    type: Literal["document"] = "document"
    id: str | None = None
    source: PartSource
    metadata: Any | None = None


ContentPart = Annotated[
    TextPart | ImagePart | AudioPart | VideoPart | DocumentPart, Field(discriminator="type")
]


class FunctionCall(_Model):
    name: str
    arguments: str


class ToolCall(_Model):
    """A call an assistant message made; ``arguments`` is JSON *text*, never parsed here."""

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall
    encrypted_value: str | None = None
    metadata: Metadata | None = None
    encrypted_value_type: str | None = None  # spec 1.1; last so 1.0 dumps stay identical


class DeveloperMessage(_Model):
    subagent_run_id: str | None = None
    id: str
    role: Literal["developer"] = "developer"
    name: str | None = None
    encrypted_value: str | None = None
    metadata: Metadata | None = None
    content: str
    encrypted_value_type: str | None = None


class SystemMessage(_Model):
    subagent_run_id: str | None = None
    id: str
    role: Literal["system"] = "system"
    name: str | None = None
    encrypted_value: str | None = None
    metadata: Metadata | None = None
    content: str
    encrypted_value_type: str | None = None


class AssistantMessage(_Model):
    subagent_run_id: str | None = None
    id: str
    role: Literal["assistant"] = "assistant"
    name: str | None = None
    encrypted_value: str | None = None
    metadata: Metadata | None = None
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    encrypted_value_type: str | None = None


class UserMessage(_Model):
    subagent_run_id: str | None = None
    id: str
    role: Literal["user"] = "user"
    name: str | None = None
    encrypted_value: str | None = None
    metadata: Metadata | None = None
    content: str | list[ContentPart]
    encrypted_value_type: str | None = None


class ToolMessage(_Model):
    subagent_run_id: str | None = None
    id: str
    role: Literal["tool"] = "tool"
    content: str | list[ContentPart]
    tool_call_id: str
    error: str | None = None
    encrypted_value: str | None = None
    metadata: Metadata | None = None
    encrypted_value_type: str | None = None


class ActivityMessage(_Model):
    """Structured progress kept in the message list; never sent back to the producer."""

    subagent_run_id: str | None = None
    id: str
    role: Literal["activity"] = "activity"
    activity_type: str
    content: dict[str, Any]
    metadata: Metadata | None = None


class ReasoningMessage(_Model):
    subagent_run_id: str | None = None
    id: str
    role: Literal["reasoning"] = "reasoning"
    content: str
    encrypted_value: str | None = None
    metadata: Metadata | None = None
    encrypted_value_type: str | None = None


Message = Annotated[
    (
        DeveloperMessage
        | SystemMessage
        | AssistantMessage
        | UserMessage
        | ToolMessage
        | ActivityMessage
        | ReasoningMessage
    ),
    Field(discriminator="role"),
]


class Tool(_Model):
    name: str
    description: str
    parameters: Any | None = None
    metadata: Metadata | None = None


class Context(_Model):
    description: str
    value: str


class ResumeEntry(_Model):
    """One answer to an interrupt, sent on the run that continues it (spec interrupt-resume)."""

    interrupt_id: str
    status: Literal["resolved", "cancelled"]
    payload: Any | None = None
    metadata: Metadata | None = None


class RunAgentInput(_Model):
    """The request that starts a run (spec ``basic/run-input``)."""

    thread_id: str
    run_id: str
    protocol_version: str | None = None
    parent_run_id: str | None = None
    state: Any | None = None
    messages: list[Message]
    tools: list[Tool] | None = None
    context: list[Context] | None = None
    forwarded_props: Any | None = None
    resume: list[ResumeEntry] | None = None


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
    AddOperation | RemoveOperation | ReplaceOperation | MoveOperation | CopyOperation | TestOperation,
    Field(discriminator="op"),
]
JsonPatch = list[JsonPatchOperation]


# --------------------------------------------------------------------------------------------
# Outcomes, interrupts, usage
# --------------------------------------------------------------------------------------------


class Interrupt(_Model):
    """Something a run needs from outside before it can continue (spec interrupt-resume)."""

    subagent_run_id: str | None = None
    id: str
    reason: str
    message: str | None = None
    tool_call_id: str | None = None
    response_schema: dict[str, Any] | None = None
    expires_at: str | None = None
    metadata: Metadata | None = None


class RunFinishedSuccessOutcome(_Model):
    type: Literal["success"] = "success"
    pending_tool_call_ids: list[str] | None = None


class RunFinishedInterruptOutcome(_Model):
    type: Literal["interrupt"] = "interrupt"
    interrupts: list[Interrupt] = Field(min_length=1)


class RunFinishedCancelledOutcome(_Model):
    type: Literal["cancelled"] = "cancelled"


RunFinishedOutcome = Annotated[
    RunFinishedSuccessOutcome | RunFinishedInterruptOutcome | RunFinishedCancelledOutcome,
    Field(discriminator="type"),
]


class TokenUsage(_Model):
    """Token counts for one provider/model; cached and reasoning counts are *parts* of totals."""

    provider: str | None = None
    model: str | None = None
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
    interrupt_ids: list[str] | None = None


SubagentFinishedOutcome = Annotated[
    SubagentFinishedSuccessOutcome | SubagentFinishedSuspendedOutcome,
    Field(discriminator="type"),
]


# --------------------------------------------------------------------------------------------
# The 31 events
# --------------------------------------------------------------------------------------------


class TextMessageStartEvent(_Attributable):
    type: Literal[EventType.TEXT_MESSAGE_START] = EventType.TEXT_MESSAGE_START
    message_id: str
    role: TextMessageRole | None = None  # absent means "assistant" (spec text-messages)
    name: str | None = None


class TextMessageContentEvent(_Attributable):
    type: Literal[EventType.TEXT_MESSAGE_CONTENT] = EventType.TEXT_MESSAGE_CONTENT
    message_id: str
    delta: str  # may be "" (keep-alives are legal)


class TextMessageEndEvent(_Attributable):
    type: Literal[EventType.TEXT_MESSAGE_END] = EventType.TEXT_MESSAGE_END
    message_id: str


class TextMessageChunkEvent(_Attributable):
    type: Literal[EventType.TEXT_MESSAGE_CHUNK] = EventType.TEXT_MESSAGE_CHUNK
    message_id: str | None = None
    role: TextMessageRole | None = None
    delta: str | None = None
    name: str | None = None


class ToolCallStartEvent(_Attributable):
    type: Literal[EventType.TOOL_CALL_START] = EventType.TOOL_CALL_START
    tool_call_id: str
    tool_call_name: str
    parent_message_id: str | None = None


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
    tool_call_id: str | None = None
    tool_call_name: str | None = None
    parent_message_id: str | None = None
    delta: str | None = None


class ToolCallResultEvent(_Attributable):
    """What a tool returned; mints a ``tool`` message with its own ``messageId``."""

    type: Literal[EventType.TOOL_CALL_RESULT] = EventType.TOOL_CALL_RESULT
    message_id: str
    tool_call_id: str
    content: str | list[ContentPart]
    role: Literal["tool"] | None = None


class StateSnapshotEvent(_Attributable):
    type: Literal[EventType.STATE_SNAPSHOT] = EventType.STATE_SNAPSHOT
    snapshot: Any  # any JSON value, null included


class StateDeltaEvent(_Attributable):
    type: Literal[EventType.STATE_DELTA] = EventType.STATE_DELTA
    delta: JsonPatch


class MessagesSnapshotEvent(BaseEvent):
    type: Literal[EventType.MESSAGES_SNAPSHOT] = EventType.MESSAGES_SNAPSHOT
    messages: list[Message]


class ActivitySnapshotEvent(_Attributable):
    type: Literal[EventType.ACTIVITY_SNAPSHOT] = EventType.ACTIVITY_SNAPSHOT
    message_id: str
    activity_type: str
    content: dict[str, Any]
    replace: bool | None = None  # absent means true


class ActivityDeltaEvent(_Attributable):
    type: Literal[EventType.ACTIVITY_DELTA] = EventType.ACTIVITY_DELTA
    message_id: str
    activity_type: str
    patch: JsonPatch


class RawEvent(_Attributable):
    type: Literal[EventType.RAW] = EventType.RAW
    event: Any
    source: str | None = None


class CustomEvent(_Attributable):
    type: Literal[EventType.CUSTOM] = EventType.CUSTOM
    name: str
    value: Any


class RunStartedEvent(BaseEvent):
    type: Literal[EventType.RUN_STARTED] = EventType.RUN_STARTED
    thread_id: str
    run_id: str
    protocol_version: str | None = None
    parent_run_id: str | None = None
    input: RunAgentInput | None = None


class RunFinishedEvent(BaseEvent):
    type: Literal[EventType.RUN_FINISHED] = EventType.RUN_FINISHED
    thread_id: str
    run_id: str
    result: Any | None = None
    outcome: RunFinishedOutcome | None = None  # absent means success
    usage: list[TokenUsage] | None = None


class RunErrorEvent(BaseEvent):
    type: Literal[EventType.RUN_ERROR] = EventType.RUN_ERROR
    message: str
    code: str | None = None
    usage: list[TokenUsage] | None = None


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
    #: Required and fixed: the 1.1 schema lists ``role`` under ``required`` with ``const``
    #: ``"reasoning"`` and no default, so a start event without it is malformed.
    role: Literal["reasoning"]


class ReasoningMessageContentEvent(_Attributable):
    type: Literal[EventType.REASONING_MESSAGE_CONTENT] = EventType.REASONING_MESSAGE_CONTENT
    message_id: str
    delta: str


class ReasoningMessageEndEvent(_Attributable):
    type: Literal[EventType.REASONING_MESSAGE_END] = EventType.REASONING_MESSAGE_END
    message_id: str


class ReasoningMessageChunkEvent(_Attributable):
    type: Literal[EventType.REASONING_MESSAGE_CHUNK] = EventType.REASONING_MESSAGE_CHUNK
    message_id: str | None = None
    delta: str | None = None


class ReasoningEndEvent(_Attributable):
    type: Literal[EventType.REASONING_END] = EventType.REASONING_END
    message_id: str


class ReasoningEncryptedValueEvent(_Attributable):
    type: Literal[EventType.REASONING_ENCRYPTED_VALUE] = EventType.REASONING_ENCRYPTED_VALUE
    subtype: ReasoningEncryptedValueSubtype
    entity_id: str
    encrypted_value: str
    encrypted_value_type: str | None = None  # spec 1.1


class SubagentStartedEvent(BaseEvent):
    type: Literal[EventType.SUBAGENT_STARTED] = EventType.SUBAGENT_STARTED
    subagent_run_id: str
    name: str
    description: str | None = None
    parent_subagent_run_id: str | None = None
    parent_tool_call_id: str | None = None
    parent_message_id: str | None = None


class SubagentFinishedEvent(BaseEvent):
    type: Literal[EventType.SUBAGENT_FINISHED] = EventType.SUBAGENT_FINISHED
    subagent_run_id: str
    result: Any | None = None
    outcome: SubagentFinishedOutcome | None = None


class SubagentErrorEvent(BaseEvent):
    type: Literal[EventType.SUBAGENT_ERROR] = EventType.SUBAGENT_ERROR
    subagent_run_id: str
    message: str
    code: str | None = None


Event = Annotated[
    (
        TextMessageStartEvent
        | TextMessageContentEvent
        | TextMessageEndEvent
        | TextMessageChunkEvent
        | ToolCallStartEvent
        | ToolCallArgsEvent
        | ToolCallEndEvent
        | ToolCallChunkEvent
        | ToolCallResultEvent
        | StateSnapshotEvent
        | StateDeltaEvent
        | MessagesSnapshotEvent
        | ActivitySnapshotEvent
        | ActivityDeltaEvent
        | RawEvent
        | CustomEvent
        | RunStartedEvent
        | RunFinishedEvent
        | RunErrorEvent
        | StepStartedEvent
        | StepFinishedEvent
        | ReasoningStartEvent
        | ReasoningMessageStartEvent
        | ReasoningMessageContentEvent
        | ReasoningMessageEndEvent
        | ReasoningMessageChunkEvent
        | ReasoningEndEvent
        | ReasoningEncryptedValueEvent
        | SubagentStartedEvent
        | SubagentFinishedEvent
        | SubagentErrorEvent
    ),
    Field(discriminator="type"),
]

#: ``EventType`` → model class, for all 31 types.
EVENT_CLASSES: dict[EventType, type[BaseEvent]] = {
    cls.model_fields["type"].default: cls for cls in typing.get_args(typing.get_args(Event)[0])
}
_CLASS_BY_NAME: dict[str, type[BaseEvent]] = {t.value: c for t, c in EVENT_CLASSES.items()}

_EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)
_validate_json = _EVENT_ADAPTER.validator.validate_json  # the pydantic-core call, no wrapper


# --------------------------------------------------------------------------------------------
# Serialisation
# --------------------------------------------------------------------------------------------


def dump_model(model: BaseModel) -> Any:
    """Any protocol model as wire-shaped JSON data (camelCase, absent optionals omitted)."""
    return model.model_dump(mode="json", by_alias=True)


def dump_event(event: BaseEvent) -> dict[str, Any]:
    """An event as a JSON-ready dict: camelCase keys, absent optionals dropped, data nulls kept."""
    return event.model_dump(mode="json", by_alias=True)


def event_to_json(event: BaseEvent) -> str:
    """An event as compact JSON text, exactly as ``ag_ui.core``'s ``model_dump_json(by_alias=True)``."""
    return event.model_dump_json(by_alias=True)
