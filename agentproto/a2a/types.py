"""A2A v1.0 data objects as pydantic models, in their ProtoJSON wire shape.

The normative definition of every object is ``specification/a2a.proto`` (package ``lf.a2a.v1``)
in the A2A repository; the JSON form is ProtoJSON (A2A ADR-001, spec §5.6):

* field names are the proto ``json_name`` — camelCase (``contextId``, ``lastChunk``);
* enums travel as their proto *names* (``TASK_STATE_WORKING``, ``ROLE_USER``); parsers also
  accept the enum numbers, as every ProtoJSON parser must;
* fields holding their default value are left out (``append: false``, empty lists, unset
  optionals), while fields the proto marks ``optional`` keep an explicitly set value even when it
  equals the default (``"streaming": false``) — :meth:`ProtoModel.to_wire` does exactly that;
* ``bytes`` are base64 strings, ``google.protobuf.Timestamp`` an RFC 3339 string with ``Z``,
  ``google.protobuf.Struct`` / ``Value`` plain JSON;
* unknown fields are ignored (spec §5.7), so a newer peer does not break an older one.

Every model accepts both the camelCase wire names and the snake_case Python names::

    >>> Message(message_id="m1", role=Role.USER, parts=[Part(text="hi")]).to_wire()
    {'messageId': 'm1', 'role': 'ROLE_USER', 'parts': [{'text': 'hi'}]}

One-of groups of the proto (``Part.content``, ``StreamResponse.payload``,
``SecurityScheme.scheme``, ``OAuthFlows.flow``) are validated: exactly one member must be set,
and the error names the members found. v0.3 shapes (``"kind": "text"``) are not v1.0; their
extra keys are ignored, and a v0.3 *file* part fails with a message saying what v1.0 expects.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
from collections.abc import Callable
from enum import Enum
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from agentproto.a2a.states import TaskState

__all__ = [
    "ProtoModel",
    "Role",
    "TaskState",
    "Part",
    "Message",
    "Artifact",
    "TaskStatus",
    "Task",
    "TaskStatusUpdateEvent",
    "TaskArtifactUpdateEvent",
    "StreamResponse",
    "SendMessageResponse",
    "AuthenticationInfo",
    "TaskPushNotificationConfig",
    "SendMessageConfiguration",
    "SendMessageRequest",
    "GetTaskRequest",
    "ListTasksRequest",
    "ListTasksResponse",
    "CancelTaskRequest",
    "SubscribeToTaskRequest",
    "GetTaskPushNotificationConfigRequest",
    "DeleteTaskPushNotificationConfigRequest",
    "ListTaskPushNotificationConfigsRequest",
    "ListTaskPushNotificationConfigsResponse",
    "GetExtendedAgentCardRequest",
    "AgentInterface",
    "AgentProvider",
    "AgentExtension",
    "AgentCapabilities",
    "AgentSkill",
    "AgentCardSignature",
    "StringList",
    "SecurityRequirement",
    "APIKeySecurityScheme",
    "HTTPAuthSecurityScheme",
    "AuthorizationCodeOAuthFlow",
    "ClientCredentialsOAuthFlow",
    "ImplicitOAuthFlow",
    "PasswordOAuthFlow",
    "DeviceCodeOAuthFlow",
    "OAuthFlows",
    "OAuth2SecurityScheme",
    "OpenIdConnectSecurityScheme",
    "MutualTlsSecurityScheme",
    "SecurityScheme",
    "AgentCard",
    "StreamEvent",
    "text_part",
    "data_part",
    "file_part",
    "url_part",
    "user_message",
    "agent_message",
    "parse_timestamp",
    "PROTOCOL_VERSION",
    "JSONRPC_BINDING",
]

#: The protocol version this package speaks (``A2A-Version`` header, ``AgentInterface``).
PROTOCOL_VERSION = "1.0"
#: ``AgentInterface.protocolBinding`` value of the JSON-RPC binding (spec §5.3, §9).
JSONRPC_BINDING = "JSONRPC"


# --------------------------------------------------------------------------- base class


class ProtoModel(BaseModel):
    """Base of every A2A object: camelCase on the wire, snake_case in Python, extras ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        validate_assignment=False,
    )

    def to_wire(self) -> dict[str, Any]:
        """The ProtoJSON dict: camelCase keys, enum names, default-valued fields omitted."""
        return self.model_dump(mode="json", by_alias=True, exclude_defaults=True)

    def to_json(self) -> str:
        """:meth:`to_wire` as compact JSON text, serialized in one pass (no dict in between)."""
        return self.model_dump_json(by_alias=True, exclude_defaults=True)

    @classmethod
    def from_wire(cls, data: Any) -> Self:
        """Parse a ProtoJSON dict (raises :class:`pydantic.ValidationError` on bad input)."""
        return cls.model_validate(data)


