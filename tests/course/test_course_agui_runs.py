"""Notebook 02's widgets (agentproto.course.agui_runs), driven from code as a learner drives them."""

from __future__ import annotations

import pytest

from agentproto.agui import lint_source
from agentproto.clock import FakeClock, IdFactory
from agentproto.course.agui_runs import (
    AWAITING_APPROVAL,
    DONE,
    NO_RESULT_YET,
    RunStepper,
    StreamEditor,
    ToolCallCards,
    around_run,
    replay,
)
from agentproto.demo.scripted import refund_input, refund_run, resume_run


@pytest.fixture(scope="module")
def runs():
    clock, ids = FakeClock(), IdFactory("id")
    first = refund_run(refund_input(), clock=clock, ids=ids)
    second = resume_run(first, ids=ids, clock=clock)
    return first, second


def _types(events):
    return [e.type.value if hasattr(e, "type") else e["type"] for e in events]


def _index(frames, event_type, nth=1):
    return [i for i, f in enumerate(frames) if f.type == event_type][nth - 1]


def test_replay_records_one_frame_per_event_with_the_consumers_view(runs):
    first, _ = runs
    frames = replay(first, messages=refund_input().messages)
    assert len(frames) == len(first)
    assert frames[0].run_state == "ACTIVE" and frames[-1].run_state == "CLOSED"
    assert frames[-1].state["stage"] == "awaiting_approval"
    assert frames[-1].pending_interrupts[0]["reason"] == "tool_call"
    assert frames[0].messages[0]["role"] == "user"


def test_a_tool_card_is_not_done_at_tool_call_end(runs):
    first, _ = runs
    frames = replay(first)
    end = _index(frames, "TOOL_CALL_END")
    assert [c.status for c in frames[end].cards] == [NO_RESULT_YET]
    assert [c.status for c in frames[end + 1].cards] == [DONE]  # TOOL_CALL_RESULT


def test_the_proposed_refund_waits_for_approval_and_is_never_done_in_the_first_run(runs):
    first, _ = runs
    frames = replay(first)
    refund = [f.cards[1].status for f in frames if len(f.cards) > 1]
    assert DONE not in refund
    assert refund[-1] == AWAITING_APPROVAL


def test_the_naive_card_claims_done_at_end_for_a_refund_that_never_ran(runs):
    first, _ = runs
    frames = replay(first, done_on="end")
    assert frames[-1].cards[1].name == "refund_order"
    assert frames[-1].cards[1].status == DONE


def test_the_refund_card_turns_done_only_with_the_resumed_runs_result(runs):
    first, second = runs
    frames = replay(first + second)
    result_at = len(first) + _types(second).index("TOOL_CALL_RESULT")
    assert frames[result_at - 1].cards[1].status != DONE
    assert frames[result_at].cards[1].status == DONE
    assert "refundId" in frames[result_at].cards[1].result


def test_replay_stops_at_the_first_rejected_event():
    events = around_run({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"})
    frames = replay(events)
    assert len(frames) == 2
    assert "text.content-unopened" in frames[-1].error


def test_the_stepper_is_driven_by_its_buttons(runs):
    first, _ = runs
    stepper = RunStepper(first, title="refund")
    stepper.next_button.click()
    stepper.next_button.click()
    assert stepper.index == 2 and stepper.frame.index == 2
    stepper.go(stepper.find("TOOL_CALL_END", 2))
    assert "refund_order" in stepper.view.value
    assert "arguments complete" in stepper.view.value
    stepper.reset_button.click()
    assert stepper.index == 0
    with pytest.raises(ValueError):
        stepper.find("SUBAGENT_STARTED")


def test_deleting_a_text_start_in_the_editor_gives_the_verifiers_message(runs):
    first, _ = runs
    editor = StreamEditor(first)
    assert editor.report.ok
    editor.operation.value = "delete"
    editor.position.value = _types(first).index("TEXT_MESSAGE_START")
    editor.apply_button.click()
    assert editor.report.error["rule"] == "text.content-unopened"
    assert "No active text message found" in editor.view.value
    editor.reset_button.click()
    assert editor.report.ok and editor.history == []


def test_moving_run_finished_earlier_breaks_the_lifecycle(runs):
    first, _ = runs
    editor = StreamEditor(first)
    editor.operation.value = "swap with next"
    editor.position.value = len(first) - 2  # MESSAGES_SNAPSHOT ↔ RUN_FINISHED
    editor.apply_button.click()
    assert editor.report.error["rule"] == "run.after-finished"
    editor.operation.value = "delete"
    editor.position.value = len(first) - 1  # now the trailing MESSAGES_SNAPSHOT
    editor.apply_button.click()
    assert editor.report.ok
    assert len(editor.history) == 2


def test_frames_are_numbered_from_zero_like_the_pipelines_errors():
    events = around_run({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"})
    frames = replay(events)
    assert [f.index for f in frames] == [0, 1]
    assert lint_source(events).error["event"] == frames[-1].index == 1


def test_the_editor_position_is_the_index_the_verdict_names(runs):
    first, _ = runs
    editor = StreamEditor(first)
    assert (editor.position.min, editor.position.max) == (0, len(first) - 1)
    editor.operation.value = "delete"
    editor.position.value = 1  # events[1] is a STEP_STARTED or TEXT_MESSAGE_START
    removed = editor.edited[1]["type"]
    editor.apply_button.click()
    assert editor.history == [f"delete #1 {removed}"]
    assert editor.position.max == len(first) - 2


def test_tool_cards_refuse_a_done_mode_that_does_not_exist():
    from agentproto.agui import StateReducer

    with pytest.raises(ValueError):
        ToolCallCards(StateReducer(), done_on="start")
