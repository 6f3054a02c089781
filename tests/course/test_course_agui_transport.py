"""Notebook 04's proxy-buffering lab and plot (agentproto.course.agui_transport)."""

from __future__ import annotations

import matplotlib.pyplot as plt

from agentproto.course.agui_transport import ProxyBufferingLab, plot_proxy_runs
from agentproto.orchestration.proxy import schedule_frames, simulate_proxy

EVENTS = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "get_order"},
    {"type": "TOOL_CALL_END", "toolCallId": "c"},
    {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": "x" * 300},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def test_proxy_lab_redraws_from_its_controls():
    lab = ProxyBufferingLab(EVENTS, tool_latency_s=90, idle_timeout_s=60)
    assert not lab.run.complete and lab.plot.value
    lab.buffering.value = lab.MODES[1]
    lab.heartbeat.value = 15
    assert lab.run.complete and lab.run.buffer_bytes is None
    lab.idle_timeout.value = 120
    lab.buffering.value = lab.MODES[0]
    assert lab.run.complete and lab.run.batches == 1
    assert "5/5 events" in lab.summary.value


def test_plot_proxy_runs_draws_one_panel_per_scenario():
    frames = schedule_frames(EVENTS, tool_s=90)
    fig = plot_proxy_runs({"a": simulate_proxy(frames), "b": simulate_proxy(frames, buffer_bytes=None)})
    assert len(fig.axes) == 2
    plt.close(fig)
