"""The HTTP + protobuf binding (spec 1.1 ``basic/transports/http-protobuf``) and the kit's
in-process custom transport (``basic/transports/index`` › Custom transports).

Negotiation and framing are pure Python; the wire-schema tests need the protobuf runtime (the
``grpc`` extra, part of ``course``) and are skipped without it.
"""

from __future__ import annotations

import struct

import pytest

from agentproto.agui import AGUIError, DecodeError
from agentproto.agui.pipeline import lint_source
from agentproto.agui.protobuf_binding import (
    PROTOBUF_MEDIA_TYPE,
    SSE_MEDIA_TYPE,
    ContentTypeError,
    FrameDecoder,
    FrameTruncatedError,
    MalformedFrameError,
    MessageChannel,
    UnmodelledFieldError,
    admits_protobuf,
    consume_channel,
    encode_frame,
    negotiate,
    parser_for,
    serve_over_channel,
)
from agentproto.errors import AgentProtoError

RUN = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": 5},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Hel"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "lo"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
    {"type": "STATE_SNAPSHOT", "snapshot": {"n": 3, "tags": ["a", None], "ok": True}},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": {"answer": 42}},
]


# -- negotiation -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("accept", "admitted"),
    [
        (f"{PROTOBUF_MEDIA_TYPE}, {SSE_MEDIA_TYPE}", True),
        (f"{SSE_MEDIA_TYPE}, {PROTOBUF_MEDIA_TYPE};q=0.1", True),  # quality is not a ranking
        ("*/*", True),
        ("application/*", True),
        (SSE_MEDIA_TYPE, False),
        (f"{PROTOBUF_MEDIA_TYPE};q=0, */*", False),  # the specific range's q=0 vetoes
        ("text/*", False),
        ("", False),
        (None, False),
    ],
)
def test_admission(accept: str | None, admitted: bool) -> None:
    assert admits_protobuf(accept) is admitted


def test_negotiate_answers_sse_unless_admitted_and_supported() -> None:
    both = f"{SSE_MEDIA_TYPE}, {PROTOBUF_MEDIA_TYPE}"
    assert negotiate(both) == PROTOBUF_MEDIA_TYPE
    assert negotiate(both, supports_protobuf=False) == SSE_MEDIA_TYPE
    assert negotiate("application/json") == SSE_MEDIA_TYPE  # MUST answer SSE otherwise
    assert negotiate(None) == SSE_MEDIA_TYPE


def test_parser_is_selected_by_content_type() -> None:
    assert parser_for(PROTOBUF_MEDIA_TYPE) == "protobuf"
    assert parser_for("text/event-stream; charset=utf-8") == "sse"
    with pytest.raises(ContentTypeError) as info:
        parser_for("application/x-protobuf")
    assert isinstance(info.value, AGUIError) and info.value.rule == "transport.content-type"


# -- framing -----------------------------------------------------------------------------------
def test_frame_header_is_four_bytes_big_endian() -> None:
    frame = encode_frame(b"x" * 258)
    assert frame[:4] == b"\x00\x00\x01\x02" and struct.unpack(">I", frame[:4]) == (258,)


def test_frames_split_and_joined_any_way_decode_the_same() -> None:
    body = b"".join(encode_frame(p) for p in (b"a", b"", b"bcd" * 100))
    for size in (1, 3, 7, len(body)):
        d = FrameDecoder()
        out = [p for i in range(0, len(body), size) for p in d.feed(body[i : i + size])]
        d.close()
        assert out == [b"a", b"", b"bcd" * 100]


def test_a_body_ending_mid_frame_is_truncation_not_malformed() -> None:
    body = encode_frame(b"hello world")[:-3]
    d = FrameDecoder()
    assert d.feed(body) == []
    with pytest.raises(FrameTruncatedError) as info:
        d.close()
    exc = info.value
    assert isinstance(exc, AgentProtoError) and not isinstance(exc, DecodeError)
    assert (exc.expected, exc.received, exc.rule) == (11, 8, "transport.truncated-frame")


def test_a_body_ending_inside_the_header_is_truncation_too() -> None:
    d = FrameDecoder()
    d.feed(b"\x00\x00")
    with pytest.raises(FrameTruncatedError):
        d.close()


# -- the wire schema ---------------------------------------------------------------------------
pb = pytest.importorskip("google.protobuf")


def _body(events: list[dict]) -> bytes:
    from agentproto.agui.protobuf_binding import encode_stream

    return encode_stream(events)


