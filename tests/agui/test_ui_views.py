"""The notebook views for AG-UI over the wire, driven from code as a learner would drive them.

Widgets are clicked (``.click()``) and slid (``.value = …``) against a real demo server on a
loopback port; the simulation and the diagram builders are pure and checked on small vectors.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import matplotlib.pyplot as plt
import pytest

from agentproto.agui.client import AGUIClient, SyncAGUIClient
from agentproto.agui.sse import KEEP_ALIVE, SSEDecoder, encode_sse
from agentproto.agui.ui_views import (
    LANES,
    UI_INTENT_EVENT,
    ApprovalCard,
    Arrow,
    ComponentRegistry,
    FallbackComponent,
    Frame,
    IntentRenderer,
    OrderComponent,
    ProxyBufferingLab,
    RefundComponent,
    TapTransport,
    UIIntent,
    audit_trail,
    plot_proxy_runs,
    plot_sequence,
    schedule_frames,
    sequence_from_log,
    sequence_from_store,
    simulate_proxy,
    text_table,
    validate_ui_intent,
    with_heartbeats,
)
from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import create_app
from agentproto.testing import RunningServer

REFUND = "check order A1024 and refund it if shipped"


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def server(clock):
    app = create_app(clock=clock, ids=IdFactory("srv"), a2a_agent=None)
    with RunningServer(app) as running:
        running.app = app
        yield running


@pytest.fixture
def client(server, clock):
    with SyncAGUIClient(server.url, ids=IdFactory("ui"), clock=clock) as sync:
        yield sync


@pytest.fixture
def interrupted(client):
    """A thread whose first run ended asking to approve the refund of A1024."""
    first = client.send("t-1", REFUND)
    assert first.outcome == "interrupt"
    return first


# --- the wire tap -------------------------------------------------------------------------------

def test_tap_records_the_raw_sse_bytes_exactly_as_the_client_decodes_them(server, clock):
    async def scenario():
        tap = TapTransport()
        async with AGUIClient(server.url, ids=IdFactory("ui"), clock=clock,
                              http=httpx.AsyncClient(transport=tap)) as c:
            result = await c.send("t-1", REFUND)
        return tap, result

    tap, result = asyncio.run(scenario())
    capture = tap.streams[-1]
    assert capture.request_json["threadId"] == "t-1"
    assert capture.headers["x-accel-buffering"] == "no"
    assert capture.headers["cache-control"] == "no-cache"
    assert capture.raw.startswith(b"data: {")
    decoded = [json.loads(f) for f in SSEDecoder().feed(capture.raw)]
    assert [e["type"] for e in decoded] == result.types


def test_a_dropped_stream_is_recovered_from_the_snapshot_and_the_run_still_completes(
        server, clock):
    async def scenario():
        tap = TapTransport()
        async with AGUIClient(server.url, ids=IdFactory("ui"), clock=clock,
                              http=httpx.AsyncClient(transport=tap)) as c:
            tap.drop_next(after_events=5)
            result = await c.send("t-1", REFUND)
            snapshot = await c.snapshot("t-1")
            return tap, result, c.thread("t-1"), snapshot

    tap, result, view, snapshot = asyncio.run(scenario())
    assert tap.streams[-1].dropped and tap.streams[-1].frames_delivered == 5
    assert result.recovered and result.outcome == "interrupt"
    assert view.state == snapshot["state"] and view.messages == snapshot["messages"]
    store = server.app.state.store
    events = store.events("t-1", result.run_id)
    assert events[-1]["type"] == "RUN_FINISHED"  # disconnect is not cancel
    assert len(events) > 5


def test_dropping_after_zero_events_delivers_nothing_and_the_client_still_recovers(server,
                                                                                   clock):
    async def scenario():
        tap = TapTransport()
        async with AGUIClient(server.url, ids=IdFactory("ui"), clock=clock,
                              http=httpx.AsyncClient(transport=tap)) as c:
            tap.drop_next(after_events=0)
            return tap, await c.send("t-1", REFUND)

    tap, result = asyncio.run(scenario())
    assert tap.streams[-1].raw == b"" and tap.streams[-1].dropped
    assert result.events == [] and result.recovered and result.outcome == "interrupt"


def test_an_unterminated_last_frame_passes_through_the_tap():
    class Body(httpx.AsyncByteStream):
        async def __aiter__(self):
            yield b'data: {"a":1}\n\ndata: {"b"'

    class Inner(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request):
            return httpx.Response(200, headers={"content-type": "text/event-stream"},
                                  stream=Body())

    async def scenario():
        tap = TapTransport(Inner())
        tap.drop_next(after_events=5)
        async with httpx.AsyncClient(transport=tap) as http:
            response = await http.post("http://test/agent", json={"x": 1})
        return tap, response.content

    tap, body = asyncio.run(scenario())
    assert body == b'data: {"a":1}\n\ndata: {"b"' == tap.last.raw
    assert tap.last.request_json == {"x": 1} and not tap.last.dropped


def test_drop_next_refuses_a_negative_count():
    with pytest.raises(ValueError):
        TapTransport().drop_next(-1)


# --- the proxy model ----------------------------------------------------------------------------

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
    frames = [Frame(float(i), 100, "E") for i in range(5)]
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
    fig = plot_proxy_runs({"a": simulate_proxy(frames), "b": simulate_proxy(frames,
                                                                           buffer_bytes=None)})
    assert len(fig.axes) == 2
    plt.close(fig)


# --- the approval card --------------------------------------------------------------------------

def test_approve_button_refunds_once_and_disables_the_card(server, client, interrupted):
    card = ApprovalCard(client, "t-1")
    assert card.proposed == {"orderId": "A1024", "amountCents": 12800,
                             "reason": "customer request"}
    card.approve_button.click()
    assert card.result.ok and card.sent == ["approve"]
    assert all(b.disabled for b in card.buttons)
    card.approve_button.click()  # a disabled button in a browser; from code: still one refund
    assert len(server.app.state.tools.refunds()) == 1


def test_edited_approval_sends_only_the_changed_fields(server, client, interrupted):
    card = ApprovalCard(client, "t-1")
    card.fields["amountCents"].value = 5000
    assert card.edits() == {"amountCents": 5000}
    card.edit_button.click()
    assert [r["amountCents"] for r in server.app.state.tools.refunds()] == [5000]


def test_deny_and_cancel_refund_nothing(server, clock, interrupted, client):
    ApprovalCard(client, "t-1").deny_button.click()
    client.send("t-2", "please refund order A1026")
    card = ApprovalCard(client, "t-2")
    card.cancel_button.click()
    assert card.result.ok
    assert server.app.state.tools.refunds() == []


def test_an_expired_approval_is_refused_on_the_card_but_can_still_be_cancelled(
        server, clock, client, interrupted):
    card = ApprovalCard(client, "t-1")
    clock.advance(16 * 60 * 1000)
    card.approve_button.click()
    assert type(card.error).__name__ == "InterruptExpiredError"
    assert "expired" in card.status.value and not card.approve_button.disabled
    card.cancel_button.click()
    assert card.error is None and card.result.ok and card.sent == ["cancel"]


def test_card_escapes_what_the_agent_wrote(client, interrupted):
    card = ApprovalCard(client, "t-1", {**interrupted.interrupts[0],
                                       "message": "<img src=x onerror=alert(1)>"})
    assert "<img" not in card.header.value and "&lt;img" in card.header.value


def test_card_needs_a_pending_interrupt(client):
    client.thread("t-9")
    with pytest.raises(ValueError):
        ApprovalCard(client, "t-9")


def test_audit_trail_has_proposed_args_decision_and_result(server, client, interrupted):
    card = ApprovalCard(client, "t-1")
    card.fields["amountCents"].value = 6400
    card.edit_button.click()
    (row,) = audit_trail(server.app.state.store, "t-1")
    assert row.tool == "refund_order"
    assert row.tool_call_id == interrupted.interrupts[0]["toolCallId"]
    assert row.proposed["amountCents"] == 12800
    assert row.decision == {"status": "resolved",
                            "payload": {"approved": True, "editedArgs": {"amountCents": 6400}}}
    assert row.result["amountCents"] == 6400 and row.decided_by == card.result.run_id


def test_audit_trail_of_a_pending_interrupt_has_no_decision_yet(server, interrupted):
    (row,) = audit_trail(server.app.state.store, "t-1")
    assert row.status == "pending" and row.decision is None and row.result is None


# --- the component registry ---------------------------------------------------------------------

def test_registry_maps_tool_names_to_components_and_tool_call_end_is_not_a_result(interrupted):
    registry = ComponentRegistry()
    seen = []
    for event in interrupted.events:
        component = registry.feed(event)
        if component is not None and event["type"] == "TOOL_CALL_END":
            seen.append(component.status)
    assert seen == ["arguments complete — no result yet"] * 2
    lookup, refund = registry.cards.values()
    assert isinstance(lookup, OrderComponent) and lookup.status == "done"
    assert lookup.result["status"] == "shipped"
    assert isinstance(refund, RefundComponent) and refund.status == "awaiting approval"
    assert "waiting for a person" in refund.view.value
    assert len(registry.widget().children) == 2


def test_registry_shows_unknown_tools_with_an_escaped_fallback_component():
    registry = ComponentRegistry()
    registry.feed_all([
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "<b>wipe</b>"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"x":"<script>1</script>"}'},
    ])
    component = registry.cards["c1"]
    assert isinstance(component, FallbackComponent) and component.args is None
    assert "<script>" not in component.view.value and "<b>wipe" not in component.view.value
    registry.reset()
    assert registry.describe() == "(no tool calls)"


def test_a_not_executed_result_answers_the_call_and_says_so():
    registry = ComponentRegistry()
    registry.feed_all([
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "refund_order"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c",
         "delta": '{"orderId":"A1024","amountCents":100}'},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c",
         "content": '{"executed":false,"reason":"denied"}'},
    ])
    component = registry.cards["c"]
    assert component.status == "done" and component.executed is False
    assert "not executed (denied)" in component.view.value
    assert component.text().endswith("(not executed)")


def test_a_resumed_run_answers_the_original_card(server, client, interrupted):
    registry = ComponentRegistry().feed_all(interrupted.events)
    card = ApprovalCard(client, "t-1")
    card.approve_button.click()
    registry.feed_all(card.result.events)
    assert len(registry.cards) == 2  # no new card: the result hangs on the original call
    refund = registry.cards[interrupted.interrupts[0]["toolCallId"]]
    assert refund.status == "done" and "refunded 128.00" in refund.view.value


# --- UI intents ---------------------------------------------------------------------------------

def custom(value, name=UI_INTENT_EVENT):
    return {"type": "CUSTOM", "name": name, "value": value}


@pytest.mark.parametrize("value, rule", [
    ({"component": "iframe", "props": {"src": "https://x"}}, "intent.unknown-component"),
    ({"component": "notice", "props": {"level": "info", "text": "<script>x</script>"}},
     "intent.unsafe-content"),
    ({"component": "notice", "props": {"level": "info", "text": "hi", "onclick": "x"}},
     "intent.invalid-props"),
    ({"component": "link_button", "props": {"label": "pay", "href": "javascript:alert(1)"}},
     "intent.unsafe-content"),
    ({"component": "link_button", "props": {"label": "pay", "href": "https://evil.test/"}},
     "intent.invalid-props"),
    ({"component": "progress", "props": {"label": "x", "percent": 140}}, "intent.invalid-props"),
    ({"component": "notice", "props": {"level": "info", "text": "x" * 3000}}, "intent.too-large"),
    ({"props": {}}, "intent.envelope"),
    ("just text", "intent.envelope"),
])
def test_unsafe_or_unknown_ui_intents_are_refused_with_a_rule(value, rule):
    from agentproto.agui.ui_views import UIIntentError

    with pytest.raises(UIIntentError) as info:
        validate_ui_intent(custom(value))
    assert info.value.rule == rule


def test_allow_listed_intents_pass_as_events_or_bare_values():
    value = {"component": "progress", "props": {"label": "Refunding", "percent": 40}}
    assert validate_ui_intent(custom(value)) == UIIntent("progress", value["props"])
    assert validate_ui_intent(value).component == "progress"


def test_renderer_renders_accepted_refuses_unsafe_and_ignores_other_custom_names():
    renderer = IntentRenderer()
    renderer.feed(custom({"component": "notice", "props": {"level": "warning",
                                                          "text": "Refund pending"}}))
    renderer.feed(custom({"component": "notice", "props": {"level": "info",
                                                          "text": "<iframe src=x>"}}))
    renderer.feed(custom({"anything": 1}, name="com.example.analytics"))
    renderer.feed({"type": "TEXT_MESSAGE_START", "messageId": "m"})
    assert [i.component for i in renderer.accepted] == ["notice"]
    assert [e.rule for _, e in renderer.refused] == ["intent.unsafe-content"]
    assert renderer.ignored == ["com.example.analytics"]
    assert len(renderer.widget().children) == 2
    assert "<iframe" not in renderer.widget().children[1].value


# --- sequence diagrams --------------------------------------------------------------------------

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
        {"type": "TOOL_CALL_RESULT", "toolCallId": "c", "messageId": "r",
         "content": '{"executed":false,"reason":"denied"}'},
        {"type": "RUN_FINISHED"},
    ]
    arrows = sequence_from_log([("r1", "new", run1), ("r2", "resume", run2)],
                               decisions={"r2": "denies"})
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


def test_text_table_aligns_columns():
    assert text_table([("a", 1), ("bbb", 22)], ["name", "n"]).splitlines() == [
        "name  n", "----  --", "a     1", "bbb   22"]
