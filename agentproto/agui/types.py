"""The objects AG-UI events carry, and the run input: every protocol shape that is not an event.

Content parts and their sources, the seven message roles, tool calls, tools and context, the
``RunAgentInput`` that starts a run and the ``resume`` entries that continue one, the six
JSON Patch (RFC 6902) operations, interrupts, run and subagent outcomes and token usage —
all on the closed model base (:class:`_Model`: camelCase aliases, unknown members rejected,
"absent means absent" on output) or its open variant for the objects the schema leaves open.
:mod:`agentproto.agui.events` builds the 31 events on the same base and re-exports every
public name here, so ``agentproto.agui.events.RunAgentInput`` and friends still work.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.alias_generators import to_camel

__all__ = [
    "Metadata",
    "TextMessageRole",
    "Role",
    "ReasoningEncryptedValueSubtype",
    "TextPart",
    "DataSource",
    "UrlSource",
    "FileSource",
    "PartSource",
    "ImagePart",
    "AudioPart",
    "VideoPart",
    "DocumentPart",
    "ContentPart",
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
    "Tool",
    "Context",
    "ResumeEntry",
    "RunAgentInput",
    "JsonPointer",
    "AddOperation",
    "RemoveOperation",
    "ReplaceOperation",
    "MoveOperation",
    "CopyOperation",
    "TestOperation",
    "JsonPatchOperation",
    "JsonPatch",
    "Interrupt",
    "RunFinishedSuccessOutcome",
    "RunFinishedInterruptOutcome",
    "RunFinishedCancelledOutcome",
    "RunFinishedOutcome",
    "TokenUsage",
    "SubagentFinishedSuccessOutcome",
    "SubagentFinishedSuspendedOutcome",
    "SubagentFinishedOutcome",
]

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


Metadata = dict[str, Any]
TextMessageRole = Literal["developer", "system", "assistant", "user"]
Role = Literal["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]
ReasoningEncryptedValueSubtype = Literal["tool-call", "message"]
_Count = Annotated[int | None, Field(default=None, ge=0, le=_JS_SAFE_INT)]


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
