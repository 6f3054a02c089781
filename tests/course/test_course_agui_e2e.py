"""Notebook 08's sequence diagrams, drawn from a thread's real event log."""

from __future__ import annotations

import matplotlib.pyplot as plt

from agentproto.course.agui_e2e import LANES, Arrow, plot_sequence, sequence_from_log, sequence_from_store
from agentproto.course.agui_ui import ApprovalCard

REFUND = "check order A1024 and refund it if shipped"


def test_sequence_collapses_triads_and_shows_mcp_calls_only_for_executed_tools():
    run1 = [
        {"type": "RUN_STARTED"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "refund_order"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [{"id": "i"}]}},
    ]
    run2 = [
        {"type": "RUN_STARTED"},
        {
            "type": "TOOL_CALL_RESULT",
            "toolCallId": "c",
            "messageId": "r",
            "content": '{"executed":false,"reason":"denied"}',
        },
        {"type": "RUN_FINISHED"},
    ]
    arrows = sequence_from_log([("r1", "new", run1), ("r2", "resume", run2)], decisions={"r2": "denies"})
    labels = [a.label for a in arrows]
    assert "TEXT_MESSAGE_START/CONTENT×2/END" in labels
    assert "TOOL_CALL_START/ARGS/END refund_order" in labels
    assert "shows the approval card" in labels and "denies" in labels
    assert not any(a.dst == "MCP tools" for a in arrows)  # a denial calls no tool
    assert labels[-1] == "RUN_FINISHED (success)"


def test_sequence_from_store_draws_the_real_flow(server, client, interrupted):
    ApprovalCard(client, "t-1").approve_button.click()
    arrows = sequence_from_store(server.app.state.store, "t-1")
    calls = [a.label for a in arrows if a.kind == "call"]
    assert calls == ["tools/call get_order", "tools/call refund_order"]
    assert Arrow("User", "UI (client)", "approves", "human", arrows[-1].run_id) in arrows
    assert {a.src for a in arrows} | {a.dst for a in arrows} <= set(LANES)
    fig = plot_sequence(arrows, title="refund")
    assert fig.axes[0].get_title() == "refund"
    plt.close(fig)
