"""The scripted refund scenario (agentproto.demo.scripted): real agent, real driver, no server."""

from __future__ import annotations

import pytest

from agentproto.agui import EventType, lint_source, verify_events
from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.scripted import REFUND_REQUEST, refund_input, refund_run, resume_run


@pytest.fixture(scope="module")
def runs():
    clock, ids = FakeClock(), IdFactory("id")
    first = refund_run(refund_input(), clock=clock, ids=ids)
    second = resume_run(first, ids=ids, clock=clock)
    return first, second


def _types(events):
    return [e.type.value if hasattr(e, "type") else e["type"] for e in events]


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
    refund_call = next(
        e for e in first if e.type is EventType.TOOL_CALL_START and e.tool_call_name == "refund_order"
    )
    assert "TOOL_CALL_START" not in _types(second)
    result = next(e for e in second if e.type is EventType.TOOL_CALL_RESULT)
    assert result.tool_call_id == refund_call.tool_call_id
    assert lint_source(first + second).ok


def test_the_scripted_runs_are_deterministic():
    assert refund_run() == refund_run()
    assert refund_input().messages[0].content == REFUND_REQUEST


def test_a_denied_resume_answers_the_call_without_running_the_tool(runs):
    first, _ = runs
    second = resume_run(first, approved=False, ids=IdFactory("id"))
    result = next(e for e in second if e.type is EventType.TOOL_CALL_RESULT)
    assert '"executed":false' in result.content.replace(" ", "")
    assert lint_source(first + second).ok


def test_resuming_a_run_that_asked_nothing_is_refused(runs):
    _, second = runs
    with pytest.raises(ValueError, match="interrupt"):
        resume_run(second)
    with pytest.raises(ValueError, match="interrupt"):
        resume_run([])
