"""The HTTP + protobuf binding, sans-I/O, and an in-process custom transport (spec 1.1
``basic/transports/http-protobuf`` and ``basic/transports/index`` › Custom transports).

The binding shares the SSE binding's request (the same JSON ``POST``) and differs only in the
response. This module does the three things that difference needs, on bytes, without sockets:

* **Negotiation** — :func:`admits_protobuf` reads a request's ``Accept`` header the way the
  spec's "Negotiation" section does (admission opts in, wildcards admit, relative quality
  between the two media types is not consulted, only a positive quality admits) plus two
  readings of the kit's own (the most specific matching range decides, so
  ``…+proto;q=0, */*`` does not admit; no header admits nothing), :func:`negotiate`
  picks the response ``Content-Type`` (SSE whenever protobuf is not admitted or not
  supported), and :func:`parser_for` is the consumer choosing its parser by that header.
* **Framing** — :func:`encode_frame` prefixes one encoded event with its length as an unsigned
  32-bit big-endian integer; :class:`FrameDecoder` is fed arbitrary chunks and returns whole
  frames. A body that ends mid-frame is a *truncated run*, not malformed material:
  :meth:`FrameDecoder.close` raises :class:`FrameTruncatedError`, which is deliberately not a
  :class:`~agentproto.agui.errors.DecodeError`.
* **The wire schema** — a *subset* of the official ``ag_ui.Event`` message, built in code with
  the protobuf runtime (``descriptor_pb2`` and ``message_factory``; imported on first use, so
  framing works without it). Field numbers follow the spec repository's 1.1 wire freeze
  (``spec/1.1/proto-freeze.txt``); field types follow the official ``events.proto`` of the
  TypeScript SDK's proto package. Only the fields both sources agree on are modelled (see
  :data:`MODELLED`); :func:`encode_event` refuses anything else with
  :class:`UnmodelledFieldError` rather than dropping it silently. The kit does **not** replay
  the spec's canonical byte corpus, and interoperability with an official encoder is not
  tested: treat the bytes as this kit's rendering of the official schema, not as a
  certified encoder.

:class:`ProtobufDecoder` turns a response body into event objects (JSON-shaped ``dict`` s, as
an SSE payload would parse) and nothing more: judging them is the shared pipeline's job (spec
``basic/processing`` › Every transport answers the same way). :func:`lint_protobuf` runs a
body through :class:`~agentproto.agui.pipeline.Pipeline`, so a run reaches the same verdict
whichever binding carried it.

:class:`MessageChannel`, :func:`serve_over_channel` and :func:`consume_channel` are the kit's
demonstration of a *custom* transport: an in-process, ordered queue of messages that satisfies
the binding contract (input first, ordered delivery, an explicit end message distinct from
truncation, a refusal before any event) and carries one event JSON object per message, as the
spec recommends for a JSON-carrying custom transport.
"""

from __future__ import annotations

import json
import struct
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from agentproto.agui.errors import AGUIError, DecodeError, MalformedEventError, PipelineWarning
from agentproto.agui.events import BaseEvent, dump_event
from agentproto.agui.pipeline import LintReport, Pipeline

__all__ = [
    "PROTOBUF_MEDIA_TYPE",
    "SSE_MEDIA_TYPE",
    "MODELLED",
    "FrameTruncatedError",
    "MalformedFrameError",
    "ContentTypeError",
    "UnmodelledFieldError",
    "admits_protobuf",
    "negotiate",
    "parser_for",
    "encode_frame",
    "FrameDecoder",
    "encode_event",
    "decode_event",
    "encode_stream",
    "ProtobufDecoder",
    "lint_protobuf",
    "MessageChannel",
    "serve_over_channel",
    "consume_channel",
]

#: The binding's media type (``basic/transports/http-protobuf`` › Negotiation).
PROTOBUF_MEDIA_TYPE = "application/vnd.ag-ui.event+proto"
#: The SSE binding's media type, the one every HTTP producer MUST be able to answer with.
SSE_MEDIA_TYPE = "text/event-stream"

_HEADER = struct.Struct(">I")  # unsigned 32-bit, big-endian (› Framing)


