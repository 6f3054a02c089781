"""Downgrading a 1.1 stream (and run input) for a peer known to speak 1.0 (spec ``basic/versioning``)."""

from __future__ import annotations

import copy

import pytest

from agentproto.agui import MalformedEventError, lint_source
from agentproto.agui.downgrade import (
    DowngradeError,
    downgrade_input,
    downgrade_stream,
)

START = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "success"}}
VALUE = {
    "type": "REASONING_ENCRYPTED_VALUE",
    "subtype": "message",
    "entityId": "r1m",
    "encryptedValue": "c2ln",
    "encryptedValueType": "anthropic.redacted_thinking",
}
REASONING = [
    {"type": "REASONING_MESSAGE_START", "messageId": "r1m", "role": "reasoning"},
    {"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1m", "delta": "think"},
    {"type": "REASONING_MESSAGE_END", "messageId": "r1m"},
]
STREAM = [START, *REASONING, VALUE, FINISH]


def test_a_peer_of_unknown_age_is_treated_as_current() -> None:
    out = downgrade_stream(STREAM, None)
    assert out.events == STREAM and out.warnings == [] and out.emits == "1.1"


@pytest.mark.parametrize("peer", ["1.1", "1.2", "2.0"])
def test_a_current_or_newer_peer_gets_the_stream_unchanged(peer: str) -> None:
    out = downgrade_stream(STREAM, peer)
    assert out.events == STREAM and out.warnings == []


def test_an_uninterpretable_peer_version_is_refused() -> None:
    with pytest.raises(ValueError):
        downgrade_stream(STREAM, "latest")


def test_for_a_1_0_peer_the_type_is_stripped_with_a_warning_and_the_version_restated() -> None:
    before = copy.deepcopy(STREAM)
    out = downgrade_stream(STREAM, "1.0")
    assert STREAM == before, "pure: the input is not changed"
    assert out.emits == "1.0"
    assert out.events[0]["protocolVersion"] == "1.0"  # the translator declares what it emits
    assert "encryptedValueType" not in out.events[4]
    assert out.events[4]["encryptedValue"] == "c2ln"
    [warning] = out.warnings
    assert warning.event == 4 and warning.path == "/encryptedValueType"
    assert "anthropic.redacted_thinking" in warning.message and "1.1" in warning.message
    # pure transformation: same number of events, same order, same ids, same outcome
    assert [e["type"] for e in out.events] == [e["type"] for e in STREAM]
    assert out.events[-1] == FINISH
    assert lint_source(out.events).ok


def test_types_on_snapshot_messages_and_tool_calls_are_stripped_each_with_a_warning() -> None:
    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [
            {
                "id": "a1",
                "role": "assistant",
                "encryptedValue": "x",
                "encryptedValueType": "openai.encrypted_content",
                "toolCalls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "encryptedValue": "y",
                        "encryptedValueType": "openai.encrypted_content",
                    }
                ],
            },
            {"id": "u1", "role": "user", "content": "hi"},
        ],
    }
    out = downgrade_stream([START, snapshot, FINISH], "1.0")
    message = out.events[1]["messages"][0]
    assert "encryptedValueType" not in message and "encryptedValueType" not in message["toolCalls"][0]
    assert message["encryptedValue"] == "x" and message["toolCalls"][0]["encryptedValue"] == "y"
    assert out.events[1]["messages"][1] is snapshot["messages"][1]  # untouched members are shared
    assert sorted(w.path for w in out.warnings) == [
        "/messages/0/encryptedValueType",
        "/messages/0/toolCalls/0/encryptedValueType",
    ]


def test_warnings_can_be_silenced_but_not_by_default() -> None:
    loud = downgrade_stream(STREAM, "1.0")
    quiet = downgrade_stream(STREAM, "1.0", silence=True)
    assert loud.warnings and quiet.warnings == [] and quiet.silenced == len(loud.warnings)
    assert quiet.events == loud.events


def test_a_malformed_type_is_not_repaired_on_the_way_past() -> None:
    bad = {**VALUE, "encryptedValueType": 7}
    with pytest.raises(DowngradeError) as info:
        downgrade_stream([START, *REASONING, bad, FINISH], "1.0")
    assert isinstance(info.value, MalformedEventError)
    assert info.value.index == 4 and info.value.path == "/encryptedValueType"


def test_a_type_without_a_value_is_not_hidden_by_stripping_it() -> None:
    bad = {k: v for k, v in VALUE.items() if k != "encryptedValue"}
    with pytest.raises(DowngradeError, match="without encryptedValue"):
        downgrade_stream([START, *REASONING, bad, FINISH], "1.0")


def test_a_0x_peer_also_gets_the_era_shims_and_no_version_declaration() -> None:
    tagged = [
        START,
        {"type": "SUBAGENT_STARTED", "subagentRunId": "sa1"},
        {"type": "STEP_STARTED", "stepName": "s", "subagentRunId": "sa1"},
        {"type": "STEP_FINISHED", "stepName": "s", "subagentRunId": "sa1"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "sa1"},
        FINISH,
    ]
    out = downgrade_stream(tagged, "0.0.50")
    assert "protocolVersion" not in out.events[0]
    assert [e["type"] for e in out.events] == ["RUN_STARTED", "STEP_STARTED", "STEP_FINISHED", "RUN_FINISHED"]
    assert all("subagentRunId" not in e for e in out.events)  # lossless: silent
    assert len(out.warnings) == 2  # the two lifecycle events dropped: lossy, warned
    assert out.emits == "0.0.50"


def test_the_lossy_warning_names_the_peer_it_was_made_for() -> None:
    for peer in ("1.0", "0.0.50"):
        [warning] = [w for w in downgrade_stream(STREAM, peer).warnings if w.path.endswith("Type")]
        assert f"AG-UI {peer} peer" in warning.message and f"({peer} has no such field)" in warning.message


def test_run_input_for_a_1_0_producer() -> None:
    body = {
        "threadId": "t1",
        "runId": "r2",
        "protocolVersion": "1.1",
        "messages": [
            {
                "id": "r1m",
                "role": "reasoning",
                "content": "think",
                "encryptedValue": "c2ln",
                "encryptedValueType": "anthropic.redacted_thinking",
            },
        ],
    }
    out, warnings = downgrade_input(body, "1.0")
    assert out["protocolVersion"] == "1.0"
    assert "encryptedValueType" not in out["messages"][0] and out["messages"][0]["encryptedValue"] == "c2ln"
    [w] = warnings
    assert w.event is None and w.path == "/messages/0/encryptedValueType"
    assert body["messages"][0]["encryptedValueType"] == "anthropic.redacted_thinking"
    same, none = downgrade_input(body, None)
    assert same == body and none == []