class _KeepsRequired(ProtoModel):
    """A model with REQUIRED fields whose zero value is legitimate (``[]``, ``""``, ``0``).

    ProtoJSON writers drop zero values, so parsers must accept these fields missing (they
    default to empty here); but we *write* them even when empty, as the spec's field-presence
    rule for canonical JSON asks (§8.4.1: REQUIRED fields are always present).
    """

    KEEP: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _keep_required(self, handler: Any, info: Any) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if info.exclude_defaults:
            for name in self.KEEP:
                key = to_camel(name) if info.by_alias else name
                data.setdefault(key, getattr(self, name))
        return data


# --------------------------------------------------------------------------- scalars


def _enum_from_wire(enum_cls: type[Enum]) -> Callable[[Any], Any]:
    """ProtoJSON enums arrive as names (``"ROLE_USER"``) or numbers (``1``); accept both."""
    members = list(enum_cls)

    def convert(value: Any) -> Any:
        if isinstance(value, bool):  # bool is an int; never a valid enum here
            return value
        if isinstance(value, int) and 0 <= value < len(members):
            return members[value]
        return value

    return convert


class Role(str, Enum):
    """``lf.a2a.v1.Role``: who wrote a message. ``ROLE_USER`` is client → server."""

    UNSPECIFIED = "ROLE_UNSPECIFIED"
    USER = "ROLE_USER"
    AGENT = "ROLE_AGENT"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


WireTaskState = Annotated[TaskState, BeforeValidator(_enum_from_wire(TaskState))]
WireRole = Annotated[Role, BeforeValidator(_enum_from_wire(Role))]


def parse_timestamp(value: str) -> _dt.datetime:
    """Parse a ProtoJSON ``google.protobuf.Timestamp`` (RFC 3339, ``Z`` or an offset)."""
    try:
        parsed = _dt.datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise ValueError(f"not an RFC 3339 timestamp: {value!r}") from None
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp needs a time zone ('Z' or an offset): {value!r}")
    return parsed


def _check_timestamp(value: str) -> str:
    parse_timestamp(value)
    return value


def _b64decode(value: str) -> bytes:
    """Decode ProtoJSON bytes: standard or URL-safe alphabet, padding optional."""
    normal = value.replace("-", "+").replace("_", "/")
    return base64.b64decode(normal + "=" * (-len(normal) % 4), validate=True)


def _check_base64(value: str) -> str:
    try:
        _b64decode(value)
    except (binascii.Error, ValueError):
        raise ValueError("'raw' must be base64-encoded bytes") from None
    return value


Timestamp = Annotated[str, AfterValidator(_check_timestamp)]
Base64 = Annotated[str, AfterValidator(_check_base64)]
Struct = dict[str, Any]


