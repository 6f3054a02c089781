"""Reading a report (agentproto.agui.report): the verdict, the conversation, one event."""

from __future__ import annotations

import pytest

from agentproto.agui import (
    RunStartedEvent,
    event_label,
    format_messages,
    lint_source,
    shorten,
    verdict,
    wire,
)
from agentproto.agui.report import text_table


def _around(*events):
    return [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        *events,
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]


def test_the_verdict_numbers_events_from_zero_as_the_report_does():
    events = _around({"type": "TOOL_CALL_END", "toolCallId": "c1"})
    report = lint_source(events)
    assert report.error["event"] == 1 and events[1]["type"] == "TOOL_CALL_END"
    text = verdict(report)
    assert "at event #1 (TOOL_CALL_END)" in text and "[tool.end-unopened]" in text


def test_a_conformant_stream_gets_a_one_line_verdict():
    assert verdict(lint_source(_around())) == "✓ conformant — runs: r success"


def test_a_truncated_stream_is_rejected_at_the_end_not_at_an_event():
    text = verdict(lint_source(_around()[:1]))
    assert text.startswith("✗ rejected at the end of the stream [run.truncated]")


def test_warnings_use_the_same_numbering_and_can_be_left_out():
    report = lint_source(_around({"type": "NOT_A_TYPE"}))
    assert report.warnings[0]["event"] == 1
    assert "⚠ event #1 /type: unknown event type 'NOT_A_TYPE' dropped" in verdict(report)
    assert "⚠" not in verdict(report, warnings=False)


def test_event_label_says_hash_index():
    assert event_label(0) == "event #0" and event_label(5) == "event #5"
    assert event_label(None) == "the stream"


def test_format_messages_shows_roles_content_and_tool_calls():
    messages = [
        {"id": "u1", "role": "user", "content": "Refund A1024"},
        {
            "id": "a1",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_order", "arguments": '{"orderId":"A1024"}'},
                }
            ],
        },
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "x" * 100},
        {"id": "act", "role": "activity", "activityType": "progress", "content": {"p": 1}},
    ]
    lines = format_messages(messages, width=20).splitlines()
    assert lines[0] == "u1   user       'Refund A1024'"
    assert lines[1].endswith('calls get_order({"orderId":"A1024"})')
    assert lines[2] == "t1   tool       → c1: " + "x" * 19 + "…"
    assert lines[3] == 'act  activity   [progress] {"p":1}'
    assert format_messages([]) == "(no messages)"


def test_shorten_keeps_one_line_of_the_given_width():
    assert shorten("a\nb") == "a b"
    assert shorten("abcdef", 4) == "abc…" and len(shorten("x" * 99, 10)) == 10
    assert shorten({"a": [1, 2]}) == '{"a":[1,2]}'
    assert shorten(object(), 200).startswith("<object")
    with pytest.raises(ValueError):
        shorten("x", 0)


def test_wire_gives_models_and_dicts_alike_without_the_timestamp():
    model = RunStartedEvent(thread_id="t", run_id="r", timestamp=5)
    assert (
        wire(model)
        == wire({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": 9})
        == {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    )


def test_text_table_aligns_columns():
    assert text_table([("a", 1), ("bbb", 22)], ["name", "n"]).splitlines() == [
        "name  n",
        "----  --",
        "a     1",
        "bbb   22",
    ]
    with pytest.raises(ValueError):
        text_table([("a", 1, "lost")], ["name", "n"])
