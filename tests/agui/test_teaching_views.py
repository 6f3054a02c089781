"""The notebook helpers of 02, 03 and 05: driven from code exactly as a learner drives them."""

from __future__ import annotations

import pytest

from agentproto.agui import EventType, lint_source, verify_events
from agentproto.agui.teaching_views import (
    AWAITING_APPROVAL,
    CATEGORIES,
    CHUNK_PRESETS,
    DONE,
    NO_RESULT_YET,
    VERSION_KEY,
    ChunkLab,
    DriftLab,
    RunStepper,
    StreamEditor,
    around_run,
    category_of,
    drift,
    expand_side_by_side,
    format_messages,
    lossy_channel,
    order_state_stream,
    refund_input,
    refund_run,
    replay,
    resume_run,
    simulate_drift,
    truth_states,
    verdict,
)
from agentproto.clock import FakeClock, IdFactory


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


# --- notebook 02: the refund run ---------------------------------------------------------------

def test_the_refund_run_ends_with_an_interrupt_not_a_success(runs):
    first, _ = runs
    runs_ = verify_events(first)
    assert [r.outcome for r in runs_] == ["interrupt"]
    interrupt = first[-1].outcome.interrupts[0]
    assert interrupt.reason == "tool_call"
    assert "A1024" in interrupt.message


