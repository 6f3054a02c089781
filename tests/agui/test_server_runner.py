"""The run driver and the refund agent, without HTTP: every stream ends well-formed."""

from __future__ import annotations

import json

import pytest

from agentproto.agui import events as ev
from agentproto.agui._threadstore import ThreadStore as Store
from agentproto.agui.interrupts import ResumePlan, ThreadRecord, validate_resume
from agentproto.agui.parse import parse_run_agent_input
from agentproto.agui.runner import RunContext, RunDriver, replay_events
from agentproto.agui.verify import verify_events
from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.refund_agent import RefundAgent, format_cents, refund_idempotency_key
from agentproto.demo.tools import FakeToolProvider, handle_jsonrpc, mcp_tool_to_agui


def context(
    thread_id="t",
    run_id="r",
    *,
    text="check order A1024 and refund it if shipped",
    plan=None,
    messages=None,
    state=None,
    clock=None,
):
    run_input, _ = parse_run_agent_input(
        {
            "threadId": thread_id,
            "runId": run_id,
            "messages": messages
            if messages is not None
            else [{"id": "u-1", "role": "user", "content": text}],
        }
    )
    return RunContext.start(
        run_input,
        plan or ResumePlan("new", thread_id),
        clock=clock or FakeClock(),
        ids=IdFactory("id"),
        state=state or {},
        messages=[ev.dump_model(m) for m in run_input.messages],
    )


def types(events):
    return [e.type.value for e in events]


def wire(events):
    return [ev.dump_event(e) for e in events]


# --- the driver guarantees a well-formed ending -----------------------------------------------


def test_an_agent_that_raises_ends_the_run_with_run_error():
    def agent(ctx):
        yield ev.RunStartedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)
        yield ev.TextMessageStartEvent(message_id="m")
        raise RuntimeError("model provider down")

    events = RunDriver(agent, context()).run_to_end()
    assert types(events)[-1] == "RUN_ERROR"
    assert events[-1].code == "AGENT_ERROR" and "model provider down" in events[-1].message
    verify_events(events)


def test_an_agent_that_stops_without_a_terminal_event_ends_with_run_error():
    def agent(ctx):
        yield ev.RunStartedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)

    events = RunDriver(agent, context()).run_to_end()
    assert (events[-1].type.value, events[-1].code) == ("RUN_ERROR", "AGENT_INCOMPLETE")


def test_an_invalid_event_from_the_agent_never_reaches_the_client():
    def agent(ctx):
        yield ev.RunStartedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)
        yield ev.TextMessageContentEvent(message_id="never-opened", delta="oops")
        yield ev.RunFinishedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)

    events = RunDriver(agent, context()).run_to_end()
    assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1].code == "AGENT_PROTOCOL_VIOLATION"
    assert "No active text message found" in events[-1].message


def test_a_cancelled_run_closes_everything_open_then_finishes_cancelled():
    def agent(ctx):
        yield ev.RunStartedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)
        yield ev.StepStartedEvent(step_name="work")
        yield ev.TextMessageStartEvent(message_id="m")
        yield ev.ToolCallStartEvent(tool_call_id="tc", tool_call_name="slow")
        while True:
            yield ev.ToolCallArgsEvent(tool_call_id="tc", delta=" ")

    driver = RunDriver(agent, context())
    out = []
    for event in driver:
        out.append(event)
        if len(out) == 6:
            driver.cancel()
    assert types(out)[-4:] == ["TOOL_CALL_END", "TEXT_MESSAGE_END", "STEP_FINISHED", "RUN_FINISHED"]
    assert out[-1].outcome.type == "cancelled" and out[-1].result is None
    verify_events(out)


def test_a_run_cancelled_before_its_first_event_still_starts_and_finishes():
    def agent(ctx):
        yield ev.RunStartedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)

    driver = RunDriver(agent, context())
    driver.cancel()
    assert types(driver.run_to_end()) == ["RUN_STARTED", "RUN_FINISHED"]


def test_events_are_stamped_with_the_injected_clock():
    clock = FakeClock(start_ms=42)
    events = RunDriver(RefundAgent(FakeToolProvider()), context(clock=clock)).run_to_end()
    assert {e.timestamp for e in events} == {42}


