"""The truncation marker on an oversize tool result says what was cut (notebook 08, matrix row 7)."""

from __future__ import annotations

import pytest

from agentproto.agui import events as ev
from agentproto.agui.interrupts import ResumePlan
from agentproto.agui.parse import parse_run_agent_input
from agentproto.agui.runner import RunContext, RunDriver
from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.refund_agent import RefundAgent
from agentproto.demo.tools import FakeToolProvider, truncate_result_text


def test_text_that_fits_is_returned_unchanged_without_metadata():
    assert truncate_result_text("abc", 3) == ("abc", None)
    assert truncate_result_text("", 0) == ("", None)


def test_the_marker_names_the_removed_count_out_of_the_original_length():
    text, metadata = truncate_result_text("x" * 200_321, 4_000)
    assert text == "x" * 4_000 + "… [truncated: 196321 of 200321 chars]"
    assert metadata == {"agentproto.truncated": True, "agentproto.originalLength": 200_321}
    kept = len(text) - len("… [truncated: 196321 of 200321 chars]")
    assert kept == 4_000 and 200_321 - kept == 196_321


def test_a_negative_budget_is_refused():
    with pytest.raises(ValueError):
        truncate_result_text("abc", -1)


def test_the_refund_agent_marks_an_oversize_result_with_kept_and_removed_counts():
    tools = FakeToolProvider()
    tools.inject("get_order", "oversize", size_chars=50_000)
    run_input, _ = parse_run_agent_input(
        {
            "threadId": "t",
            "runId": "r",
            "messages": [{"id": "u-1", "role": "user", "content": "refund order A1028"}],
        }
    )
    ctx = RunContext.start(
        run_input,
        ResumePlan("new", "t"),
        clock=FakeClock(),
        ids=IdFactory("id"),
        state={},
        messages=[ev.dump_model(m) for m in run_input.messages],
    )
    events = RunDriver(RefundAgent(tools, max_result_chars=1_000), ctx).run_to_end()
    (result,) = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    original = result.metadata["agentproto.originalLength"]
    marker = f"… [truncated: {original - 1_000} of {original} chars]"
    assert result.content.endswith(marker)
    assert len(result.content) == 1_000 + len(marker)