def test_the_snapshots_come_before_the_interrupting_run_finished(runs):
    first, _ = runs
    assert _types(first)[-3:] == ["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]


def test_the_resumed_run_answers_the_original_tool_call_without_a_new_triad(runs):
    first, second = runs
    refund_call = next(e for e in first if e.type is EventType.TOOL_CALL_START
                       and e.tool_call_name == "refund_order")
    assert "TOOL_CALL_START" not in _types(second)
    result = next(e for e in second if e.type is EventType.TOOL_CALL_RESULT)
    assert result.tool_call_id == refund_call.tool_call_id
    assert lint_source(first + second).ok


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
    assert stepper.index == 2 and stepper.frame.number == 3
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
    editor.position.value = _types(first).index("TEXT_MESSAGE_START") + 1
    editor.apply_button.click()
    assert editor.report.error["rule"] == "text.content-unopened"
    assert "No active text message found" in editor.view.value
    editor.reset_button.click()
    assert editor.report.ok and editor.history == []


def test_moving_run_finished_earlier_breaks_the_lifecycle(runs):
    first, _ = runs
    editor = StreamEditor(first)
    editor.operation.value = "swap with next"
    editor.position.value = len(first) - 1   # MESSAGES_SNAPSHOT ↔ RUN_FINISHED
    editor.apply_button.click()
    assert editor.report.error["rule"] == "run.after-finished"
    editor.operation.value = "delete"
    editor.position.value = len(first)       # now the trailing MESSAGES_SNAPSHOT
    editor.apply_button.click()
    assert editor.report.ok
    assert len(editor.history) == 2


def test_verdict_names_event_rule_and_message():
    report = lint_source(around_run({"type": "TOOL_CALL_END", "toolCallId": "c1"}))
    text = verdict(report)
    assert "at event 2 (TOOL_CALL_END)" in text and "[tool.end-unopened]" in text
    assert verdict(lint_source(around_run())).startswith("✓ conformant — runs: run-1 success")


def test_format_messages_shows_roles_and_tool_calls(runs):
    first, _ = runs
    table = format_messages(replay(first)[-1].messages)
    assert "calls refund_order(" in table and "tool" in table
    assert format_messages([]) == "(no messages)"


# --- notebook 03: the catalogue and chunks -------------------------------------------------------

def test_the_categories_hold_every_event_type_exactly_once():
    listed = [t for members in CATEGORIES.values() for t in members]
    assert sorted(t.value for t in listed) == sorted(t.value for t in EventType)
    assert len(listed) == len(set(listed)) == 31
    assert category_of("CUSTOM") == "passthrough"
    with pytest.raises(KeyError):
        category_of("THINKING_START")


def test_text_chunks_expand_into_a_triad_closed_by_run_finished():
    expansion = expand_side_by_side(CHUNK_PRESETS["text chunks"])
    assert [[o["type"] for o in outs] for _, outs in expansion.rows] == [
        ["RUN_STARTED"], ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"],
        ["TEXT_MESSAGE_CONTENT"], ["TEXT_MESSAGE_END", "RUN_FINISHED"]]
    assert expansion.error is None and "│" in str(expansion)


def test_a_first_chunk_without_an_id_is_an_error_not_an_invented_id():
    expansion = expand_side_by_side(CHUNK_PRESETS["first chunk without an id"])
    assert "First TEXT_MESSAGE_CHUNK must have a messageId" in expansion.error


def test_a_stream_that_ends_mid_chunk_synthesizes_no_end():
    expansion = expand_side_by_side(CHUNK_PRESETS["stream ends mid-chunk"])
    assert "TEXT_MESSAGE_END" not in [e["type"] for e in expansion.events]
    assert expansion.discarded == ["text 'm1'"]


def test_every_preset_expands_and_lints_without_crashing():
    for name, events in CHUNK_PRESETS.items():
        expansion = expand_side_by_side(events)
        report = lint_source(events)
        assert (expansion.error is None) or not report.ok, name


def test_the_chunk_lab_reacts_to_its_preset_and_text_box():
    lab = ChunkLab()
    assert lab.report.ok
    lab.preset.value = "ambiguous continuation"
    assert "Ambiguous TEXT_MESSAGE_CHUNK" in lab.view.value
    assert lab.report.error["rule"] == "chunk.ambiguous"
    lab.source.value = "{not json"
    lab.expand_button.click()
    assert lab.report is None and "not JSON lines" in lab.view.value
    lab.preset.value = "two subagent lanes"
    assert lab.report.ok
    assert {m["subagentRunId"] for m in lab.report.messages} == {"sa-search", "sa-billing"}


# --- notebook 05: shared state -------------------------------------------------------------------

def test_the_producer_stream_is_a_snapshot_then_numbered_deltas():
    events = order_state_stream(20, seed=1)
    assert events[0].type is EventType.STATE_SNAPSHOT
    assert [e.metadata[VERSION_KEY] for e in events] == list(range(21))
    report = lint_source(around_run(*events))
    assert report.ok and report.warnings == []
    assert report.state == truth_states(events)[-1]


def test_a_perfect_channel_delivers_everything_in_order():
    events = order_state_stream(20)
    deliveries = lossy_channel(events)
    assert [d.event for d in deliveries] == events[1:]
    run = simulate_drift(events, deliveries)
    assert set(run.drift) == {0} and run.warnings == []


def test_the_channel_is_seeded():
    events = order_state_stream(30)
    a = lossy_channel(events, drop=0.3, reorder=0.2, seed=5)
    b = lossy_channel(events, drop=0.3, reorder=0.2, seed=5)
    assert [d.fate for d in a] == [d.fate for d in b]
    assert {d.fate for d in lossy_channel(events, drop=1.0)} == {"dropped"}


def test_a_lost_append_drifts_forever_without_a_guard_and_heals_with_one():
    events = order_state_stream(60)
    deliveries = lossy_channel(events, drop=0.15, seed=3)
    assert deliveries[-1].fate == "delivered"
    plain = simulate_drift(events, deliveries)
    guarded = simulate_drift(events, deliveries, guard=True)
    assert plain.final_drift > 0
    assert guarded.final_drift == 0
    assert guarded.resyncs and guarded.snapshots == len(guarded.resyncs)
    assert guarded.slots_out_of_sync < plain.slots_out_of_sync


def test_periodic_snapshots_also_repair_the_unguarded_consumer():
    events = order_state_stream(60)
    deliveries = lossy_channel(events, drop=0.15, seed=3)
    run = simulate_drift(events, deliveries, snapshot_every=10)
    assert all(run.drift[k - 1] == 0 for k in (10, 20, 30, 40, 50, 60))
    assert run.snapshots == 6 and run.snapshot_bytes > 0


def test_drift_counts_patch_operations():
    assert drift({"a": 1}, {"a": 1}) == 0
    assert drift({"a": 1, "b": [1]}, {"a": 2, "b": [1, 2]}) == 2


def test_the_drift_lab_redraws_when_a_slider_moves():
    lab = DriftLab(drop=0.0, reorder=0.0)
    assert set(lab.plain.drift) == {0}
    runs_before = lab.runs
    lab.drop.value = 0.2
    assert lab.runs == runs_before + 1
    assert "dropped" in lab.summary_text and lab.svg.startswith("<svg")
    assert lab.plain.final_drift >= lab.guarded.final_drift
    lab.snapshot_every.value = 5
    assert lab.plain.snapshots > 0