def test_a_failed_resume_puts_its_interrupts_back_to_pending():
    store = Store(":memory:")
    store.start_run("t", "r-1")
    store.add_interrupts("t", "r-1", [{"id": "int-1", "reason": "confirmation"}])
    store.finish_run("t", "r-1", status="interrupt")
    entries = [{"interruptId": "int-1", "status": "resolved", "payload": True}]
    ctx = context(run_id="r-2", messages=[])
    plan = validate_resume(
        store.thread_record("t"), {"threadId": "t", "runId": "r-2", "messages": [], "resume": entries}, 0
    )
    ctx.plan = plan
    store.start_run("t", "r-2", kind="resume")
    store.settle_interrupts("t", entries, "r-2")

    def agent(ctx):
        yield ev.RunStartedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)
        raise TimeoutError("downstream")

    RunDriver(agent, ctx, store, kind="resume").run_to_end()
    assert [r.id for r in store.thread_record("t").pending] == ["int-1"]
    assert store.run("t", "r-2").status == "error"


def test_a_replay_restates_the_thread_with_snapshots_and_the_recorded_result():
    store = Store(":memory:")
    store.start_run("t", "r-2", kind="resume")
    store.finish_run("t", "r-2", status="success", outcome={"type": "success"}, result={"refundId": "R-1"})
    events = replay_events("t", "r-3", store.run("t", "r-2"), store.snapshot("t"))
    assert types(events) == ["RUN_STARTED", "CUSTOM", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert events[-1].result == {"refundId": "R-1"} and events[-1].outcome is None
    verify_events(events)


# --- the refund agent's branches -----------------------------------------------------------------


def test_a_message_without_an_order_id_gets_a_question_back():
    events = RunDriver(RefundAgent(FakeToolProvider()), context(text="I want my money back")).run_to_end()
    text = "".join(e.delta for e in events if e.type.value == "TEXT_MESSAGE_CONTENT")
    assert "Which order" in text and events[-1].outcome is None


def test_an_unknown_order_is_a_business_error_explained_to_the_user():
    events = RunDriver(RefundAgent(FakeToolProvider()), context(text="refund Z9999")).run_to_end()
    text = "".join(e.delta for e in events if e.type.value == "TEXT_MESSAGE_CONTENT")
    assert "Z9999 was not found" in text and events[-1].outcome is None


def test_a_tool_timeout_becomes_an_error_result_and_the_run_still_succeeds():
    tools = FakeToolProvider()
    tools.inject("get_order", "timeout", timeout_ms=5000)
    events = RunDriver(RefundAgent(tools), context()).run_to_end()
    (result,) = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    assert "timed out after 5000 ms" in result.content
    assert events[-1].type.value == "RUN_FINISHED" and events[-1].result["error"] == "timeout"
    verify_events(events)


def test_an_injected_business_error_fires_once_then_the_tool_recovers():
    tools = FakeToolProvider()
    tools.inject("get_order", "business_error")
    assert tools.call_tool("get_order", {"orderId": "A1024"})["isError"] is True
    assert tools.call_tool("get_order", {"orderId": "A1024"})["isError"] is False


def test_an_oversize_tool_result_is_truncated_and_flagged():
    tools = FakeToolProvider()
    tools.inject("get_order", "oversize", size_chars=50_000)
    agent = RefundAgent(tools, max_result_chars=1000)
    events = RunDriver(agent, context()).run_to_end()
    (result,) = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    assert len(result.content) < 1100 and result.content.endswith("chars]")
    assert result.metadata["agentproto.truncated"] is True
    assert result.metadata["agentproto.originalLength"] > 50_000
    assert events[-1].outcome.type == "interrupt"  # the agent still worked with the data


def test_the_interrupt_asks_for_the_refund_it_proposed():
    events = RunDriver(RefundAgent(FakeToolProvider()), context()).run_to_end()
    (interrupt,) = events[-1].outcome.interrupts
    args = [
        e for e in events if e.type.value == "TOOL_CALL_ARGS" and e.tool_call_id == interrupt.tool_call_id
    ]
    assert json.loads(args[0].delta) == {
        "orderId": "A1024",
        "amountCents": 12800,
        "reason": "customer request",
    }
    assert interrupt.expires_at == "2026-01-01T00:15:00.000Z"


def test_only_amount_and_reason_may_be_edited():
    store = Store(":memory:")
    tools = FakeToolProvider(store)
    first = RunDriver(RefundAgent(tools), context()).run_to_end()
    (interrupt,) = first[-1].outcome.interrupts
    record = ThreadRecord.from_pending("t", "r", [interrupt])
    entries = [
        {
            "interruptId": interrupt.id,
            "status": "resolved",
            "payload": {"approved": True, "editedArgs": {"orderId": "A1026"}},
        }
    ]
    plan = validate_resume(record, {"threadId": "t", "runId": "r-2", "messages": [], "resume": entries}, 0)
    messages = [m for m in first if m.type.value == "MESSAGES_SNAPSHOT"][0].messages
    ctx = context(run_id="r-2", plan=plan, messages=[ev.dump_model(m) for m in messages])
    events = RunDriver(RefundAgent(tools), ctx).run_to_end()
    (result,) = [e for e in events if e.type.value == "TOOL_CALL_RESULT"]
    assert json.loads(result.content)["reason"] == "invalid_edit"
    assert tools.refunds() == []


# --- the MCP-shaped tools -------------------------------------------------------------------------


def test_tools_list_maps_onto_agui_tool_definitions():
    tools = FakeToolProvider().list_tools()["tools"]
    mapped = [mcp_tool_to_agui(t) for t in tools]
    assert [t["name"] for t in mapped] == ["get_order", "refund_order"]
    assert mapped[1]["parameters"]["required"] == ["orderId", "amountCents", "idempotencyKey"]


def test_the_same_idempotency_key_never_refunds_twice():
    tools = FakeToolProvider()
    key = refund_idempotency_key("t-1", "int-1")
    args = {"orderId": "A1024", "amountCents": 12800, "idempotencyKey": key}
    first = tools.call_tool("refund_order", args)
    again = tools.call_tool("refund_order", args)
    assert again["structuredContent"]["refundId"] == first["structuredContent"]["refundId"]
    assert again["structuredContent"]["replayed"] is True
    assert len(tools.refunds("A1024")) == 1


def test_a_second_refund_beyond_the_total_is_a_business_error():
    tools = FakeToolProvider()
    tools.call_tool("refund_order", {"orderId": "A1024", "amountCents": 12800, "idempotencyKey": "k1"})
    second = tools.call_tool("refund_order", {"orderId": "A1024", "amountCents": 1, "idempotencyKey": "k2"})
    assert second["isError"] and "refunded" in second["content"][0]["text"]


@pytest.mark.parametrize(
    "request_, expected",
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "result"),
        (
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "get_order", "arguments": {"orderId": "bad"}},
            },
            "result",
        ),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nope"}}, -32602),
        ({"jsonrpc": "2.0", "id": 4, "method": "resources/list"}, -32601),
    ],
)
def test_the_jsonrpc_face_separates_protocol_errors_from_tool_errors(request_, expected):
    answer = handle_jsonrpc(FakeToolProvider(), request_)
    if expected == "result":
        assert "result" in answer
    else:
        assert answer["error"]["code"] == expected