def test_round_trip_keeps_every_modelled_field() -> None:
    from agentproto.agui.protobuf_binding import ProtobufDecoder

    d = ProtobufDecoder()
    body = _body(RUN)
    got = [e for i in range(0, len(body), 5) for e in d.feed(body[i : i + 5])]
    d.close()
    assert got == RUN and d.warnings == []


def test_every_transport_answers_the_same_way() -> None:
    from agentproto.agui.protobuf_binding import lint_protobuf
    from agentproto.agui.sse import encode_sse

    sse = lint_source(b"".join(encode_sse(e) for e in RUN), format="sse")
    proto = lint_protobuf(_body(RUN))
    assert proto.to_dict() == sse.to_dict() and proto.verdict == "conformant"


def test_truncated_protobuf_run_gets_the_sse_verdict() -> None:
    from agentproto.agui.protobuf_binding import lint_protobuf

    body = _body(RUN)
    report = lint_protobuf(body[:-4])
    assert report.error is not None and report.error["rule"] == "run.truncated"
    assert report.runs[0]["outcome"] == "truncated"
    assert any("mid-frame" in w.message for w in report.warnings)


def test_undecodable_frame_is_fatal_malformed_transport_material() -> None:
    from agentproto.agui.protobuf_binding import ProtobufDecoder, lint_protobuf

    bad = encode_frame(b"\xff\xff\xff")
    with pytest.raises(MalformedFrameError) as info:
        ProtobufDecoder().feed(bad)
    assert isinstance(info.value, DecodeError) and info.value.rule == "decode.protobuf"
    report = lint_protobuf(_body(RUN[:2]) + bad + _body(RUN[2:]))
    assert report.error is not None and report.error["rule"] == "decode.protobuf"


def test_unknown_envelope_arm_is_dropped_with_a_warning() -> None:
    from agentproto.agui.protobuf_binding import ProtobufDecoder, lint_protobuf

    # field 99, length-delimited, two bytes: an arm this build was not compiled against
    unknown = encode_frame(bytes([0x9A, 0x06, 0x02, 0x08, 0x01]))
    d = ProtobufDecoder()
    assert d.feed(unknown) == []
    assert "99" in d.warnings[0].message
    report = lint_protobuf(_body(RUN[:3]) + unknown + _body(RUN[3:]))
    assert report.ok and len(report.warnings) == 1 and report.events == len(RUN) + 1


def test_a_missing_required_string_materialises_as_empty() -> None:
    """The processing page's Note: proto3 gives a plain string no presence."""
    from agentproto.agui.protobuf_binding import decode_event, encode_event

    assert decode_event(encode_event({"type": "TEXT_MESSAGE_END", "messageId": ""})) == {
        "type": "TEXT_MESSAGE_END",
        "messageId": "",
    }


def test_encoder_refuses_fields_the_kit_does_not_model() -> None:
    from agentproto.agui.protobuf_binding import encode_event

    with pytest.raises(UnmodelledFieldError) as info:
        encode_event({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "success"}})
    assert "outcome" in str(info.value)
    with pytest.raises(UnmodelledFieldError):
        encode_event({"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": "x"})


def test_run_error_is_a_frame_like_any_other() -> None:
    from agentproto.agui.protobuf_binding import lint_protobuf

    events = [RUN[0], {"type": "RUN_ERROR", "message": "tool crashed", "code": "tool.failed"}]
    report = lint_protobuf(_body(events))
    assert report.ok and report.runs[0]["outcome"] == "failed"


# -- a custom transport -------------------------------------------------------------------------
def _agent(run_input: dict) -> list[dict]:
    t, r = run_input["threadId"], run_input["runId"]
    return [
        {"type": "RUN_STARTED", "threadId": t, "runId": r},
        {"type": "RUN_FINISHED", "threadId": t, "runId": r},
    ]


def _input() -> dict:
    return {"threadId": "t", "runId": "r", "messages": [], "tools": [], "context": []}


def test_channel_carries_input_first_then_events_then_the_end() -> None:
    channel = MessageChannel()
    channel.send("input", _input())
    serve_over_channel(channel, _agent)
    kinds = [kind for kind, _ in channel.log]
    assert kinds == ["input", "event", "event", "end"]
    report = consume_channel(channel)
    assert report.ok and report.runs[0]["outcome"] == "success"