# -- errors ------------------------------------------------------------------------------------
class FrameTruncatedError(AGUIError):
    """The body ended inside a frame: a truncated run (spec › Framing), not malformed bytes.

    ``expected`` is the frame's announced length (``None`` if the body ended inside the 4-byte
    header), ``received`` how many bytes of that frame (or header) arrived.
    """

    rule = "transport.truncated-frame"

    def __init__(self, message: str, *, expected: int | None, received: int) -> None:
        super().__init__(message)
        self.expected = expected
        self.received = received


class MalformedFrameError(DecodeError):
    """A whole frame whose bytes do not decode as an ``Event`` message: fatal to the stream."""

    rule = "decode.protobuf"


class ContentTypeError(AGUIError):
    """A response whose ``Content-Type`` names neither binding: the consumer has no parser."""

    rule = "transport.content-type"


class UnmodelledFieldError(AGUIError):
    """The kit's wire-schema subset has no slot for this event type or field (see ``MODELLED``)."""

    rule = "wire.unmodelled"


# -- negotiation -------------------------------------------------------------------------------
def _ranges(accept: str) -> list[tuple[str, float]]:
    """``(media range, q)`` for each entry of an ``Accept`` header (parameters other than q dropped)."""
    out = []
    for entry in accept.split(","):
        parts = [p.strip() for p in entry.split(";")]
        if not parts[0]:
            continue
        q = 1.0
        for param in parts[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        out.append((parts[0].lower(), q))
    return out


def admits_protobuf(accept: str | None) -> bool:
    """Does this ``Accept`` admit the protobuf media type with a positive quality?

    Quality is used only as admitted-or-not, never to rank protobuf against SSE (the spec's
    rule). Two readings are the kit's, since the spec speaks only of what an ``Accept``
    admits: the most specific matching range decides (``…+proto;q=0, */*`` does not admit),
    and no header admits nothing.
    """
    if not accept:
        return False
    best: tuple[int, float] | None = None  # (specificity, q)
    for media_range, q in _ranges(accept):
        if media_range == PROTOBUF_MEDIA_TYPE:
            rank = 2
        elif media_range == "application/*":
            rank = 1
        elif media_range == "*/*":
            rank = 0
        else:
            continue
        if best is None or rank > best[0]:
            best = (rank, q)
    return best is not None and best[1] > 0


def negotiate(accept: str | None, *, supports_protobuf: bool = True) -> str:
    """The ``Content-Type`` a producer answers with: protobuf if admitted and supported, else SSE.

    The spec gives no third answer: a producer MUST answer SSE whenever it does not answer
    protobuf, so even ``Accept: application/json`` gets ``text/event-stream``.
    """
    if supports_protobuf and admits_protobuf(accept):
        return PROTOBUF_MEDIA_TYPE
    return SSE_MEDIA_TYPE


def parser_for(content_type: str) -> str:
    """``"protobuf"`` or ``"sse"``: the consumer selects its parser by the response header."""
    media = content_type.split(";")[0].strip().lower()
    if media == PROTOBUF_MEDIA_TYPE:
        return "protobuf"
    if media == SSE_MEDIA_TYPE:
        return "sse"
    raise ContentTypeError(
        f"the response's Content-Type {content_type!r} names neither {PROTOBUF_MEDIA_TYPE} "
        f"nor {SSE_MEDIA_TYPE}: no AG-UI parser applies"
    )


# -- framing -----------------------------------------------------------------------------------
def encode_frame(payload: bytes) -> bytes:
    """One frame: the payload's length (4 bytes, unsigned, big-endian), then the payload."""
    if len(payload) > 0xFFFFFFFF:
        raise ValueError("a frame's payload cannot exceed 2**32 - 1 bytes")
    return _HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Length-prefixed frames out of arbitrary chunks (several per chunk, or split across them).

    >>> d = FrameDecoder()
    >>> d.feed(b"\\x00\\x00\\x00\\x02h")
    []
    >>> d.feed(b"i\\x00\\x00\\x00\\x00")
    [b'hi', b'']
    """

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> list[bytes]:
        """Consume bytes; return every frame payload now complete."""
        self._buffer += chunk
        frames = []
        while len(self._buffer) >= 4:
            (size,) = _HEADER.unpack_from(self._buffer)
            if len(self._buffer) < 4 + size:
                break
            frames.append(bytes(self._buffer[4 : 4 + size]))
            del self._buffer[: 4 + size]
        return frames

    @property
    def pending(self) -> int:
        """Bytes held that do not yet make a whole frame."""
        return len(self._buffer)

    def close(self) -> None:
        """End of body: raises :class:`FrameTruncatedError` if it ended inside a frame."""
        if not self._buffer:
            return
        if len(self._buffer) < 4:
            raise FrameTruncatedError(
                f"the body ended inside a frame header ({len(self._buffer)} of 4 bytes)",
                expected=None,
                received=len(self._buffer),
            )
        (size,) = _HEADER.unpack_from(self._buffer)
        got = len(self._buffer) - 4
        raise FrameTruncatedError(
            f"the body ended mid-frame: {got} of the {size} bytes announced arrived",
            expected=size,
            received=got,
        )


# -- the wire schema (a subset of ag_ui.Event) -------------------------------------------------
# (JSON name, proto field name, number, kind); kind: "str" (no presence), "opt" (optional
# string), "value" (google.protobuf.Value, optional). Numbers: spec/1.1/proto-freeze.txt.
_Field = tuple[str, str, int, str]

#: event type → (Event oneof arm, arm number, EventType number, the fields modelled).
MODELLED: dict[str, tuple[str, int, int, tuple[_Field, ...]]] = {
    "TEXT_MESSAGE_START": (
        "text_message_start",
        1,
        0,
        (("messageId", "message_id", 2, "str"), ("role", "role", 3, "opt"), ("name", "name", 4, "opt")),
    ),
    "TEXT_MESSAGE_CONTENT": (
        "text_message_content",
        2,
        1,
        (("messageId", "message_id", 2, "str"), ("delta", "delta", 3, "str")),
    ),
    "TEXT_MESSAGE_END": ("text_message_end", 3, 2, (("messageId", "message_id", 2, "str"),)),
    "TOOL_CALL_START": (
        "tool_call_start",
        4,
        3,
        (
            ("toolCallId", "tool_call_id", 2, "str"),
            ("toolCallName", "tool_call_name", 3, "str"),
            ("parentMessageId", "parent_message_id", 4, "opt"),
        ),
    ),
    "TOOL_CALL_ARGS": (
        "tool_call_args",
        5,
        4,
        (("toolCallId", "tool_call_id", 2, "str"), ("delta", "delta", 3, "str")),
    ),
    "TOOL_CALL_END": ("tool_call_end", 6, 5, (("toolCallId", "tool_call_id", 2, "str"),)),
    "STATE_SNAPSHOT": ("state_snapshot", 7, 6, (("snapshot", "snapshot", 2, "value"),)),
    "RAW": ("raw", 10, 9, (("event", "event", 2, "value"), ("source", "source", 3, "opt"))),
    "CUSTOM": ("custom", 11, 10, (("name", "name", 2, "str"), ("value", "value", 3, "value"))),
    "RUN_STARTED": (
        "run_started",
        12,
        11,
        (("threadId", "thread_id", 2, "str"), ("runId", "run_id", 3, "str")),
    ),
    "RUN_FINISHED": (
        "run_finished",
        13,
        12,
        (
            ("threadId", "thread_id", 2, "str"),
            ("runId", "run_id", 3, "str"),
            ("result", "result", 4, "value"),
        ),
    ),
    "RUN_ERROR": ("run_error", 14, 13, (("code", "code", 2, "opt"), ("message", "message", 3, "str"))),
    "STEP_STARTED": ("step_started", 15, 14, (("stepName", "step_name", 2, "str"),)),
    "STEP_FINISHED": ("step_finished", 16, 15, (("stepName", "step_name", 2, "str"),)),
}
_BASE_FIELDS = ("type", "timestamp", "rawEvent")
_ARMS = {arm: kind for kind, (arm, *_rest) in MODELLED.items()}


@dataclass(frozen=True)
class _Schema:
    event: Any  # the generated Event class
    value: Any  # the generated google.protobuf.Value class
    json_format: Any
    decode_error: type[Exception]


def _field(name: str, number: int, kind: str, type_name: str = "") -> Any:
    from google.protobuf import descriptor_pb2 as d

    f = d.FieldDescriptorProto(name=name, number=number, label=d.FieldDescriptorProto.LABEL_OPTIONAL)
    if kind in ("str", "opt"):
        f.type = d.FieldDescriptorProto.TYPE_STRING
    elif kind == "int64":
        f.type = d.FieldDescriptorProto.TYPE_INT64
    elif kind == "enum":
        f.type, f.type_name = d.FieldDescriptorProto.TYPE_ENUM, type_name
    else:
        f.type, f.type_name = d.FieldDescriptorProto.TYPE_MESSAGE, type_name
    return f


def _optional(msg: Any, f: Any) -> None:
    """Make ``f`` a proto3 ``optional`` field (explicit presence: a synthetic oneof)."""
    f.proto3_optional = True
    f.oneof_index = len(msg.oneof_decl)
    msg.oneof_decl.add(name=f"_{f.name}")
    msg.field.append(f)


def _file() -> Any:
    """The ``FileDescriptorProto`` of the kit's subset (package ``ag_ui``, like the official one)."""
    from google.protobuf import descriptor_pb2 as d

    fdp = d.FileDescriptorProto(
        name="agentproto/ag_ui_subset.proto",
        package="ag_ui",
        syntax="proto3",
        dependency=["google/protobuf/struct.proto"],
    )
    enum = fdp.enum_type.add(name="EventType")
    for kind, (_, _, number, _) in sorted(MODELLED.items(), key=lambda kv: kv[1][2]):
        enum.value.add(name=kind, number=number)
    base = fdp.message_type.add(name="BaseEvent")
    base.field.append(_field("type", 1, "enum", ".ag_ui.EventType"))
    _optional(base, _field("timestamp", 2, "int64"))
    _optional(base, _field("raw_event", 3, "value", ".google.protobuf.Value"))
    envelope = d.DescriptorProto(name="Event")
    envelope.oneof_decl.add(name="event")
    for kind, (arm, arm_number, _, fields) in MODELLED.items():
        msg = fdp.message_type.add(name="".join(w.title() for w in kind.split("_")) + "Event")
        msg.field.append(_field("base_event", 1, "message", ".ag_ui.BaseEvent"))
        for _, name, number, fkind in fields:
            f = _field(name, number, fkind, ".google.protobuf.Value" if fkind == "value" else "")
            if fkind in ("opt", "value"):
                _optional(msg, f)
            else:
                msg.field.append(f)
        slot = _field(arm, arm_number, "message", f".ag_ui.{msg.name}")
        slot.oneof_index = 0
        envelope.field.append(slot)
    fdp.message_type.append(envelope)
    return fdp


@lru_cache(maxsize=1)
def _schema() -> _Schema:
    from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory, struct_pb2
    from google.protobuf.message import DecodeError as PbDecodeError

    pool = descriptor_pool.DescriptorPool()  # a private pool: never clashes with other ag_ui stubs
    struct_file = descriptor_pb2.FileDescriptorProto()
    struct_pb2.DESCRIPTOR.CopyToProto(struct_file)
    pool.Add(struct_file)
    pool.Add(_file())
    event = message_factory.GetMessageClass(pool.FindMessageTypeByName("ag_ui.Event"))
    value = message_factory.GetMessageClass(pool.FindMessageTypeByName("google.protobuf.Value"))
    return _Schema(event, value, json_format, PbDecodeError)


def _integral(value: Any) -> Any:
    """An open payload as the kit hands it on, two choices of the kit's, applied recursively:
    ``google.protobuf.Value`` numbers are doubles, and integral ones come back as ``int`` (so
    ``3`` survives as ``3``, as JSON text would parse it); a ``Struct`` is a protobuf map, whose
    iteration order the runtime does not fix, so object keys come back sorted."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral(value[k]) for k in sorted(value)}
    return value


def encode_event(event: dict[str, Any] | BaseEvent) -> bytes:
    """One event as a serialised ``ag_ui.Event`` (map keys sorted: deterministic output).

    Raises :class:`UnmodelledFieldError` for an event type or a field the kit's subset has no
    slot for, instead of losing it (see :data:`MODELLED`).
    """
    obj = dump_event(event) if isinstance(event, BaseEvent) else dict(event)
    kind = obj.get("type")
    if kind not in MODELLED:
        raise UnmodelledFieldError(f"the kit's wire schema does not model {kind!r} events", event_type=kind)
    arm, _, _, fields = MODELLED[kind]
    extra = sorted(set(obj) - set(_BASE_FIELDS) - {f[0] for f in fields})
    if extra:
        raise UnmodelledFieldError(
            f"the kit's wire schema has no slot for {kind}.{', '.join(extra)}", event_type=kind
        )
    schema = _schema()
    envelope = schema.event()
    body = getattr(envelope, arm)
    body.base_event.type = MODELLED[kind][2]
    if obj.get("timestamp") is not None:
        body.base_event.timestamp = obj["timestamp"]
    if "rawEvent" in obj:
        schema.json_format.ParseDict(obj["rawEvent"], body.base_event.raw_event)
    for json_name, name, _, fkind in fields:
        if json_name not in obj:
            continue
        if fkind == "value":
            schema.json_format.ParseDict(obj[json_name], getattr(body, name))
        else:
            setattr(body, name, obj[json_name])
    return bytes(envelope.SerializeToString(deterministic=True))


def decode_event(data: bytes) -> dict[str, Any] | None:
    """A frame's bytes as the event's JSON object; ``None`` for an arm this build predates.

    Raises :class:`MalformedFrameError` when the bytes do not decode as a message. Fields of a
    known arm that this build predates are skipped by protobuf itself, silently (spec › The
    wire schema).
    """
    schema = _schema()
    envelope = schema.event()
    try:
        envelope.ParseFromString(data)
    except schema.decode_error as exc:
        raise MalformedFrameError(f"a frame's bytes do not decode as ag_ui.Event: {exc}") from None
    arm = envelope.WhichOneof("event")
    if arm is None:
        return None
    kind = _ARMS[arm]
    body = getattr(envelope, arm)
    obj: dict[str, Any] = {"type": kind}
    if body.base_event.HasField("timestamp"):
        obj["timestamp"] = body.base_event.timestamp
    if body.base_event.HasField("raw_event"):
        obj["rawEvent"] = _integral(schema.json_format.MessageToDict(body.base_event.raw_event))
    for json_name, name, _, fkind in MODELLED[kind][3]:
        if fkind == "str":
            obj[json_name] = getattr(body, name)  # no presence: an absent string reads as ""
        elif body.HasField(name):
            value = getattr(body, name)
            obj[json_name] = _integral(schema.json_format.MessageToDict(value)) if fkind == "value" else value
    return obj


def encode_stream(events: Iterable[dict[str, Any] | BaseEvent]) -> bytes:
    """A whole response body: one frame per event, abutting."""
    return b"".join(encode_frame(encode_event(e)) for e in events)


@dataclass
class ProtobufDecoder:
    """Response body → event objects. Reads; never judges (the shared pipeline does that).

    ``warnings`` collects the frames dropped because their envelope arm is unknown to this
    build; ``frames`` counts every frame read, dropped ones included.
    """

    frames: int = 0
    warnings: list[PipelineWarning] = field(default_factory=list)
    _framer: FrameDecoder = field(default_factory=FrameDecoder)

    def feed(self, chunk: bytes) -> list[dict[str, Any]]:
        """Consume bytes; return the events of every frame now complete."""
        return [event for _, event in self.feed_numbered(chunk)]

    def feed_numbered(self, chunk: bytes) -> list[tuple[int, dict[str, Any]]]:
        """:meth:`feed`, each event with its zero-based frame number (dropped frames count)."""
        out = []
        for payload in self._framer.feed(chunk):
            index, self.frames = self.frames, self.frames + 1
            event = decode_event(payload)
            if event is None:
                self.warnings.append(PipelineWarning(index, "", _unknown_arm(payload)))
            else:
                out.append((index, event))
        return out

    def close(self) -> None:
        """End of body; raises :class:`FrameTruncatedError` if it ended mid-frame."""
        self._framer.close()


def _unknown_arm(payload: bytes) -> str:
    numbers = sorted({f.field_number for f in _unknown_fields(payload)})
    named = f" (field {', '.join(map(str, numbers))})" if numbers else ""
    return f"dropped a frame whose Event arm this build does not know{named}"


def _unknown_fields(payload: bytes) -> list[Any]:
    from google.protobuf.unknown_fields import UnknownFieldSet

    envelope = _schema().event()
    envelope.ParseFromString(payload)
    return list(UnknownFieldSet(envelope))


def lint_protobuf(body: bytes, *, chunk: int = 0, **options: Any) -> LintReport:
    """A protobuf response body through the same :class:`Pipeline` an SSE body goes through.

    ``chunk`` > 0 feeds the body in slices of that size (the transport's chunks). A body that
    ends mid-frame gets a warning and the pipeline's ordinary truncation verdict.
    """
    pipeline = Pipeline(**options)
    decoder = ProtobufDecoder()
    step = chunk or max(len(body), 1)
    try:
        for start in range(0, len(body), step):
            for index, event in decoder.feed_numbered(body[start : start + step]):
                pipeline.events_read = index  # wire numbering, dropped frames included
                pipeline.feed_event(event)
                if pipeline.error is not None:
                    return pipeline.finish()
        decoder.close()
    except MalformedFrameError as exc:
        exc.index = decoder.frames - 1
        pipeline._failed(exc)  # the pipeline's own way of recording a fatal decode problem
    except FrameTruncatedError as exc:
        pipeline.warnings.append(PipelineWarning(None, "", f"{exc}; the partial frame was discarded"))
    pipeline.events_read = decoder.frames
    _merge_warnings(pipeline, decoder.warnings)
    return pipeline.finish()


def _merge_warnings(pipeline: Pipeline, dropped: list[PipelineWarning]) -> None:
    """Put the decoder's drop warnings among the pipeline's, in wire order."""
    if dropped:
        merged = pipeline.warnings + dropped
        merged.sort(key=lambda w: (w.event is None, w.event if w.event is not None else 0))
        pipeline.warnings[:] = merged


# -- a custom transport: the kit's in-process message channel ----------------------------------
class MessageChannel:
    """An ordered, in-process message channel (the kit's demonstration of a custom transport).

    Messages are ``(kind, body)``: ``"input"`` (the ``RunAgentInput`` object, sent first),
    ``"event"`` (one event JSON object per message — the SSE binding's framing without HTTP),
    ``"end"`` (the termination signal) and ``"refused"`` (the error path for rejected input,
    before any event). ``log`` keeps everything ever sent, for inspection.
    """

    def __init__(self) -> None:
        self._queue: deque[tuple[str, Any]] = deque()
        self.log: list[tuple[str, Any]] = []

    def send(self, kind: str, body: Any = None) -> None:
        if kind not in ("input", "event", "end", "refused"):
            raise ValueError(f"unknown message kind {kind!r}")
        message = (kind, json.loads(json.dumps(body)))  # what crosses is JSON, nothing shared
        self._queue.append(message)
        self.log.append(message)

    def receive(self) -> tuple[str, Any] | None:
        """The next message in order, or ``None`` when nothing more is queued."""
        return self._queue.popleft() if self._queue else None


def serve_over_channel(
    channel: MessageChannel,
    agent: Callable[[dict[str, Any]], Iterable[dict[str, Any]]],
    *,
    stop_after: int | None = None,
) -> None:
    """The producer side: read the input, refuse it or run ``agent`` on it, then ``"end"``.

    ``stop_after`` cuts the run after that many events without the end message — a producer
    that died, for showing truncation.
    """
    from agentproto.agui.parse import parse_run_agent_input

    message = channel.receive()
    if message is None or message[0] != "input":
        channel.send("refused", {"message": "the first message must be the run input"})
        return
    try:
        parse_run_agent_input(message[1])
    except (MalformedEventError, DecodeError) as exc:
        channel.send("refused", {"message": f"invalid RunAgentInput: {exc}"})
        return
    for count, event in enumerate(agent(message[1])):
        if stop_after is not None and count >= stop_after:
            return
        channel.send("event", event)
    channel.send("end")


def consume_channel(channel: MessageChannel, **options: Any) -> LintReport:
    """The consumer side: every ``"event"`` through the shared :class:`Pipeline`, in order.

    ``"end"`` closes the stream cleanly; a channel that runs dry without it is a truncated
    stream; ``"refused"`` before any event is a rejection (rule ``transport.refused``).
    """
    pipeline = Pipeline(**options)
    while (message := channel.receive()) is not None:
        kind, body = message
        if kind == "input":
            continue  # our own request, as logged on the channel
        if kind == "refused":
            pipeline._failed_quietly(AGUIError(body["message"], rule="transport.refused"))
            return pipeline.report()
        if kind == "end":
            break
        pipeline.feed_event(body)
        if pipeline.error is not None:
            break
    else:
        pipeline.warnings.append(PipelineWarning(None, "", "the channel ran dry without an end message"))
    return pipeline.finish()