def test_invalid_arguments_are_a_tool_error_the_model_can_read():
    answer = handle_jsonrpc(
        FakeToolProvider(),
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "get_order", "arguments": {"orderId": "bad"}},
        },
    )
    assert answer["result"]["isError"] is True
    assert "Invalid arguments for get_order" in answer["result"]["content"][0]["text"]


def test_cents_are_formatted_without_float_rounding():
    assert format_cents(12800) == "128.00 USD"
    assert format_cents(5) == "0.05 USD"


# --- warnings about the input ------------------------------------------------------------------


def test_input_warnings_go_out_in_one_custom_event_right_after_run_started():
    def agent(ctx):
        yield ev.RunStartedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)
        yield ev.RunFinishedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)

    warning = {"code": "resume.unrecognised-entry", "message": "Ignored …", "path": "/resume/0"}
    events = RunDriver(agent, context(), input_warnings=[warning]).run_to_end()
    assert types(events) == ["RUN_STARTED", "CUSTOM", "RUN_FINISHED"]
    assert (events[1].name, events[1].value) == ("agentproto.input_warnings", {"warnings": [warning]})
    verify_events(events)


def test_a_run_without_input_warnings_has_no_warning_event():
    events = RunDriver(RefundAgent(FakeToolProvider(Store(":memory:"))), context()).run_to_end()
    assert "CUSTOM" not in types(events)


def test_a_resume_that_answers_nothing_open_does_not_propose_the_refund_again():
    tools = FakeToolProvider(Store(":memory:"))
    first = RunDriver(RefundAgent(tools), context()).run_to_end()
    messages = [
        ev.dump_model(m) for m in [e for e in first if e.type.value == "MESSAGES_SNAPSHOT"][0].messages
    ]
    record = ThreadRecord("t", (), None)  # nothing open any more
    stale = {
        "threadId": "t",
        "runId": "r-2",
        "messages": messages,
        "resume": [{"interruptId": "gone", "status": "cancelled"}],
    }
    plan = validate_resume(record, stale, 0)
    run_input, _ = parse_run_agent_input(stale)
    ctx = RunContext.start(
        run_input, plan, clock=FakeClock(), ids=IdFactory("x"), state={}, messages=messages
    )
    events = RunDriver(RefundAgent(tools), ctx).run_to_end()
    assert "TOOL_CALL_START" not in types(events)
    assert events[-1].result == {"decisions": [], "ignored": ["gone"]}
    assert tools.refunds() == []