def _one_of(model: BaseModel, group: str, members: tuple[str, ...], *, required: bool) -> None:
    """Enforce a proto ``oneof``: at most one member set (exactly one if ``required``)."""
    present = [m for m in members if getattr(model, m) is not None]
    if len(present) == 1 or (not present and not required):
        return
    wire = ", ".join(to_camel(m) for m in members)
    found = " and ".join(to_camel(m) for m in present) if present else "none"
    raise ValueError(f"{type(model).__name__}.{group} is a oneof: set exactly one of {wire}; got {found}")


# --------------------------------------------------------------------------- content


def _joined_text(parts: list[Part]) -> str:
    return "".join(p.text for p in parts if p.text is not None)


def _data_values(parts: list[Part]) -> list[Any]:
    return [p.data for p in parts if p.kind == "data"]


class Part(ProtoModel):
    """The smallest unit of content (proto ``Part``, spec §4.1.6).

    v1.0 has no ``kind`` field: the member present — ``text``, ``raw`` (base64 bytes), ``url`` or
    ``data`` (any JSON value) — *is* the discriminator, and exactly one must be set. Each member
    is readable directly: ``part.text`` (a string), ``part.raw_bytes`` (the decoded bytes),
    ``part.url``, and ``part.data`` — the parsed JSON value of a data part (a dict, list,
    number, string or bool), ``None`` for every other kind of part.
    """

    text: str | None = None
    raw: Base64 | None = None
    url: str | None = None
    data: Any = None
    metadata: Struct = Field(default_factory=dict)
    filename: str = ""
    media_type: str = ""

    CONTENT: ClassVar[tuple[str, ...]] = ("text", "raw", "url", "data")

    @model_validator(mode="before")
    @classmethod
    def _explain_v03(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("kind") == "file" and "file" in data:
            raise ValueError(
                "v0.3 file part ({'kind': 'file', 'file': {...}}) is not A2A v1.0: "
                "use {'raw': <base64>} or {'url': ...} with 'filename' and 'mediaType'"
            )
        return data

    @model_validator(mode="after")
    def _exactly_one_content(self) -> Self:
        _one_of(self, "content", self.CONTENT, required=True)
        return self

    @property
    def kind(self) -> str:
        """Which content member is set: ``"text"``, ``"raw"``, ``"url"`` or ``"data"``."""
        return next(m for m in self.CONTENT if getattr(self, m) is not None)

    @property
    def raw_bytes(self) -> bytes | None:
        """The decoded ``raw`` content (``None`` if this is not a raw part)."""
        return None if self.raw is None else _b64decode(self.raw)


class Message(ProtoModel):
    """One communication turn (proto ``Message``, spec §4.1.4).

    ``messageId`` is set by the message's creator; ``taskId`` only once a task exists.
    """

    message_id: str
    context_id: str = ""
    task_id: str = ""
    role: WireRole
    parts: list[Part] = Field(min_length=1)
    metadata: Struct = Field(default_factory=dict)
    extensions: list[str] = Field(default_factory=list)
    reference_task_ids: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _role_is_set(self) -> Self:
        if self.role is Role.UNSPECIFIED:
            raise ValueError("Message.role is REQUIRED: ROLE_USER or ROLE_AGENT")
        return self

    @property
    def text(self) -> str:
        """The ``text`` parts joined, in order; raw, URL and data parts are not included
        (read those with :attr:`data` or from :attr:`parts`)."""
        return _joined_text(self.parts)

    @property
    def data(self) -> list[Any]:
        """The parsed values of the ``data`` parts, in order (``[]`` if there are none)."""
        return _data_values(self.parts)


class Artifact(ProtoModel):
    """An output of a task (proto ``Artifact``, spec §4.1.7); ``artifactId`` is unique per task."""

    artifact_id: str
    name: str = ""
    description: str = ""
    parts: list[Part] = Field(min_length=1)
    metadata: Struct = Field(default_factory=dict)
    extensions: list[str] = Field(default_factory=list)

    @property
    def text(self) -> str:
        """The ``text`` parts joined, in order. Data, raw and URL parts are **not** included:
        a structured result (``data_part``) is read with :attr:`data`."""
        return _joined_text(self.parts)

    @property
    def data(self) -> list[Any]:
        """The parsed JSON values of the artifact's ``data`` parts, in order (``[]`` if none).

        >>> Artifact(artifact_id="a", parts=[data_part({"ok": True})]).data
        [{'ok': True}]
        """
        return _data_values(self.parts)


class TaskStatus(ProtoModel):
    """Where a task is now (proto ``TaskStatus``): a state, an optional message, a time."""

    state: WireTaskState
    message: Message | None = None
    timestamp: Timestamp | None = None

    @model_validator(mode="after")
    def _state_is_set(self) -> Self:
        if self.state is TaskState.UNSPECIFIED:
            raise ValueError("TaskStatus.state is REQUIRED and may not be TASK_STATE_UNSPECIFIED")
        return self


class Task(ProtoModel):
    """The unit of work (proto ``Task``, spec §4.1.1). ``id`` is always server-generated."""

    id: str
    context_id: str = ""
    status: TaskStatus
    artifacts: list[Artifact] = Field(default_factory=list)
    history: list[Message] = Field(default_factory=list)
    metadata: Struct = Field(default_factory=dict)

    @property
    def state(self) -> TaskState:
        return self.status.state


class TaskStatusUpdateEvent(ProtoModel):
    """A status change pushed on a stream or webhook (v0.3's ``final``/``kind`` are gone)."""

    task_id: str
    context_id: str
    status: TaskStatus
    metadata: Struct = Field(default_factory=dict)


class TaskArtifactUpdateEvent(ProtoModel):
    """An artifact, or a chunk of one: ``append`` adds parts to the same ``artifactId``."""

    task_id: str
    context_id: str
    artifact: Artifact
    append: bool = False
    last_chunk: bool = False
    metadata: Struct = Field(default_factory=dict)


class StreamResponse(ProtoModel):
    """One item of a stream (and the body of a push notification): exactly one payload."""

    task: Task | None = None
    message: Message | None = None
    status_update: TaskStatusUpdateEvent | None = None
    artifact_update: TaskArtifactUpdateEvent | None = None

    PAYLOAD: ClassVar[tuple[str, ...]] = ("task", "message", "status_update", "artifact_update")

    @model_validator(mode="after")
    def _exactly_one_payload(self) -> Self:
        _one_of(self, "payload", self.PAYLOAD, required=True)
        return self

    @property
    def kind(self) -> str:
        """``"task"``, ``"message"``, ``"statusUpdate"`` or ``"artifactUpdate"``."""
        return to_camel(next(m for m in self.PAYLOAD if getattr(self, m) is not None))

    @property
    def payload(self) -> Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent:
        item: StreamEvent = next(getattr(self, m) for m in self.PAYLOAD if getattr(self, m) is not None)
        return item

    @classmethod
    def wrap(cls, item: StreamEvent) -> StreamResponse:
        """Put a Task, Message or update event in the matching payload slot."""
        if isinstance(item, Task):
            return cls(task=item)
        if isinstance(item, Message):
            return cls(message=item)
        if isinstance(item, TaskStatusUpdateEvent):
            return cls(status_update=item)
        if isinstance(item, TaskArtifactUpdateEvent):
            return cls(artifact_update=item)
        raise TypeError(f"not a stream payload: {type(item).__name__}")


StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent


class SendMessageResponse(ProtoModel):
    """The result of ``SendMessage``: a Task, or a direct Message (spec §3.1.1)."""

    task: Task | None = None
    message: Message | None = None

    @model_validator(mode="after")
    def _exactly_one_payload(self) -> Self:
        _one_of(self, "payload", ("task", "message"), required=True)
        return self

    @property
    def payload(self) -> Task | Message:
        return self.task if self.task is not None else self.message  # type: ignore[return-value]


# --------------------------------------------------------------------------- push notifications


class AuthenticationInfo(ProtoModel):
    """Credentials the agent sends to a webhook: ``Authorization: <scheme> <credentials>``."""

    scheme: str
    credentials: str = ""


class TaskPushNotificationConfig(ProtoModel):
    """A webhook for one task (spec §3.1.7, §4.3). Only ``url`` is required; the server sets ``id``."""

    tenant: str = ""
    id: str = ""
    task_id: str = ""
    url: str
    token: str = ""
    authentication: AuthenticationInfo | None = None


# --------------------------------------------------------------------------- requests


class SendMessageConfiguration(ProtoModel):
    """How the client wants the answer (spec §3.2.2): ``returnImmediately`` replaces v0.3's ``blocking``."""

    accepted_output_modes: list[str] = Field(default_factory=list)
    task_push_notification_config: TaskPushNotificationConfig | None = None
    history_length: int | None = None
    return_immediately: bool = False


class SendMessageRequest(ProtoModel):
    """``SendMessage`` / ``SendStreamingMessage`` params."""

    tenant: str = ""
    message: Message
    configuration: SendMessageConfiguration | None = None
    metadata: Struct = Field(default_factory=dict)


class GetTaskRequest(ProtoModel):
    tenant: str = ""
    id: str
    history_length: int | None = None


class ListTasksRequest(ProtoModel):
    """``ListTasks`` params (spec §3.1.4): filters, cursor paging, history and artifact trimming."""

    tenant: str = ""
    context_id: str = ""
    status: WireTaskState = TaskState.UNSPECIFIED
    page_size: int | None = None
    page_token: str = ""
    history_length: int | None = None
    status_timestamp_after: Timestamp | None = None
    include_artifacts: bool | None = None


class ListTasksResponse(_KeepsRequired):
    """A page of tasks. All four fields are REQUIRED, so they are always on the wire
    (``nextPageToken`` is ``""`` on the last page, spec §3.1.4)."""

    KEEP = ("tasks", "next_page_token", "page_size", "total_size")

    tasks: list[Task] = Field(default_factory=list)
    next_page_token: str = ""
    page_size: int = 0
    total_size: int = 0


class CancelTaskRequest(ProtoModel):
    tenant: str = ""
    id: str
    metadata: Struct = Field(default_factory=dict)


class SubscribeToTaskRequest(ProtoModel):
    tenant: str = ""
    id: str


class GetTaskPushNotificationConfigRequest(ProtoModel):
    tenant: str = ""
    task_id: str
    id: str


class DeleteTaskPushNotificationConfigRequest(ProtoModel):
    tenant: str = ""
    task_id: str
    id: str


class ListTaskPushNotificationConfigsRequest(ProtoModel):
    tenant: str = ""
    task_id: str
    page_size: int = 0
    page_token: str = ""


class ListTaskPushNotificationConfigsResponse(ProtoModel):
    configs: list[TaskPushNotificationConfig] = Field(default_factory=list)
    next_page_token: str = ""


class GetExtendedAgentCardRequest(ProtoModel):
    tenant: str = ""


# --------------------------------------------------------------------------- Agent Card


class AgentInterface(ProtoModel):
    """Where and how to reach the agent: URL, binding (``JSONRPC``, ``GRPC``, ``HTTP+JSON``), version."""

    url: str
    protocol_binding: str
    tenant: str = ""
    protocol_version: str


class AgentProvider(ProtoModel):
    url: str
    organization: str


class AgentExtension(ProtoModel):
    uri: str = ""
    description: str = ""
    required: bool = False
    params: Struct = Field(default_factory=dict)


class AgentCapabilities(ProtoModel):
    """Optional features. Each flag is a proto ``optional``: absent means "not supported"."""

    streaming: bool | None = None
    push_notifications: bool | None = None
    extensions: list[AgentExtension] = Field(default_factory=list)
    extended_agent_card: bool | None = None


class StringList(ProtoModel):
    """A list of scope names; the wire key is ``list`` (``values`` in Python)."""

    values: list[str] = Field(default_factory=list, alias="list")


class SecurityRequirement(ProtoModel):
    """Scheme name → required scopes, e.g. ``{"schemes": {"oauth": {"list": ["read"]}}}``."""

    schemes: dict[str, StringList] = Field(default_factory=dict)


class AgentSkill(_KeepsRequired):
    KEEP = ("tags",)

    id: str
    name: str
    description: str
    tags: list[str] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)
    input_modes: list[str] = Field(default_factory=list)
    output_modes: list[str] = Field(default_factory=list)
    security_requirements: list[SecurityRequirement] = Field(default_factory=list)


