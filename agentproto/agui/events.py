"""The AG-UI event model: the 31 event types, their union and registry, and wire serialisation.

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
:mod:`agentproto.agui._enforce` (the stripping walk) and :mod:`agentproto.agui._compat` (the
compatibility boundary); their public names are re-exported by :mod:`agentproto.agui`.

What events carry (messages, content parts, tools, ``RunAgentInput``, JSON Patch operations,
outcomes, interrupts, usage) and the model base are in :mod:`agentproto.agui.types`; this
module re-exports those names, so ``agentproto.agui.events.RunAgentInput`` still works.
"""

from __future__ import annotations

import typing
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from agentproto.agui.types import (  # noqa: F401 - re-exported: the event model's vocabulary
    _JS_SAFE_INT,
    ActivityMessage,
    AddOperation,
    AssistantMessage,
    AudioPart,
    ContentPart,
    Context,
    CopyOperation,
    DataSource,
    DeveloperMessage,
    DocumentPart,
    FileSource,
    FunctionCall,
    ImagePart,
    Interrupt,
    JsonPatch,
    JsonPatchOperation,
    JsonPointer,
    Message,
    Metadata,
    MoveOperation,
    PartSource,
    ReasoningEncryptedValueSubtype,
    ReasoningMessage,
    RemoveOperation,
    ReplaceOperation,
    ResumeEntry,
    Role,
    RunAgentInput,
    RunFinishedCancelledOutcome,
    RunFinishedInterruptOutcome,
    RunFinishedOutcome,
    RunFinishedSuccessOutcome,
    SubagentFinishedOutcome,
    SubagentFinishedSuccessOutcome,
    SubagentFinishedSuspendedOutcome,
    SystemMessage,
    TestOperation,
    TextMessageRole,
    TextPart,
    TokenUsage,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
    VideoPart,
    _Model,
)

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


_Timestamp = Annotated[int | None, Field(default=None, ge=-_JS_SAFE_INT, le=_JS_SAFE_INT)]


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
