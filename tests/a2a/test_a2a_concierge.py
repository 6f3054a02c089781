"""The concierge demo: one request through AG-UI, MCP and A2A, every hop logged."""

from __future__ import annotations

import pytest

from agentproto.a2a.states import TaskState

S = TaskState


@pytest.fixture(scope="module")
def stack():
    from agentproto.a2a.server import create_a2a_app
    from agentproto.agui.client import SyncAGUIClient
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.demo.concierge import create_concierge_app
    from agentproto.server import RunningServer

    travel_app = create_a2a_app(agent="travel", clock=FakeClock(), ids=IdFactory("task"))
    travel = RunningServer(travel_app).start()
    app = create_concierge_app(travel.url, clock=FakeClock(), ids=IdFactory("ag"))
    concierge = RunningServer(app).start()
    user = SyncAGUIClient(concierge.url, ids=IdFactory("ui"))
    yield {"user": user, "app": app, "agent": app.state.concierge, "travel": travel_app.state.a2a.service}
    user.close()
    concierge.stop()
    travel.stop()


def _types(run) -> list[str]:
    return [e["type"] for e in run.events]


def test_an_input_required_remote_task_becomes_an_agui_interrupt_and_the_answer_resumes_it(stack):
    from agentproto.agui.interrupts import resolved
    from agentproto.agui.pipeline import lint_source

    user, travel = stack["user"], stack["travel"]
    first = user.send("t-flow", "Has my order A1024 shipped? Plan my trip to Sanya.")
    assert first.outcome == "interrupt"
    interrupt = first.interrupts[0]
    assert interrupt["reason"] == "input_required" and "When do you leave" in interrupt["message"]
    finished = next(e for e in first.events if e["type"] == "SUBAGENT_FINISHED")
    assert finished["outcome"] == {"type": "suspended", "interruptIds": [interrupt["id"]]}
    assert interrupt["subagentRunId"] == finished["subagentRunId"]
    task_id = interrupt["metadata"]["a2aTaskId"]

    second = user.resume("t-flow", {interrupt["id"]: resolved({"answer": "2026-04-08 to 2026-04-12"})})
    assert second.outcome == "success"
    started = next(e for e in second.events if e["type"] == "SUBAGENT_STARTED")
    assert started["subagentRunId"] == interrupt["subagentRunId"]  # the suspended invocation continues
    attributed = {
        e["messageId"] for e in second.events if e["type"] == "TEXT_MESSAGE_START" and e.get("subagentRunId")
    }
    deltas: dict[str, list[str]] = {}
    for e in second.events:
        if e["type"] == "TEXT_MESSAGE_CONTENT" and e["messageId"] in attributed:
            deltas.setdefault(e["messageId"], []).append(e["delta"])
    chunked = [d for d in deltas.values() if len(d) > 1]
    truth = next(a.text for a in travel.store.load(task_id).artifacts if a.artifact_id == "itinerary")
    assert ["".join(d) for d in chunked] == [truth]  # the artifact's chunks: one message's deltas
    assert second.state["trip"]["plan"]["flight"]["to"] == "Sanya"
    assert [t.target.short for t in travel.timeline(task_id)][-1] == "completed"
    for run in (first, second):
        assert lint_source(run.events).error is None


def test_the_log_records_every_layer_with_its_observation_point(stack):
    agent = stack["agent"]
    agent.log.clear()
    stack["user"].send("t-log", "Has my order A1025 shipped?")
    layers = agent.log.layers()
    assert layers["MCP"] == 2 and layers["A2A"] == 0 and layers["AG-UI"] >= 3
    mcp = [h for h in agent.log.hops if h.layer == "MCP"]
    assert mcp[0].what == "tools/call get_order" and mcp[0].observe == mcp[1].observe
    assert "AG-UI  user → concierge" in agent.log.table()


def test_a_tool_timeout_is_reported_as_the_tool_result_and_the_run_still_succeeds(stack):
    tools = stack["app"].state.tools
    tools.inject("get_order", "timeout")
    run = stack["user"].send("t-timeout", "Has my order A1024 shipped?")
    result = next(e for e in run.events if e["type"] == "TOOL_CALL_RESULT")
    assert run.outcome == "success" and "timed out" in result["content"]
    assert "RUN_ERROR" not in _types(run)


def test_a_rejected_remote_task_is_a_subagent_error_not_a_run_error(stack):
    run = stack["user"].send("t-moon", "Plan a trip to the Moon from 2026-04-08 to 2026-04-12.")
    error = next(e for e in run.events if e["type"] == "SUBAGENT_ERROR")
    assert run.outcome == "success" and error["code"] == "A2A_REJECTED"
    task_id = run.state["trip"]["a2aTaskId"]
    assert stack["travel"].timeline(task_id)[-1].target is S.REJECTED


def test_cancelling_the_interrupt_cancels_the_remote_task(stack):
    from agentproto.agui.interrupts import cancelled

    user = stack["user"]
    asked = user.send("t-cancel", "Plan my trip to Paris, please.")
    task_id = asked.interrupts[0]["metadata"]["a2aTaskId"]
    done = user.resume("t-cancel", {asked.interrupts[0]["id"]: cancelled()})
    assert done.outcome == "success"
    assert stack["travel"].timeline(task_id)[-1].target is S.CANCELED


def test_an_unreachable_remote_agent_is_a_subagent_error_and_the_run_finishes():
    from agentproto.agui.client import SyncAGUIClient
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.demo.concierge import create_concierge_app
    from agentproto.server import running_server

    app = create_concierge_app("http://127.0.0.1:9", clock=FakeClock(), ids=IdFactory("ag"))
    with running_server(app) as url:
        user = SyncAGUIClient(url, ids=IdFactory("ui"))
        try:
            run = user.send("t-down", "Plan my trip to Sanya from 2026-04-08 to 2026-04-12.")
        finally:
            user.close()
    error = next(e for e in run.events if e["type"] == "SUBAGENT_ERROR")
    assert run.outcome == "success" and error["code"] == "A2A_UNREACHABLE"
    assert "could not be used" in run.text


def test_an_empty_stack_log_says_so():
    from agentproto.demo.concierge import StackLog

    assert StackLog().table() == "(no hops yet)"
    assert StackLog().layers() == {"AG-UI": 0, "MCP": 0, "A2A": 0}


def test_a_hop_must_name_a_known_layer_and_parties():
    from agentproto.demo.concierge import StackLog

    log = StackLog()
    log.add("A2A", "concierge", "travel desk", "SendStreamingMessage")
    with pytest.raises(ValueError, match="unknown layer or party"):
        log.add("HTTP", "concierge", "travel desk", "GET /")
    with pytest.raises(ValueError):
        log.add("A2A", "concierge", "the moon", "SendMessage")
    assert len(log.hops) == 1


def test_the_concierge_discovers_the_travel_desk_once_until_it_is_closed(stack):
    agent, user = stack["agent"], stack["user"]
    agent.close()
    agent.log.clear()
    moon = "Plan a trip to the Moon from 2026-04-08 to 2026-04-12."
    user.send("t-twice-1", moon)
    user.send("t-twice-2", moon)
    card_reads = [h.what for h in agent.log.hops].count("GET /.well-known/agent-card.json")
    assert card_reads == 1
    agent.close()
    user.send("t-twice-3", moon)
    assert [h.what for h in agent.log.hops].count("GET /.well-known/agent-card.json") == 2