class AgentCardSignature(ProtoModel):
    """A JWS over the canonical card (spec §8.4): base64url ``protected`` header and ``signature``."""

    protected: str
    signature: str
    header: Struct = Field(default_factory=dict)


class APIKeySecurityScheme(ProtoModel):
    description: str = ""
    location: str
    name: str


class HTTPAuthSecurityScheme(ProtoModel):
    description: str = ""
    scheme: str
    bearer_format: str = ""


class AuthorizationCodeOAuthFlow(_KeepsRequired):
    KEEP = ("scopes",)

    authorization_url: str
    token_url: str
    refresh_url: str = ""
    scopes: dict[str, str] = Field(default_factory=dict)
    pkce_required: bool = False


class ClientCredentialsOAuthFlow(_KeepsRequired):
    KEEP = ("scopes",)

    token_url: str
    refresh_url: str = ""
    scopes: dict[str, str] = Field(default_factory=dict)


class ImplicitOAuthFlow(ProtoModel):
    """Deprecated by OAuth 2.1; kept because the proto keeps it."""

    authorization_url: str = ""
    refresh_url: str = ""
    scopes: dict[str, str] = Field(default_factory=dict)


class PasswordOAuthFlow(ProtoModel):
    """Deprecated by OAuth 2.1; kept because the proto keeps it."""

    token_url: str = ""
    refresh_url: str = ""
    scopes: dict[str, str] = Field(default_factory=dict)


