"""SSE framing (spec 1.1 basic/transports/http-sse) and JSON-lines captures."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentproto.agui import (
    KEEP_ALIVE,
    SSE_CONTENT_TYPE,
    DecodeError,
    JSONLinesDecoder,
    SSEDecoder,
    TextMessageContentEvent,
    encode_comment,
    encode_sse,
)


def decode_all(data: bytes, sizes=None):
    d = SSEDecoder()
    out = []
    if sizes is None:
        out += d.feed(data)
    else:
        pos = 0
        for n in sizes:
            out += d.feed(data[pos : pos + n])
            pos += n
        out += d.feed(data[pos:])
    return out, d.close()


def test_encoding_is_one_data_line_and_a_blank_line():
    frame = encode_sse(TextMessageContentEvent(message_id="m", delta="é"))
    assert frame == 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"é"}\n\n'.encode()
    assert SSE_CONTENT_TYPE == "text/event-stream"


@pytest.mark.parametrize(
    "not_an_event", ['{"type":"RUN_STARTED"}', b'{"type":"RUN_STARTED"}', ["RUN_STARTED"], None]
)
def test_encode_sse_refuses_what_is_not_an_event(not_an_event):
    """A str used to become a JSON *string* frame (data: "...") that no consumer reads as an event."""
    with pytest.raises(TypeError, match="an AG-UI event model or a dict"):
        encode_sse(not_an_event)


def test_a_dict_event_is_framed_as_its_compact_json():
    assert encode_sse({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}) == (
        b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
    )


def test_comment_frames_are_ignored_by_the_decoder():
    assert KEEP_ALIVE == b": keep-alive\n\n"
    assert encode_comment("a\nb") == b": a\n: b\n\n"
    assert decode_all(KEEP_ALIVE + b"data: 1\n\n" + encode_comment("x"))[0] == ["1"]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending_is_accepted(eol):
    data = b"data: a" + eol + b"data: b" + eol + eol + b"data: c" + eol + eol
    assert decode_all(data)[0] == ["a\nb", "c"]


def test_event_id_and_retry_fields_are_ignored():
    data = b"event: message\nid: 7\nretry: 100\ndata: x\nunknown: y\n\n"
    assert decode_all(data)[0] == ["x"]


def test_only_one_space_after_the_colon_is_removed():
    assert decode_all(b"data:x\n\ndata:  y\n\ndata\n\n")[0] == ["x", " y", ""]


def test_a_frame_without_data_dispatches_nothing():
    assert decode_all(b"event: x\n\n\n\n")[0] == []


def test_leading_byte_order_mark_is_skipped():
    assert decode_all("\ufeffdata: x\n\n".encode())[0] == ["x"]


def test_invalid_utf8_is_a_decode_error():
    with pytest.raises(DecodeError):
        SSEDecoder().feed(b"data: \xff\n\n")


def test_stream_ending_mid_character_is_a_decode_error():
    d = SSEDecoder()
    d.feed("data: é".encode()[:-1])
    with pytest.raises(DecodeError):
        d.close()


def test_close_returns_a_dangling_partial_frame():
    out, tail = decode_all(b'data: {"a":1}\n\ndata: {"b"')
    assert out == ['{"a":1}'] and tail == 'data: {"b"'
    out, tail = decode_all(b"data: x\n")  # a line, but no blank line to end the frame
    assert out == [] and tail == "x"


def test_a_crlf_split_between_chunks_is_one_line_ending():
    assert decode_all(b"data: a\r\n\r\n", sizes=[8])[0] == ["a"]
    assert decode_all(b"data: a\r\r", sizes=[8])[0] == ["a"]


def _stream(payloads, eol):
    out = b""
    for p in payloads:
        out += b": keep-alive" + eol
        for line in p.split("\n"):
            out += b"data: " + line.encode() + eol
        out += eol
    return out


@settings(max_examples=150, deadline=None)
@given(
    payloads=st.lists(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"),
            min_size=1,
            max_size=20,
        ),
        min_size=1,
        max_size=6,
    ),
    eol=st.sampled_from([b"\n", b"\r\n", b"\r"]),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
)
def test_any_split_of_an_encoded_stream_decodes_to_the_same_payloads(payloads, eol, cuts):
    data = _stream(payloads, eol)
    positions = sorted({c % (len(data) + 1) for c in cuts})
    sizes = [b - a for a, b in zip([0] + positions, positions)]
    whole, tail = decode_all(data)
    pieces, tail2 = decode_all(data, sizes)
    assert whole == pieces == [p.replace("\r", "\n") for p in payloads]
    assert tail is None and tail2 is None


def test_json_lines_skip_blank_lines_and_accept_a_last_line_without_newline():
    d = JSONLinesDecoder()
    assert d.feed(b'{"a":1}\r\n\n{"b"') == ['{"a":1}']
    assert d.feed(b':2}\n{"c":3}') == ['{"b":2}']
    assert d.close() == ['{"c":3}']


def test_json_lines_invalid_utf8_is_a_decode_error():
    with pytest.raises(DecodeError):
        JSONLinesDecoder().feed(b"\xfe\n")
