"""Notebooks 06–07: the approval card, the audit trail, tool components and the intent renderer."""

from __future__ import annotations

import pytest

from agentproto.agui.ui_intent import UI_INTENT_EVENT
from agentproto.course.agui_ui import (
    ApprovalCard,
    ComponentRegistry,
    FallbackComponent,
    IntentRenderer,
    OrderComponent,
    RefundComponent,
)
from agentproto.demo.audit import audit_trail

REFUND = "check order A1024 and refund it if shipped"


def custom(value, name=UI_INTENT_EVENT):
    return {"type": "CUSTOM", "name": name, "value": value}


def test_approve_button_refunds_once_and_disables_the_card(server, client, interrupted):
    card = ApprovalCard(client, "t-1")
    assert card.proposed == {"orderId": "A1024", "amountCents": 12800, "reason": "customer request"}
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
    server, clock, client, interrupted
):
    card = ApprovalCard(client, "t-1")
    clock.advance(16 * 60 * 1000)
    card.approve_button.click()
    assert type(card.error).__name__ == "InterruptExpiredError"
    assert "expired" in card.status.value and not card.approve_button.disabled
    card.cancel_button.click()
    assert card.error is None and card.result.ok and card.sent == ["cancel"]


def test_card_escapes_what_the_agent_wrote(client, interrupted):
    card = ApprovalCard(
        client, "t-1", {**interrupted.interrupts[0], "message": "<img src=x onerror=alert(1)>"}
    )
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
    # The card sends the whole edited argument object: editedArgs is a full replacement.
    assert row.decision == {
        "status": "resolved",
        "payload": {"approved": True, "editedArgs": {**row.proposed, "amountCents": 6400}},
    }
    assert row.result["amountCents"] == 6400 and row.decided_by == card.result.run_id


def test_audit_trail_of_a_pending_interrupt_has_no_decision_yet(server, interrupted):
    (row,) = audit_trail(server.app.state.store, "t-1")
    assert row.status == "pending" and row.decision is None and row.result is None


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
    registry.feed_all(
        [
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
            {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "<b>wipe</b>"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"x":"<script>1</script>"}'},
        ]
    )
    component = registry.cards["c1"]
    assert isinstance(component, FallbackComponent) and component.args is None
    assert "<script>" not in component.view.value and "<b>wipe" not in component.view.value
    registry.reset()
    assert registry.describe() == "(no tool calls)"


def test_a_not_executed_result_answers_the_call_and_says_so():
    registry = ComponentRegistry()
    registry.feed_all(
        [
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
            {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "refund_order"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": '{"orderId":"A1024","amountCents":100}'},
            {"type": "TOOL_CALL_END", "toolCallId": "c"},
            {
                "type": "TOOL_CALL_RESULT",
                "messageId": "m",
                "toolCallId": "c",
                "content": '{"executed":false,"reason":"denied"}',
            },
        ]
    )
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


def test_renderer_renders_accepted_refuses_unsafe_and_ignores_other_custom_names():
    renderer = IntentRenderer()
    renderer.feed(custom({"component": "notice", "props": {"level": "warning", "text": "Refund pending"}}))
    renderer.feed(custom({"component": "notice", "props": {"level": "info", "text": "<iframe src=x>"}}))
    renderer.feed(custom({"anything": 1}, name="com.example.analytics"))
    renderer.feed({"type": "TEXT_MESSAGE_START", "messageId": "m"})
    assert [i.component for i in renderer.accepted] == ["notice"]
    assert [e.rule for _, e in renderer.refused] == ["intent.unsafe-content"]
    assert renderer.ignored == ["com.example.analytics"]
    assert len(renderer.widget().children) == 2
    assert "<iframe" not in renderer.widget().children[1].value