class DeviceCodeOAuthFlow(_KeepsRequired):
    KEEP = ("scopes",)

    device_authorization_url: str
    token_url: str
    refresh_url: str = ""
    scopes: dict[str, str] = Field(default_factory=dict)


class OAuthFlows(ProtoModel):
    authorization_code: AuthorizationCodeOAuthFlow | None = None
    client_credentials: ClientCredentialsOAuthFlow | None = None
    implicit: ImplicitOAuthFlow | None = None
    password: PasswordOAuthFlow | None = None
    device_code: DeviceCodeOAuthFlow | None = None

    @model_validator(mode="after")
    def _one_flow(self) -> Self:
        _one_of(
            self,
            "flow",
            ("authorization_code", "client_credentials", "implicit", "password", "device_code"),
            required=True,
        )
        return self


class OAuth2SecurityScheme(ProtoModel):
    description: str = ""
    flows: OAuthFlows
    oauth2_metadata_url: str = ""


class OpenIdConnectSecurityScheme(ProtoModel):
    description: str = ""
    open_id_connect_url: str


class MutualTlsSecurityScheme(ProtoModel):
    description: str = ""


class SecurityScheme(ProtoModel):
    """One of the five scheme kinds, keyed by its wire name (``httpAuthSecurityScheme`` …)."""

    api_key_security_scheme: APIKeySecurityScheme | None = None
    http_auth_security_scheme: HTTPAuthSecurityScheme | None = None
    oauth2_security_scheme: OAuth2SecurityScheme | None = None
    open_id_connect_security_scheme: OpenIdConnectSecurityScheme | None = None
    mtls_security_scheme: MutualTlsSecurityScheme | None = None

    @model_validator(mode="after")
    def _one_scheme(self) -> Self:
        _one_of(
            self,
            "scheme",
            (
                "api_key_security_scheme",
                "http_auth_security_scheme",
                "oauth2_security_scheme",
                "open_id_connect_security_scheme",
                "mtls_security_scheme",
            ),
            required=True,
        )
        return self


