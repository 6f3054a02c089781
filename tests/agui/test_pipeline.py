"""The whole consumer pipeline: decode → parse → expand → verify → apply."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentproto.agui import (
    AGUIError,
    LintReport,
    Pipeline,
    RunStartedEvent,
    VerificationError,
    detect_format,
    encode_sse,
    fix_for,
    lint_source,
    parse_event,
)

START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def sse(*events) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def test_a_conformant_stream_reports_completed_with_state_and_messages():
    report = lint_source(
        sse(
            START,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "hi"},
            {"type": "STATE_SNAPSHOT", "snapshot": {"a": 1}},
            FINISH,
        )
    )
    assert report.ok and report.verdict == "conformant" and report.error is None
    assert report.state == {"a": 1}
    assert report.messages == [{"id": "m", "role": "assistant", "content": "hi"}]
    assert report.runs == [{"threadId": "t", "runId": "r", "outcome": "success"}]
    assert json.loads(report.to_json())["verdict"] == "conformant"


def test_the_error_names_the_wire_event_even_when_chunks_expand():
    report = lint_source(
        sse(
            START,
            {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"},
            {"type": "TEXT_MESSAGE_END", "messageId": "nope"},
        )
    )
    assert report.error == {
        "event": 2,
        "type": "TEXT_MESSAGE_END",
        "rule": "text.end-unopened",
        "message": "Cannot send 'TEXT_MESSAGE_END' event: No active text "
        "message found with ID 'nope'. A 'TEXT_MESSAGE_START' "
        "event must be sent first.",
        "fix": "Only close a message you opened, and only once.",
    }


def test_nothing_applied_before_the_failure_is_lost():
    report = lint_source(
        sse(
            START,
            {"type": "STATE_SNAPSHOT", "snapshot": {"kept": True}},
            {"type": "TEXT_MESSAGE_END", "messageId": "x"},
            {"type": "STATE_SNAPSHOT", "snapshot": {"never": True}},
        )
    )
    assert report.state == {"kept": True} and not report.ok
    assert report.runs[0]["outcome"] == "rejected"


def test_a_replayed_run_on_another_thread_rejects_the_stream_but_keeps_the_first_run():
    report = lint_source(
        sse(
            START,
            {"type": "STATE_SNAPSHOT", "snapshot": {"first": True}},
            FINISH,
            START | {"threadId": "u", "runId": "r2"},
            {"type": "STATE_SNAPSHOT", "snapshot": {"never": True}},
            FINISH | {"threadId": "u", "runId": "r2"},
        )
    )
    assert report.error["rule"] == "run.thread-changed" and report.error["event"] == 3
    assert report.state == {"first": True}
    assert [r["outcome"] for r in report.runs] == ["success", "rejected"]


def test_a_malformed_event_reports_the_expected_and_received_type():
    report = lint_source(sse(START, {"type": "TEXT_MESSAGE_START", "messageId": ["m"]}))
    assert report.error == {
        "event": 1,
        "type": "TEXT_MESSAGE_START",
        "rule": "schema.invalid-value",
        "message": "malformed TEXT_MESSAGE_START at /messageId: Expected string, received array",
        "fix": fix_for("schema.invalid-value"),
    }


def test_a_run_error_is_a_failed_run_on_a_conformant_stream():
    report = lint_source(sse(START, {"type": "RUN_ERROR", "message": "x"}))
    assert report.ok and report.runs[0]["outcome"] == "failed"


@pytest.mark.parametrize(
    "data, kind",
    [
        (b"data: {}\n\n", "sse"),
        (b": keep-alive\n\ndata: {}\n\n", "sse"),
        (b'{"a":1}\n', "jsonl"),
        (b"\xef\xbb\xbf [ {}]", "array"),
        (b'{"type":"CUSTOM","name":"data: x","value":1}\n', "jsonl"),
    ],
)
def test_auto_detection(data, kind):
    assert detect_format(data) == kind


def test_all_three_input_formats_agree():
    events = [START, {"type": "CUSTOM", "name": "n", "value": None}, FINISH]
    as_sse = lint_source(sse(*events))
    as_jsonl = lint_source("".join(json.dumps(e) + "\n" for e in events))
    as_array = lint_source(json.dumps(events))
    as_events = lint_source(events)
    assert as_sse.to_dict() == as_jsonl.to_dict() == as_array.to_dict() == as_events.to_dict()


def test_a_json_array_that_is_not_json_is_unreadable():
    report = lint_source(b"[1, 2")
    assert not report.readable and report.error["rule"] == "input.unreadable"


def test_incremental_feeding_returns_the_applied_events():
    p = Pipeline()
    assert p.feed_bytes(sse(START)[:10]) == []
    out = p.feed_bytes(sse(START)[10:] + sse({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"}))
    assert [e.type.value for e in out] == ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    p.feed_event(FINISH)
    report = p.finish()
    assert report.ok and p.finish() is report


def test_feed_event_accepts_dicts_text_and_models():
    p = Pipeline()
    p.feed_event(RunStartedEvent(thread_id="t", run_id="r"))
    p.feed_event(json.dumps({"type": "CUSTOM", "name": "n", "value": 1}))
    p.feed_event(FINISH)
    assert p.finish().ok and p.events_read == 3


def test_raise_errors_surfaces_the_exception_from_the_feed_call():
    p = Pipeline(raise_errors=True)
    with pytest.raises(VerificationError):
        p.feed_event({"type": "TEXT_MESSAGE_END", "messageId": "m"})


def test_on_event_sees_every_applied_event():
    seen = []
    lint_source(
        sse(START, {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"}, FINISH),
        on_event=lambda e: seen.append(e.type.value),
    )
    assert seen == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]


def test_guard_rails_pass_through_the_pipeline():
    report = lint_source(
        sse(START, {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/secret", "value": 1}]}, FINISH),
        allowed_paths=["/public"],
    )
    assert report.error["rule"] == "guard.path-not-allowed"


def test_the_report_is_json_serialisable_even_for_odd_state():
    report = lint_source(sse(START, {"type": "STATE_SNAPSHOT", "snapshot": ["é", None, 0]}, FINISH))
    assert json.loads(report.to_json())["state"] == ["é", None, 0]
    assert isinstance(report, LintReport)


# -- properties ---------------------------------------------------------------------------

IDS = st.sampled_from(["a", "b", "c"])
OWNERS = st.one_of(st.none(), st.sampled_from(["s1", "s2"]))


def _tag(d, owner):
    if owner is not None:
        d["subagentRunId"] = owner
    return d


@st.composite
def events(draw):
    kind = draw(
        st.sampled_from(
            [
                "RUN_STARTED",
                "RUN_FINISHED",
                "RUN_ERROR",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "TEXT_MESSAGE_CHUNK",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "TOOL_CALL_CHUNK",
                "TOOL_CALL_RESULT",
                "STATE_SNAPSHOT",
                "STATE_DELTA",
                "MESSAGES_SNAPSHOT",
                "ACTIVITY_SNAPSHOT",
                "ACTIVITY_DELTA",
                "STEP_STARTED",
                "STEP_FINISHED",
                "REASONING_START",
                "REASONING_END",
                "REASONING_MESSAGE_START",
                "REASONING_MESSAGE_CONTENT",
                "REASONING_MESSAGE_END",
                "REASONING_MESSAGE_CHUNK",
                "REASONING_ENCRYPTED_VALUE",
                "SUBAGENT_STARTED",
                "SUBAGENT_FINISHED",
                "SUBAGENT_ERROR",
                "CUSTOM",
                "RAW",
                "THINKING_START",
                "FUTURE_EVENT",
            ]
        )
    )
    i, owner = draw(IDS), draw(OWNERS)
    path = draw(st.sampled_from(["/x", "/y/0", "", "/-", "bad"]))
    op = draw(st.sampled_from(["add", "remove", "replace", "test", "move", "merge"]))
    maybe = lambda key, value: {key: value} if draw(st.booleans()) else {}  # noqa: E731
    table = {
        "RUN_STARTED": {"threadId": "t", "runId": "r"},
        "RUN_FINISHED": {
            "threadId": "t",
            "runId": "r",
            **maybe(
                "outcome",
                draw(
                    st.sampled_from(
                        [
                            {"type": "success"},
                            {"type": "cancelled"},
                            {"type": "weird"},
                            {"type": "interrupt", "interrupts": [{"id": i, "reason": "r"}]},
                        ]
                    )
                ),
            ),
        },
        "RUN_ERROR": {"message": "x"},
        "TEXT_MESSAGE_START": _tag({"messageId": i, **maybe("role", "user")}, owner),
        "TEXT_MESSAGE_CONTENT": _tag({"messageId": i, "delta": "d"}, owner),
        "TEXT_MESSAGE_END": _tag({"messageId": i}, owner),
        "TEXT_MESSAGE_CHUNK": _tag(
            {**maybe("messageId", i), **maybe("delta", "d"), **maybe("metadata", {"k": 1})}, owner
        ),
        "TOOL_CALL_START": _tag({"toolCallId": i, "toolCallName": "f", **maybe("parentMessageId", i)}, owner),
        "TOOL_CALL_ARGS": _tag({"toolCallId": i, "delta": "{"}, owner),
        "TOOL_CALL_END": _tag({"toolCallId": i}, owner),
        "TOOL_CALL_CHUNK": _tag(
            {**maybe("toolCallId", i), **maybe("toolCallName", "f"), **maybe("delta", "{")}, owner
        ),
        "TOOL_CALL_RESULT": {"messageId": "t" + i, "toolCallId": i, "content": "ok"},
        "STATE_SNAPSHOT": {"snapshot": draw(st.sampled_from([None, {}, {"x": 1, "y": [1]}, [1]]))},
        "STATE_DELTA": {"delta": [{"op": op, "path": path, "value": 1, "from": "/x"}]},
        "MESSAGES_SNAPSHOT": {
            "messages": [
                {
                    "id": i,
                    "role": draw(st.sampled_from(["user", "assistant", "reasoning", "activity", "alien"])),
                    "content": "c",
                    "activityType": "T",
                }
            ]
        },
        "ACTIVITY_SNAPSHOT": _tag(
            {"messageId": i, "activityType": "T", "content": {"x": 1}, **maybe("replace", False)}, owner
        ),
        "ACTIVITY_DELTA": _tag(
            {
                "messageId": i,
                "activityType": "T",
                "patch": [{"op": op, "path": path, "value": 1, "from": "/x"}],
            },
            owner,
        ),
        "STEP_STARTED": _tag({"stepName": i}, owner),
        "STEP_FINISHED": _tag({"stepName": i}, owner),
        "REASONING_START": _tag({"messageId": i}, owner),
        "REASONING_END": _tag({"messageId": i}, owner),
        "REASONING_MESSAGE_START": _tag({"messageId": i, "role": "reasoning"}, owner),
        "REASONING_MESSAGE_CONTENT": _tag({"messageId": i, "delta": "d"}, owner),
        "REASONING_MESSAGE_END": _tag({"messageId": i}, owner),
        "REASONING_MESSAGE_CHUNK": _tag({**maybe("messageId", i), **maybe("delta", "d")}, owner),
        "REASONING_ENCRYPTED_VALUE": {
            "subtype": draw(st.sampled_from(["message", "tool-call"])),
            "entityId": i,
            "encryptedValue": "v",
        },
        "SUBAGENT_STARTED": {
            "subagentRunId": owner or "s1",
            "name": "n",
            **maybe("parentSubagentRunId", "s2"),
        },
        "SUBAGENT_FINISHED": {"subagentRunId": owner or "s1"},
        "SUBAGENT_ERROR": {"subagentRunId": owner or "s1", "message": "m"},
        "CUSTOM": {"name": "n", "value": None},
        "RAW": {"event": {}},
        "THINKING_START": {},
        "FUTURE_EVENT": {"x": 1},
    }
    event = {"type": kind, **table[kind]}
    if draw(st.integers(0, 9)) == 0:
        event[draw(st.sampled_from(["extra", "timestamp", "messageId", "delta"]))] = draw(
            st.sampled_from([None, 1, "s", [], {}])
        )
    return event


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events(), max_size=25))
def test_random_event_sequences_only_ever_fail_with_agui_errors(evs):
    p = Pipeline(raise_errors=True)
    try:
        for e in evs:
            p.feed_event(e)
        p.finish()
    except AGUIError:
        pass
    report = p.finish()
    json.dumps(report.to_dict())  # whatever happened, the report is JSON


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events(), max_size=15), st.lists(st.integers(0, 2000), max_size=8))
def test_a_pipeline_fed_any_split_of_the_bytes_reaches_the_same_verdict(evs, cuts):
    data = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in evs)
    whole = lint_source(data)
    p = Pipeline()
    positions = sorted({c % (len(data) + 1) for c in cuts})
    for a, b in zip([0] + positions, positions + [len(data)]):
        p.feed_bytes(data[a:b])
    assert p.finish().to_dict() == whole.to_dict()


def test_sse_encoding_then_pipeline_round_trips_every_sample():
    from tests.agui.agui_samples import SAMPLES

    for sample in SAMPLES.values():
        event = parse_event(sample).event
        payloads = Pipeline()._decoder.feed(encode_sse(event))
        assert parse_event(payloads[0]).event == event


def _stream_with_two_warnings() -> bytes:
    return sse(
        START,
        {"type": "FUTURE_EVENT_TYPE", "x": 1},  # unknown type: dropped with a warning
        {"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/missing"}]},  # does not apply
        FINISH,
    )


def test_warnings_have_one_shape_everywhere_readable_as_attributes_and_by_key():
    from agentproto.agui import PipelineWarning

    pipeline = Pipeline()
    pipeline.feed_bytes(_stream_with_two_warnings())
    report = pipeline.finish()
    assert len(report.warnings) == 2
    assert all(isinstance(w, PipelineWarning) for w in [*report.warnings, *pipeline.warnings])
    first = report.warnings[0]
    assert first["event"] == first.event == 1 and first["message"] == first.message
    assert dict(first) == first.to_dict() and first.get("nope", "-") == "-"
    with pytest.raises(KeyError):
        first["nope"]


def test_the_json_report_carries_warnings_as_objects():
    report = lint_source(_stream_with_two_warnings())
    data = json.loads(report.to_json())
    assert [sorted(w) for w in data["warnings"]] == [["event", "message", "path"]] * 2
    assert data["warnings"][1]["event"] == 2
