"""agentproto.a2a._protojson against its oracle, ``google.protobuf.json_format``.

The gRPC binding converts with :func:`parse` and :func:`dump` instead of ``ParseDict`` and
``MessageToDict``; their docstring promises the same message, the same dict and the same
errors. Random ProtoJSON documents of the shapes A2A carries, and of the ones the module hands
back to ``json_format`` (bytes, numbers in Struct values, ``null``, unknown enum names, wrong
types, a field under both of its names, unknown fields), go through both, and must come out
alike.
"""

from __future__ import annotations

import pytest

pb = pytest.importorskip("a2a.types.a2a_pb2")
json_format = pytest.importorskip("google.protobuf.json_format")
hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

from agentproto.a2a import _protojson  # noqa: E402

text = st.text(max_size=8)
json_value = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)
struct = st.dictionaries(text, json_value, max_size=3)
# now and then a value json_format refuses or takes its own path for
odd = st.sampled_from([None, 1.5, 2**40, "x", [], {}, True])


def maybe(strategy):
    return st.one_of(strategy, strategy, strategy, odd)


part = st.fixed_dictionaries(
    {},
    optional={
        "text": maybe(text),
        "raw": st.sampled_from(["aGk=", "", "!!"]),
        "url": text,
        "data": json_value,
        "metadata": struct,
        "mediaType": text,
        "media_type": text,  # the proto name: alone it is accepted, with the other it is an error
    },
)
message = st.fixed_dictionaries(
    {"messageId": maybe(text), "role": st.sampled_from(["ROLE_USER", "ROLE_AGENT", "ROLE_NOPE", 1])},
    optional={
        "contextId": text,
        "parts": st.lists(part, max_size=3),
        "metadata": struct,
        "extensions": st.lists(text, max_size=2),
        "referenceTaskIds": maybe(st.lists(text, max_size=2)),
        "unknownField": json_value,
    },
)
task = st.fixed_dictionaries(
    {"id": text},
    optional={
        "contextId": text,
        "status": st.fixed_dictionaries(
            {"state": st.sampled_from(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_X"])},
            optional={
                "timestamp": st.sampled_from(["2026-12-06T20:56:11Z", "2026-12-06T20:56:11.123456Z", "nope"]),
                "message": message,
            },
        ),
        "artifacts": st.lists(
            st.fixed_dictionaries({"artifactId": text}, optional={"parts": st.lists(part, max_size=2)}),
            max_size=2,
        ),
        "history": st.lists(message, max_size=2),
        "metadata": struct,
    },
)
request = st.fixed_dictionaries(
    {"message": message},
    optional={
        "tenant": text,
        "configuration": st.fixed_dictionaries(
            {},
            optional={
                "acceptedOutputModes": st.lists(text, max_size=2),
                "historyLength": maybe(st.integers(-(2**31), 2**31 - 1)),
                "returnImmediately": maybe(st.booleans()),
            },
        ),
        "metadata": struct,
    },
)


def _both(data, kind):
    """(ours, json_format's): each a message, or the ParseError it raised."""
    out = []
    for convert in (
        lambda: _protojson.parse(data, kind()),
        lambda: json_format.ParseDict(data, kind(), ignore_unknown_fields=True),
    ):
        try:
            out.append(convert())
        except json_format.ParseError as exc:
            out.append(type(exc))
    return out


@hypothesis.settings(max_examples=300, deadline=None, derandomize=True)
@hypothesis.given(
    st.one_of(task.map(lambda d: (d, pb.Task)), request.map(lambda d: (d, pb.SendMessageRequest)))
)
def test_parse_and_dump_agree_with_json_format(case):
    data, kind = case
    ours, theirs = _both(data, kind)
    assert ours == theirs
    if isinstance(theirs, kind):
        assert _protojson.dump(theirs) == json_format.MessageToDict(theirs, preserving_proto_field_name=False)


def test_a_field_under_both_of_its_names_is_taken_as_json_format_takes_it():
    for data in ({"messageId": "m1", "message_id": "m2"}, {"message_id": "m2", "messageId": "m1"}):
        ours, theirs = _both(data, pb.Message)
        assert ours == theirs and ours.message_id == list(data.values())[-1]  # the last one


def test_a_struct_number_json_cannot_carry_is_invalid_argument_not_an_internal_error():
    """Protobuf carries an infinite or NaN ``Value.number_value``; ProtoJSON cannot (json_format
    refuses to write it), so a gRPC request holding one is the caller's error."""
    from agentproto.a2a._grpc_server import from_proto
    from agentproto.a2a.errors import InvalidParamsError
    from agentproto.a2a.types import SendMessageRequest

    for number in (float("inf"), float("-inf"), float("nan")):
        request = pb.SendMessageRequest(message=pb.Message(message_id="m", role=pb.ROLE_USER))
        request.metadata.update({"x": number})
        with pytest.raises(InvalidParamsError, match="number_value"):
            from_proto(request, SendMessageRequest)


def test_unknown_enum_numbers_and_wrong_types_take_json_formats_path():
    message = pb.Message(message_id="m", role=7)  # an enum number the descriptor does not name
    assert _protojson.dump(message) == json_format.MessageToDict(message) == {"messageId": "m", "role": 7}
