"""The buffering-proxy model (agentproto.orchestration.proxy): a simulation that returns data."""

from __future__ import annotations

import pytest

from agentproto.agui.events import RunStartedEvent
from agentproto.agui.sse import KEEP_ALIVE, encode_sse
from agentproto.orchestration.proxy import ProxyFrame, schedule_frames, simulate_proxy, with_heartbeats

EVENTS = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "get_order"},
    {"type": "TOOL_CALL_END", "toolCallId": "c"},
    {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": "x" * 300},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


def test_schedule_frames_uses_real_frame_sizes_and_the_tool_latency():
    frames = schedule_frames(EVENTS, gap_s=0.1, tool_s=30)
    assert [f.nbytes for f in frames] == [len(encode_sse(e)) for e in EVENTS]
    assert [f.t for f in frames] == [0.0, 0.1, 0.2, 30.2, 30.3]


def test_heartbeats_fill_only_idle_gaps_longer_than_the_interval():
    frames = with_heartbeats(schedule_frames(EVENTS, gap_s=0.1, tool_s=30), 10)
    beats = [f for f in frames if f.kind == "comment"]
    assert [b.t for b in beats] == [10.2, 20.2]  # none at 30.2: the result is due then
    assert all(b.nbytes == len(KEEP_ALIVE) for b in beats)
    assert with_heartbeats(frames, None) == frames


def test_without_buffering_every_frame_arrives_when_it_is_written():
    frames = schedule_frames(EVENTS, tool_s=5)
    run = simulate_proxy(frames, buffer_bytes=None, idle_timeout_s=None)
    assert run.delivered == [f.t for f in frames] and run.complete


def test_a_buffering_proxy_delivers_in_batches_and_flushes_at_the_end():
    frames = [ProxyFrame(float(i), 100, "E") for i in range(5)]
    run = simulate_proxy(frames, buffer_bytes=250, idle_timeout_s=None)
    assert run.delivered == [2.0, 2.0, 2.0, 4.0, 4.0]
    assert run.flushes == [2.0, 4.0] and run.first_event_at == 2.0


def test_an_idle_timeout_truncates_the_run_and_heartbeats_prevent_it_only_when_unbuffered():
    frames = schedule_frames(EVENTS, tool_s=90)
    cut = simulate_proxy(frames, buffer_bytes=None, idle_timeout_s=60)
    assert cut.cut_at == pytest.approx(60.1) and not cut.complete
    assert cut.events_delivered == 3
    alive = simulate_proxy(with_heartbeats(frames, 15), buffer_bytes=None, idle_timeout_s=60)
    assert alive.cut_at is None and alive.complete
    stuck = simulate_proxy(with_heartbeats(frames, 15), buffer_bytes=4096, idle_timeout_s=60)
    assert stuck.cut_at == 60 and stuck.events_delivered == 0  # heartbeats sit in the buffer


def test_models_and_wire_dicts_give_the_same_frames():
    model = RunStartedEvent(thread_id="t", run_id="r")
    assert schedule_frames([model]) == schedule_frames([EVENTS[0]])


@pytest.mark.parametrize(
    "call",
    [
        lambda: schedule_frames(EVENTS, gap_s=-1),
        lambda: schedule_frames(EVENTS, tool_s=-1),
        lambda: with_heartbeats(schedule_frames(EVENTS), -5),
        lambda: simulate_proxy(schedule_frames(EVENTS), buffer_bytes=0),
        lambda: simulate_proxy(schedule_frames(EVENTS), idle_timeout_s=0),
    ],
)
def test_settings_that_would_mean_nothing_are_refused(call):
    with pytest.raises(ValueError):
        call()
