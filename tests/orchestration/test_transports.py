"""Notebook 01's model: one agent run seen through four transports."""

from __future__ import annotations

import pytest

from agentproto.orchestration.transports import (
    CAPABILITIES,
    agui_events,
    compare,
    refund_run_script,
    simulate,
)


def results(**kw):
    return {r.transport: r for r in compare(**kw)}


def test_ag_ui_shows_every_capability_on_one_request():
    agui = results()["ag-ui"]
    assert agui.requests == 1
    assert all(agui.shown_at[c] is not None for c in CAPABILITIES)


def test_polling_shows_nothing_until_the_first_poll_after_the_run_pauses():
    script = refund_run_script(model_latency=1.5)
    done = next(h.t for h in script if h.kind == "done")
    polled = simulate("polling", script, poll_interval=2.0)
    assert polled.first_progress is not None and polled.first_progress >= done
    assert polled.first_progress == pytest.approx(2.0 * -(-done // 2.0))  # next multiple of 2 s
    assert polled.requests == int(-(-done // 2.0)) + 1


def test_shorter_poll_interval_costs_more_requests_for_less_delay():
    slow, fast = simulate("polling", refund_run_script(), 3.0), simulate("polling", refund_run_script(), 0.5)
    assert fast.requests > slow.requests
    assert fast.first_progress <= slow.first_progress


def test_provider_passthrough_opens_one_stream_per_model_call_and_never_shows_tool_results():
    raw = results()["provider-sse"]
    assert raw.requests == 2
    assert raw.shown_at["tool results"] is None and raw.shown_at["approval request"] is None
    assert raw.shown_at["text"] == pytest.approx(1.5)


def test_adhoc_websocket_drops_message_types_the_front_end_does_not_know():
    ws = results()["websocket"]
    assert ws.shown_at["shared state"] is None and ws.shown_at["approval request"] is None


def test_streaming_transports_show_the_first_token_after_model_latency():
    for latency in (0.5, 3.0):
        for name in ("websocket", "provider-sse", "ag-ui"):
            assert results(model_latency=latency)[name].first_progress == pytest.approx(latency)


def test_visible_at_grows_over_time():
    agui = results()["ag-ui"]
    assert agui.visible_at(0.0) == []
    assert agui.visible_at(agui.finished_at) == list(CAPABILITIES)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        simulate("carrier-pigeon", refund_run_script())
    with pytest.raises(ValueError):
        simulate("polling", refund_run_script(), poll_interval=0)
    with pytest.raises(ValueError):
        refund_run_script(token_interval=0)


def test_agui_events_form_one_run_that_ends_interrupted():
    events = agui_events(refund_run_script())
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    assert events[-1]["outcome"]["type"] == "interrupt"
    starts = [e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START"]
    ends = [e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_END"]
    assert starts == ends == ["msg-1", "msg-2"]


def test_the_refund_approval_is_a_free_standing_confirmation_not_bound_to_a_tool_call():
    # AG-UI interrupts page, "Reason taxonomy": confirmation is "not bound to a tool";
    # an interrupt bound to a call would be tool_call with its toolCallId.
    events = agui_events(refund_run_script())
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    tool_calls = {e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"}
    answered = {e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_RESULT"}
    assert tool_calls == answered  # no call is left awaiting a decision
    assert interrupt["reason"] == "confirmation" and "toolCallId" not in interrupt