def test_channel_refuses_invalid_input_before_any_event() -> None:
    channel = MessageChannel()
    channel.send("input", {"threadId": 7})
    serve_over_channel(channel, _agent)
    assert [kind for kind, _ in channel.log] == ["input", "refused"]
    report = consume_channel(channel)
    assert report.error is not None and report.error["rule"] == "transport.refused"
    assert report.runs == []


def test_channel_without_end_is_truncated() -> None:
    channel = MessageChannel()
    channel.send("input", _input())
    serve_over_channel(channel, _agent, stop_after=1)
    report = consume_channel(channel)
    assert report.error is not None and report.error["rule"] == "run.truncated"


def test_decoded_open_objects_have_sorted_keys_and_integral_numbers() -> None:
    """The kit's two choices for open payloads: a map has no fixed order, doubles carry numbers."""
    from agentproto.agui.protobuf_binding import decode_event, encode_event

    got = decode_event(
        encode_event({"type": "STATE_SNAPSHOT", "snapshot": {"z": 1, "a": {"y": 2.5, "b": 3}}})
    )
    assert got is not None
    assert list(got["snapshot"]) == ["a", "z"] and list(got["snapshot"]["a"]) == ["b", "y"]
    assert type(got["snapshot"]["z"]) is int and got["snapshot"]["a"]["y"] == 2.5


# -- the slot numbers, against the spec repository's wire freeze --------------------------------
# Transcribed from ag-ui spec/1.1/proto-freeze.txt: event type → (Event.event arm, its number,
# its EventType number, {JSON name: field number}). Pinned here so a slip in MODELLED cannot
# hide behind a round trip (the kit's encoder and decoder would agree with each other anyway).
FREEZE = {
    "TEXT_MESSAGE_START": ("text_message_start", 1, 0, {"messageId": 2, "role": 3, "name": 4}),
    "TEXT_MESSAGE_CONTENT": ("text_message_content", 2, 1, {"messageId": 2, "delta": 3}),
    "TEXT_MESSAGE_END": ("text_message_end", 3, 2, {"messageId": 2}),
    "TOOL_CALL_START": ("tool_call_start", 4, 3, {"toolCallId": 2, "toolCallName": 3, "parentMessageId": 4}),
    "TOOL_CALL_ARGS": ("tool_call_args", 5, 4, {"toolCallId": 2, "delta": 3}),
    "TOOL_CALL_END": ("tool_call_end", 6, 5, {"toolCallId": 2}),
    "STATE_SNAPSHOT": ("state_snapshot", 7, 6, {"snapshot": 2}),
    "RAW": ("raw", 10, 9, {"event": 2, "source": 3}),
    "CUSTOM": ("custom", 11, 10, {"name": 2, "value": 3}),
    "RUN_STARTED": ("run_started", 12, 11, {"threadId": 2, "runId": 3}),
    "RUN_FINISHED": ("run_finished", 13, 12, {"threadId": 2, "runId": 3, "result": 4}),
    "RUN_ERROR": ("run_error", 14, 13, {"code": 2, "message": 3}),
    "STEP_STARTED": ("step_started", 15, 14, {"stepName": 2}),
    "STEP_FINISHED": ("step_finished", 16, 15, {"stepName": 2}),
}


def test_modelled_slots_match_the_1_1_wire_freeze() -> None:
    from agentproto.agui.protobuf_binding import MODELLED

    got = {
        kind: (arm, arm_no, enum_no, {json_name: number for json_name, _, number, _ in fields})
        for kind, (arm, arm_no, enum_no, fields) in MODELLED.items()
    }
    assert got == FREEZE


def test_run_started_bytes_match_a_hand_derived_encoding() -> None:
    """Bytes worked out by hand from the official schema's layout, not from the kit's descriptors.

    This checks the kit against the schema text; it is not a test against an official encoder
    or the spec's canonical corpus, neither of which the kit has run.
    """
    from agentproto.agui.protobuf_binding import decode_event, encode_event

    event = {"type": "RUN_STARTED", "timestamp": 5, "threadId": "t", "runId": "r"}
    expected = bytes(
        [0x62, 0x0C]  # Event field 12 (run_started), length-delimited, 12 bytes
        + [0x0A, 0x04, 0x08, 0x0B, 0x10, 0x05]  # base_event: type = 11 (RUN_STARTED), timestamp = 5
        + [0x12, 0x01, ord("t")]  # thread_id = 2
        + [0x1A, 0x01, ord("r")]  # run_id = 3
    )
    assert encode_event(event) == expected
    assert decode_event(expected) == event