class AgentCard(_KeepsRequired):
    """The agent's self-description, served at ``/.well-known/agent-card.json`` (spec §4.4, §8).

    v1.0 dropped v0.3's top-level ``url``/``preferredTransport``/``protocolVersion``: the
    endpoints are the ``supportedInterfaces``, in order of preference.
    """

    KEEP = ("supported_interfaces", "default_input_modes", "default_output_modes", "skills")

    name: str
    description: str
    supported_interfaces: list[AgentInterface] = Field(default_factory=list)
    provider: AgentProvider | None = None
    version: str
    documentation_url: str | None = None
    capabilities: AgentCapabilities
    security_schemes: dict[str, SecurityScheme] = Field(default_factory=dict)
    security_requirements: list[SecurityRequirement] = Field(default_factory=list)
    default_input_modes: list[str] = Field(default_factory=list)
    default_output_modes: list[str] = Field(default_factory=list)
    skills: list[AgentSkill] = Field(default_factory=list)
    signatures: list[AgentCardSignature] = Field(default_factory=list)
    icon_url: str | None = None

    def interface(
        self, binding: str = JSONRPC_BINDING, version: str = PROTOCOL_VERSION
    ) -> AgentInterface | None:
        """The first declared interface with this binding and major.minor version (spec §8.3.2)."""
        want = version.split(".")[:2]
        for itf in self.supported_interfaces:
            if itf.protocol_binding == binding and itf.protocol_version.split(".")[:2] == want:
                return itf
        return None


