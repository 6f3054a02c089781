"""The A2A notebook helpers: diagrams drawn from the table, widgets driven from code."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from agentproto.a2a.machine import TRANSITIONS, Transition, edges  # noqa: E402
from agentproto.a2a.states import TaskState  # noqa: E402
from agentproto.a2a.views import (  # noqa: E402
    NEW,
    StateDiagram,
    TransitionLab,
    draw_state_diagram,
    plot_timelines,
    state_graph,
    timeline_table,
    transition_table,
)

S = TaskState
PNG = b"\x89PNG"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --------------------------------------------------------------------------- the diagram


def test_the_diagram_graph_has_exactly_the_edges_of_the_transition_table():
    g = state_graph()
    expected = {(NEW if s is None else s.short, t.short) for s, t in edges()}
    assert set(g.edges) == expected
    assert g.number_of_nodes() == len(TRANSITIONS)


def test_node_kinds_come_from_the_state_sets():
    g = state_graph()
    assert g.nodes["completed"]["kind"] == "terminal"
    assert g.nodes["auth-required"]["kind"] == "interrupted"
    assert g.nodes["working"]["kind"] == "active"
    assert g.nodes[NEW]["kind"] == "entry"


def test_terminal_states_have_no_outgoing_edges_in_the_drawing():
    g = state_graph()
    for terminal in ("completed", "failed", "canceled", "rejected"):
        assert g.out_degree(terminal) == 0


def test_a_path_highlights_its_moves_and_rings_the_current_state():
    diagram = StateDiagram(pyplot=False)
    diagram.update(current=S.WORKING, path=[(None, S.SUBMITTED), (S.SUBMITTED, S.WORKING),
                                            (S.WORKING, S.WORKING)])
    assert set(diagram.highlighted) == {(NEW, "submitted"), ("submitted", "working"),
                                        ("working", "working"), "working"}
    assert diagram.png().startswith(PNG)
    diagram.update()
    assert diagram.highlighted == []


def test_draw_state_diagram_returns_a_figure_with_every_state_labelled():
    fig = draw_state_diagram(current=None)
    texts = {t.get_text().replace("\n", "") for t in fig.axes[0].texts}
    assert {"(new)", "submitted", "input-required", "rejected"} <= texts


def test_transition_table_lists_every_row_and_marks_terminal_ones():
    table = transition_table()
    assert table.count("— nothing (terminal)") == 4
    assert "submitted       working" in table


# --------------------------------------------------------------------------- the lab widget


def lab() -> TransitionLab:
    return TransitionLab(show_diagram=False)


def test_a_client_message_creates_the_task_in_submitted():
    the_lab = lab()
    the_lab.buttons["SendMessage"].click()
    assert the_lab.state is S.SUBMITTED
    assert the_lab.log[-1].accepted


def test_operations_on_a_task_that_does_not_exist_are_task_not_found():
    the_lab = lab()
    the_lab.buttons["CancelTask"].click()
    the_lab.buttons["SubscribeToTask"].click()
    assert [a.code for a in the_lab.log] == [-32001, -32001]
    assert the_lab.state is None


def test_an_illegal_agent_move_is_refused_with_invalid_agent_response_and_changes_nothing():
    the_lab = lab()
    for name in ("SendMessage", "working", "submitted"):
        the_lab.buttons[name].click()
    refused = the_lab.log[-1]
    assert not refused.accepted
    assert (refused.code, refused.error) == (-32006, "InvalidTransitionError")
    assert "entry state" in refused.note
    assert the_lab.state is S.WORKING


def test_a_finished_task_refuses_cancel_subscribe_and_messages_with_the_spec_codes():
    the_lab = lab()
    for name in ("completed", "CancelTask", "SubscribeToTask", "SendMessage", "working"):
        the_lab.fire(name)
    assert [a.code for a in the_lab.log[1:]] == [-32002, -32004, -32004, -32006]
    assert the_lab.state is S.COMPLETED


def test_answering_an_interrupted_task_resumes_it_and_cancel_works_while_interrupted():
    the_lab = lab()
    for name in ("SendMessage", "working", "input-required", "SendMessage"):
        the_lab.fire(name)
    assert the_lab.state is S.WORKING
    the_lab.fire("auth-required")
    the_lab.buttons["CancelTask"].click()
    assert the_lab.state is S.CANCELED
    assert the_lab.refused == []


def test_a_message_while_working_changes_nothing():
    the_lab = lab()
    for name in ("SendMessage", "working", "SendMessage"):
        the_lab.fire(name)
    assert the_lab.log[-1].accepted and the_lab.state is S.WORKING
    assert "§3.3.3" in the_lab.log[-1].note


def test_reset_starts_a_fresh_task_and_clears_the_log():
    the_lab = lab()
    the_lab.fire("completed")
    the_lab.buttons["reset"].click()
    assert the_lab.state is None and the_lab.log == []
    assert the_lab.report() == "(nothing fired yet)"


def test_the_lab_views_follow_the_clicks():
    the_lab = TransitionLab()
    first = bytes(the_lab.diagram.value)
    the_lab.buttons["SendMessage"].click()
    the_lab.buttons["working"].click()
    now = bytes(the_lab.diagram.value)
    assert now.startswith(PNG) and now != first
    assert "working" in the_lab.status.value
    assert "submitted → working" in the_lab.log_view.value
    assert the_lab.widget().children


def test_the_lab_records_virtual_time_for_each_move():
    the_lab = lab()
    for name in ("SendMessage", "working", "completed"):
        the_lab.fire(name)
    times = [t.at_ms for t in the_lab.machine.history]
    assert [b - a for a, b in zip(times, times[1:])] == [1000, 1000]


def test_an_unknown_action_name_is_a_value_error():
    with pytest.raises(ValueError):
        lab().fire("paused")


# --------------------------------------------------------------------------- timelines


HISTORY = [
    Transition(None, S.SUBMITTED, 1_000, "message received"),
    Transition(S.SUBMITTED, S.WORKING, 1_000),
    Transition(S.WORKING, S.INPUT_REQUIRED, 1_040),
    Transition(S.INPUT_REQUIRED, S.WORKING, 46_040),
    Transition(S.WORKING, S.COMPLETED, 46_200),
]


def test_timeline_table_shows_offsets_from_creation():
    lines = timeline_table(HISTORY).splitlines()
    assert lines[0].startswith("+      0 ms") and "(message received)" in lines[0]
    assert "+ 45,040 ms" in lines[3] and "input-required → working" in lines[3]
    assert timeline_table([]) == "(no transitions)"


def test_plot_timelines_draws_one_bar_per_task_with_one_segment_per_state():
    fig = plot_timelines({"travel": HISTORY, "rejected": [Transition(None, S.REJECTED, 0)]})
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["travel", "rejected"]
    assert len(ax.collections) == len(HISTORY) + 1


# --------------------------------------------------------------------------- card cache


@pytest.fixture(scope="module")
def travel_url():
    from agentproto.a2a.server import create_a2a_app
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.testing import RunningServer

    server = RunningServer(create_a2a_app(agent="travel", clock=FakeClock(),
                                          ids=IdFactory("t"))).start()
    yield server.url
    server.stop()


def test_the_card_cache_downloads_once_serves_fresh_copies_and_revalidates_after_max_age(
        travel_url):
    from agentproto.a2a.views import CardCache
    from agentproto.clock import FakeClock

    clock = FakeClock()
    cache = CardCache(clock=clock)
    first = cache.get(travel_url)
    clock.advance(299_000)
    assert cache.get(travel_url) is first
    clock.advance(2_000)
    assert cache.get(travel_url) is first
    assert [(f.how, f.status) for f in cache.log] == [
        ("downloaded", 200), ("fresh", None), ("revalidated", 304)]
    clock.advance(100_000)  # renewed by the 304: fresh again
    cache.get(travel_url)
    assert cache.counts() == {"downloaded": 1, "revalidated": 1, "fresh": 2}
    cache.close()


def test_the_card_cache_reports_a_missing_card_as_an_http_error():
    from starlette.applications import Starlette

    from agentproto.a2a.client import A2AHTTPError
    from agentproto.a2a.views import CardCache
    from agentproto.testing import running_server

    with running_server(Starlette()) as url:
        with pytest.raises(A2AHTTPError) as info:
            CardCache().get(url)
    assert info.value.status_code == 404


@pytest.mark.parametrize("header, seconds", [
    ("public, max-age=300", 300), ("max-age=0", 0), ("no-cache, max-age=60", 0),
    ("", 0), ("max-age=soon", 0)])
def test_max_age_is_read_from_cache_control(header, seconds):
    from agentproto.a2a.views import _max_age

    assert _max_age(header) == seconds


# --------------------------------------------------------------------------- ways to wait

TRIP = "Plan my trip to Sanya from 2026-04-08 to 2026-04-12"


def schedule(step_ms: int = 2000):
    from agentproto.a2a.agents import TravelDeskAgent
    from agentproto.a2a.views import agent_schedule

    return agent_schedule(TravelDeskAgent(step_ms=step_ms), TRIP)


def test_agent_schedule_reads_the_agents_own_updates_on_virtual_time():
    s = schedule(2000)
    assert [x.kind for x in s].count("status") == 5
    assert s[0].label.startswith("working") and s[-1].label.startswith("completed")
    times = [x.at_ms for x in s]
    assert times == sorted(times) and times[-1] == 8000


def test_agent_schedule_refuses_agents_without_a_finite_schedule():
    from agentproto.a2a.agents import ConformanceAgent
    from agentproto.a2a.views import agent_schedule

    with pytest.raises(ValueError, match="canceled"):
        agent_schedule(ConformanceAgent(), "x", message_id="tck-cancel-1")


def test_agent_schedule_refuses_an_agent_that_awaits_real_io():
    import asyncio

    from agentproto.a2a.agents import Status
    from agentproto.a2a.views import agent_schedule

    class Sleepy:
        async def run(self, ctx):
            await asyncio.sleep(0)
            yield Status.of(S.COMPLETED)

    with pytest.raises(TypeError, match="sans-I/O"):
        agent_schedule(Sleepy(), "x")


def test_a_greeting_schedules_one_direct_message():
    from agentproto.a2a.agents import TravelDeskAgent
    from agentproto.a2a.views import agent_schedule

    assert [x.kind for x in agent_schedule(TravelDeskAgent(), "hello")] == ["message"]


def test_streaming_and_push_see_every_update_blocking_sees_one():
    from agentproto.a2a.views import model_modes

    r = {m.mode: m for m in model_modes(schedule(), poll_ms=1000, latency_ms=50)}
    assert len(r["streaming"].seen) == len(r["push"].seen) == r["streaming"].total == 11
    assert len(r["blocking"].seen) == 1 and r["blocking"].missed == 10
    assert r["push"].posts == 11 and r["streaming"].posts == 0
    assert r["blocking"].first_update_ms == r["blocking"].done_ms == 8100
    assert r["streaming"].first_update_ms == 100


def test_polling_is_late_by_up_to_one_interval_and_pays_one_request_per_poll():
    from agentproto.a2a.views import model_modes

    for poll in (250, 1000, 3000):
        r = {m.mode: m for m in model_modes(schedule(), poll_ms=poll, latency_ms=50)}
        late = r["polling"].done_ms - r["streaming"].done_ms
        assert 0 <= late <= poll + 100
        # polls leave at 2·50 + k·poll ms; the first one leaving at or after 8000 ms settles it
        assert r["polling"].requests == 1 + math.ceil((8000 - 100) / poll)


def test_faster_polling_costs_more_requests_and_misses_fewer_updates():
    from agentproto.a2a.views import model_modes

    slow = {m.mode: m for m in model_modes(schedule(), poll_ms=2000)}["polling"]
    fast = {m.mode: m for m in model_modes(schedule(), poll_ms=250)}["polling"]
    assert fast.requests > slow.requests
    assert fast.missed <= slow.missed and slow.missed > 0


def test_latency_delays_every_mode_by_a_round_trip():
    from agentproto.a2a.views import model_modes

    near = {m.mode: m for m in model_modes(schedule(), latency_ms=0)}
    far = {m.mode: m for m in model_modes(schedule(), latency_ms=200)}
    for mode in ("blocking", "streaming", "push"):
        assert far[mode].done_ms - near[mode].done_ms == 400


def test_summary_table_has_one_row_per_mode():
    from agentproto.a2a.views import model_modes, summary_table

    table = summary_table(model_modes(schedule()), unit="s")
    assert [line.split()[0] for line in table.splitlines()[1:]] == list(
        ("blocking", "polling", "streaming", "push"))
    assert "11 of 11" in table


def test_the_mode_explorer_recomputes_when_a_slider_moves():
    from agentproto.a2a.views import ModeExplorer

    explorer = ModeExplorer(poll_s=2.0)
    before = explorer.result("polling").requests
    explorer.poll.value = 0.25
    assert explorer.result("polling").requests > before
    explorer.latency.value = 300
    assert explorer.result("streaming").first_update_ms == 600
    explorer.step.value = 1.0
    assert explorer.result("blocking").done_ms == 4000 + 600
    assert bytes(explorer.plot.value).startswith(PNG) and "polling" in explorer.summary.value


def test_plot_modes_draws_both_panels():
    from agentproto.a2a.views import model_modes, plot_modes

    fig = plot_modes(model_modes(schedule()), title="t")
    assert len(fig.axes) == 2


def test_measured_modes_on_a_real_server_see_what_the_protocol_promises():
    from agentproto.a2a.agents import TravelDeskAgent
    from agentproto.a2a.push import WebhookRecorder
    from agentproto.a2a.server import create_a2a_app
    from agentproto.a2a.views import measure_modes
    from agentproto.testing import running_server

    recorder = WebhookRecorder(expect_token="t0k3n")
    with running_server(create_a2a_app(agent=TravelDeskAgent(step_ms=5, chunk_chars=60))) as url, \
            running_server(recorder.app()) as hook:
        results = {r.mode: r for r in measure_modes(url, TRIP, recorder=recorder,
                                                    webhook_url=hook + "/hook", token="t0k3n",
                                                    poll_interval_s=0.005, warmup=False)}
    streamed = [label for _, label in results["streaming"].seen]
    assert streamed[0] == "Task: submitted" and streamed[-1] == "completed"
    assert [label for _, label in results["push"].seen] == streamed
    assert results["push"].posts == len(streamed) == results["blocking"].total
    assert results["blocking"].requests == results["streaming"].requests == 1
    assert results["polling"].requests >= 2
    assert results["polling"].seen[-1][1] == "GetTask: completed"


def test_measure_modes_needs_a_webhook_for_push():
    from agentproto.a2a.server import create_a2a_app
    from agentproto.a2a.views import measure_modes
    from agentproto.testing import running_server

    with running_server(create_a2a_app(agent="echo")) as url:
        with pytest.raises(ValueError, match="WebhookRecorder"):
            measure_modes(url, "hi", modes=("push",), warmup=False)


# --------------------------------------------------------------------------- artifacts


def _chunk(artifact_id, text, *, append=False, last=False):
    from agentproto.a2a.types import (
        Artifact,
        StreamResponse,
        TaskArtifactUpdateEvent,
        text_part,
    )

    return StreamResponse(artifact_update=TaskArtifactUpdateEvent(
        task_id="t", context_id="c", append=append, last_chunk=last,
        artifact=Artifact(artifact_id=artifact_id, parts=[text_part(text)])))


def test_appended_chunks_join_into_one_artifact_and_last_chunk_completes_it():
    from agentproto.a2a.views import ArtifactAssembler

    a = ArtifactAssembler()
    for event in (_chunk("doc", "Hel"), _chunk("doc", "lo, ", append=True),
                  _chunk("doc", "world", append=True, last=True)):
        a.feed(event)
    assert a.text("doc") == "Hello, world" and a.complete == {"doc"}
    assert [c[1:3] for c in a.chunks] == [(False, False), (True, False), (True, True)]


def test_a_chunk_without_append_replaces_the_artifact():
    from agentproto.a2a.views import ArtifactAssembler

    a = ArtifactAssembler()
    a.feed(_chunk("doc", "draft", last=True))
    a.feed(_chunk("doc", "final"))
    assert a.text("doc") == "final" and "doc" not in a.complete


def test_appending_to_an_artifact_never_started_is_an_assembly_error():
    from agentproto.a2a.views import ArtifactAssembler, ArtifactAssemblyError

    with pytest.raises(ArtifactAssemblyError, match="never started"):
        ArtifactAssembler().feed(_chunk("doc", "lo", append=True))


def test_appending_after_the_last_chunk_is_an_assembly_error():
    from agentproto.a2a.views import ArtifactAssembler, ArtifactAssemblyError

    a = ArtifactAssembler()
    a.feed(_chunk("doc", "all", last=True))
    with pytest.raises(ArtifactAssemblyError, match="after lastChunk"):
        a.feed(_chunk("doc", "more", append=True))


def test_a_task_snapshot_replaces_what_was_assembled_so_far():
    from agentproto.a2a.types import Artifact, StreamResponse, Task, TaskStatus, text_part
    from agentproto.a2a.views import ArtifactAssembler

    a = ArtifactAssembler()
    a.feed(_chunk("doc", "Hel"))
    snapshot = Task(id="t", context_id="c", status=TaskStatus(state=S.WORKING),
                    artifacts=[Artifact(artifact_id="doc", parts=[text_part("Hello")])])
    a.feed(StreamResponse(task=snapshot))
    a.feed(_chunk("doc", "!", append=True, last=True))
    assert a.text("doc") == "Hello!"


def test_compact_labels_and_wait_until():
    import itertools

    from agentproto.a2a.views import compact_labels, wait_until

    assert compact_labels(["a", "a", "b", "a"]) == "a ×2, b, a"
    counter = itertools.count()
    assert wait_until(lambda: next(counter) >= 3, timeout_s=1, interval_s=0)
    assert not wait_until(lambda: False, timeout_s=0.02, interval_s=0.005)


# --------------------------------------------------------------------------- the stack


@pytest.fixture(scope="module")
def stack():
    from agentproto.a2a.server import create_a2a_app
    from agentproto.a2a.views import create_concierge_app
    from agentproto.agui.client import SyncAGUIClient
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.testing import RunningServer

    travel_app = create_a2a_app(agent="travel", clock=FakeClock(), ids=IdFactory("task"))
    travel = RunningServer(travel_app).start()
    app = create_concierge_app(travel.url, clock=FakeClock(), ids=IdFactory("ag"))
    concierge = RunningServer(app).start()
    user = SyncAGUIClient(concierge.url, ids=IdFactory("ui"))
    yield {"user": user, "app": app, "agent": app.state.concierge,
           "travel": travel_app.state.a2a.service}
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
    attributed = {e["messageId"] for e in second.events
                  if e["type"] == "TEXT_MESSAGE_START" and e.get("subagentRunId")}
    deltas: dict[str, list[str]] = {}
    for e in second.events:
        if e["type"] == "TEXT_MESSAGE_CONTENT" and e["messageId"] in attributed:
            deltas.setdefault(e["messageId"], []).append(e["delta"])
    chunked = [d for d in deltas.values() if len(d) > 1]
    truth = next(a.text for a in travel.store.load(task_id).artifacts
                 if a.artifact_id == "itinerary")
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
    assert len(agent.log.plot().axes) == 1


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
    from agentproto.a2a.views import create_concierge_app
    from agentproto.agui.client import SyncAGUIClient
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.testing import running_server

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
    from agentproto.a2a.views import StackLog

    assert StackLog().table() == "(no hops yet)"
    assert StackLog().layers() == {"AG-UI": 0, "MCP": 0, "A2A": 0}
