"""The lifecycle verifier (spec 1.1 events/lifecycle; reference verify/verify.ts)."""

import json

import pytest

from agentproto.agui import (
    RULES,
    RUN_TRANSITIONS,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    RunState,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    VerificationError,
    Verifier,
    parse_event,
    rules_table,
    verify_events,
)


def ev(obj):
    return parse_event(obj).event


START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def check(*events):
    return verify_events([ev(e) for e in events])


def violation(*events):
    with pytest.raises(VerificationError) as info:
        check(*events)
    return info.value


def test_the_transition_table_covers_every_state_and_event_kind():
    for state in (RunState.START, RunState.ACTIVE, RunState.CLOSED, RunState.FAILED):
        assert set(RUN_TRANSITIONS[state]) == {"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "*"}
        for cell in RUN_TRANSITIONS[state].values():
            assert cell in RUN_TRANSITIONS or cell[1] in RULES


def test_every_rule_has_a_message_a_fix_and_a_spec_page():
    for row in rules_table():
        assert row["message"] and row["fix"] and row["spec"]


def test_a_plain_run_succeeds():
    [run] = check(START, FINISH)
    assert (run.thread_id, run.run_id, run.outcome) == ("t", "r", "success")


def test_tool_call_end_is_not_a_result():
    runs = check(
        START,
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        FINISH,
    )
    assert runs[0].outcome == "success"


def test_messages_are_the_reference_clients_verbatim():
    err = violation(START, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"})
    assert (err.rule, err.index, err.event_type) == ("text.content-unopened", 1, "TEXT_MESSAGE_CONTENT")
    assert err.message == (
        "Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text message "
        "found with ID 'm'. Start a text message with 'TEXT_MESSAGE_START' "
        "first."
    )


def test_open_items_at_finish_are_reported_in_the_reference_order():
    err = violation(
        START,
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "STEP_STARTED", "stepName": "s", "subagentRunId": "sa"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        FINISH,
    )
    assert err.message == "Cannot send 'RUN_FINISHED' while steps are still active: s (subagent 'sa')"


def test_run_finished_must_agree_on_run_id_and_thread_id():
    assert violation(START, FINISH | {"runId": "other"}).rule == "run.id-mismatch"
    assert violation(START, FINISH | {"threadId": "other"}).rule == "run.thread-mismatch"


def test_every_run_on_one_stream_carries_the_same_thread_id():
    err = violation(START, FINISH, START | {"threadId": "u", "runId": "r2"})
    assert (err.rule, err.index, err.event_type) == ("run.thread-changed", 2, "RUN_STARTED")
    assert err.message == (
        "Cannot send 'RUN_STARTED' for threadId 'u': this stream carries thread 't'. "
        "Every run on one stream carries the run input's threadId."
    )


def test_a_run_after_a_failed_run_may_not_switch_threads_either():
    err = violation(START, {"type": "RUN_ERROR", "message": "x"}, START | {"threadId": "u", "runId": "r2"})
    assert err.rule == "run.thread-changed"


def test_a_stream_opening_with_run_error_takes_its_thread_from_the_first_run_started():
    runs = check({"type": "RUN_ERROR", "message": "x"}, START, FINISH)
    assert [r.thread_id for r in runs] == [None, "t"]


def test_a_verifier_told_the_input_thread_id_rejects_a_first_run_on_another_thread():
    v = Verifier(thread_id="input-thread")
    with pytest.raises(VerificationError) as info:
        v.feed(ev(START))
    assert info.value.rule == "run.thread-changed" and "'input-thread'" in info.value.message
    ok = Verifier(thread_id="t")
    for e in (START, FINISH):
        ok.feed(ev(e))
    ok.close()
    assert ok.runs[0].outcome == "success"


def test_interrupt_ids_are_unique_within_one_outcome():
    outcome = {"type": "interrupt", "interrupts": [{"id": "i", "reason": "x"}, {"id": "i", "reason": "y"}]}
    err = violation(START, FINISH | {"outcome": outcome})
    assert "two interrupts carrying the id 'i'" in err.message


def test_an_interrupted_run_records_its_interrupts():
    outcome = {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "x"}, {"id": "i2", "reason": "y"}]}
    [run] = check(START, FINISH | {"outcome": outcome})
    assert run.outcome == "interrupt" and run.interrupt_ids == ["i1", "i2"]


def test_run_started_may_follow_run_finished_or_run_error():
    runs = check(
        START,
        FINISH,
        START | {"runId": "r2"},
        {"type": "RUN_ERROR", "message": "x"},
        START | {"runId": "r3"},
        FINISH | {"runId": "r3"},
    )
    assert [r.outcome for r in runs] == ["success", "failed", "success"]


def test_a_late_run_error_marks_the_closed_run_failed():
    [run] = check(START, FINISH, {"type": "RUN_ERROR", "message": "late"})
    assert run.outcome == "failed" and run.error == "late"