# --------------------------------------------------------------------------- helpers


def text_part(text: str, **kw: Any) -> Part:
    """``{"text": ...}``."""
    return Part(text=text, **kw)


def data_part(data: Any, *, media_type: str = "application/json", **kw: Any) -> Part:
    """``{"data": ..., "mediaType": "application/json"}`` — structured JSON content."""
    return Part(data=data, media_type=media_type, **kw)


def file_part(content: bytes, *, filename: str = "", media_type: str = "", **kw: Any) -> Part:
    """Inline bytes: ``{"raw": <base64>, "filename": ..., "mediaType": ...}``."""
    return Part(raw=base64.b64encode(content).decode("ascii"), filename=filename, media_type=media_type, **kw)


def url_part(url: str, *, filename: str = "", media_type: str = "", **kw: Any) -> Part:
    """A file by reference: ``{"url": ..., "filename": ..., "mediaType": ...}``."""
    return Part(url=url, filename=filename, media_type=media_type, **kw)


def _message(role: Role, content: str | Part | list[Part], message_id: str, **kw: Any) -> Message:
    if not message_id:
        raise ValueError(
            "message_id is REQUIRED: the message's creator picks it (e.g. from an "
            "IdFactory in tests, agentproto.system.uuid_ids in production)"
        )
    if isinstance(content, str):
        parts = [Part(text=content)]
    elif isinstance(content, Part):
        parts = [content]
    else:
        parts = list(content)
    return Message(message_id=message_id, role=role, parts=parts, **kw)


def user_message(content: str | Part | list[Part], *, message_id: str, **kw: Any) -> Message:
    """A ``ROLE_USER`` message. ``message_id`` is required: the creator sets it (spec §4.1.4),
    and this module mints no ids — the clients draw one from their injected id source."""
    return _message(Role.USER, content, message_id, **kw)


def agent_message(content: str | Part | list[Part], *, message_id: str, **kw: Any) -> Message:
    """A ``ROLE_AGENT`` message (``message_id`` required, as for :func:`user_message`)."""
    return _message(Role.AGENT, content, message_id, **kw)