def test_nothing_follows_run_error_but_a_new_run():
    err = violation(START, {"type": "RUN_ERROR", "message": "x"}, {"type": "RUN_ERROR", "message": "y"})
    assert err.rule == "run.after-error"


def test_a_stream_ending_inside_a_run_is_truncated_never_success():
    v = Verifier()
    v.feed(ev(START))
    with pytest.raises(VerificationError) as info:
        v.close()
    assert info.value.rule == "run.truncated" and v.runs[0].outcome == "truncated"


def test_an_empty_stream_is_truncated_before_start():
    with pytest.raises(VerificationError) as info:
        Verifier().close()
    assert info.value.message.startswith("The stream ended without emitting 'RUN_STARTED'.")


def test_per_run_tracking_resets_at_each_run_started():
    # m is open when run 1 errors; run 2 may open m again.
    runs = check(
        START,
        {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        {"type": "RUN_ERROR", "message": "x"},
        START | {"runId": "r2"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        FINISH | {"runId": "r2"},
    )
    assert [r.outcome for r in runs] == ["failed", "success"]


def test_text_tool_span_and_reasoning_ids_are_separate_namespaces():
    check(
        START,
        {"type": "TEXT_MESSAGE_START", "messageId": "x"},
        {"type": "TOOL_CALL_START", "toolCallId": "x", "toolCallName": "f"},
        {"type": "REASONING_START", "messageId": "x"},
        {"type": "REASONING_MESSAGE_START", "messageId": "x", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_END", "messageId": "x"},
        {"type": "REASONING_END", "messageId": "x"},
        {"type": "TOOL_CALL_END", "toolCallId": "x"},
        {"type": "TEXT_MESSAGE_END", "messageId": "x"},
        FINISH,
    )


def test_an_untagged_continuation_never_disagrees():
    check(
        START,
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "sa"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        FINISH,
    )


def test_a_reopen_by_another_owner_is_rejected():
    err = violation(
        START,
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "a"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "b"},
    )
    assert err.message == (
        "Cannot send 'TEXT_MESSAGE_START': subagentRunId 'b' does not match "
        "the message 'm' opener's subagent 'a'."
    )


def test_messages_snapshot_seeds_owners_for_later_events():
    err = violation(
        START,
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [{"id": "m", "role": "assistant", "content": "x", "subagentRunId": "a"}],
        },
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "b"},
    )
    assert err.rule == "owner.mismatch"


def test_encrypted_value_for_a_tool_call_is_checked_against_the_calls_owner():
    err = violation(
        START,
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "subagentRunId": "a"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {
            "type": "REASONING_ENCRYPTED_VALUE",
            "subtype": "tool-call",
            "entityId": "c",
            "encryptedValue": "v",
            "subagentRunId": "b",
        },
    )
    assert "tool call 'c'" in err.message


def test_activity_delta_owner_must_match_the_snapshot():
    err = violation(
        START,
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "a",
            "activityType": "T",
            "content": {},
            "subagentRunId": "s1",
        },
        {"type": "ACTIVITY_DELTA", "messageId": "a", "activityType": "T", "patch": [], "subagentRunId": "s2"},
    )
    assert "activity 'a'" in err.message


def test_state_events_may_carry_attribution_as_provenance():
    check(START, {"type": "STATE_SNAPSHOT", "snapshot": {}, "subagentRunId": "sa"}, FINISH)


def test_verifier_accepts_models_built_in_python():
    v = Verifier()
    for event in [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m"),
        TextMessageContentEvent(message_id="m", delta="x"),
        TextMessageEndEvent(message_id="m"),
        ToolCallStartEvent(tool_call_id="c", tool_call_name="f"),
        ToolCallEndEvent(tool_call_id="c"),
        RunFinishedEvent(thread_id="t", run_id="r"),
        RunErrorEvent(message="late"),
    ]:
        v.feed(event)
    v.close()
    assert v.runs[0].outcome == "failed"


# --- wire dicts ----------------------------------------------------------------------------------


def test_verify_events_takes_wire_dicts_and_numbers_them_from_zero():
    from agentproto.agui import VerificationError, verify_events

    start = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    finish = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
    assert [r.outcome for r in verify_events([start, finish])] == ["success"]
    assert [r.outcome for r in verify_events([start, {"type": "UNKNOWN"}, finish])] == ["success"]
    with pytest.raises(VerificationError) as info:
        verify_events([start, {"type": "TEXT_MESSAGE_END", "messageId": "m"}, finish])
    assert info.value.index == 1 and info.value.rule == "text.end-unopened"
    assert [r.outcome for r in verify_events([json.dumps(start), json.dumps(finish)])] == ["success"]


def test_verify_events_refuses_what_is_not_an_event_by_name():
    from agentproto.agui import verify_events

    with pytest.raises(TypeError, match="item 0 is a int"):
        verify_events([42])
