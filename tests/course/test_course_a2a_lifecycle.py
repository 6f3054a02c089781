"""Notebook 10's views: the diagram is drawn from the table, the lab is driven from code."""

from __future__ import annotations

import pytest

from agentproto.a2a.machine import TRANSITIONS, Transition, edges
from agentproto.a2a.states import TaskState
from agentproto.course.a2a_lifecycle import (
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
    diagram.update(
        current=S.WORKING, path=[(None, S.SUBMITTED), (S.SUBMITTED, S.WORKING), (S.WORKING, S.WORKING)]
    )
    assert set(diagram.highlighted) == {
        (NEW, "submitted"),
        ("submitted", "working"),
        ("working", "working"),
        "working",
    }
    assert diagram.png().startswith(PNG)
    diagram.update()
    assert diagram.highlighted == []


def test_draw_state_diagram_returns_a_figure_with_every_state_labelled():
    fig = draw_state_diagram(current=None)
    texts = {t.get_text().replace("\n", "") for t in fig.axes[0].texts}
    assert {"(new)", "submitted", "input-required", "rejected"} <= texts


def test_the_legend_names_every_node_in_the_colour_it_is_drawn():
    from matplotlib.colors import to_hex

    from agentproto.course.a2a_lifecycle import _kind

    fig = draw_state_diagram()
    ax = fig.axes[0]
    nodes = ax.collections[0]  # networkx draws the nodes first, in the graph's order
    drawn = {n: to_hex(c) for n, c in zip(state_graph().nodes, nodes.get_facecolors())}
    key = {
        t.get_text(): to_hex(h.get_facecolor())
        for t, h in zip(ax.get_legend().get_texts(), ax.get_legend().legend_handles)
        if hasattr(h, "get_facecolor") and h.get_label() == t.get_text()
    }
    for name, colour in drawn.items():
        label = "(new): no task yet" if name == NEW else f"{name} ({_kind(TaskState(_enum(name)))})"
        assert key.get(label) == colour, f"{name} is drawn {colour}, the legend says {key.get(label)}"


def _enum(short: str) -> str:
    return "TASK_STATE_" + short.upper().replace("-", "_")


def test_the_lab_log_never_wraps_inside_a_word():
    the_lab = TransitionLab(show_diagram=False)
    the_lab.fire("SendMessage")
    assert "white-space: pre;" in the_lab.log_view.value and "submitted" in the_lab.log_view.value


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


def test_an_answer_moves_nothing_by_itself_the_agents_next_report_does():
    """As on the server (tck-multi-turn goes input-required → input-required): the agent decides."""
    the_lab = lab()
    for name in ("SendMessage", "working", "input-required", "SendMessage"):
        the_lab.fire(name)
    answer = the_lab.log[-1]
    assert answer.accepted and the_lab.state is S.INPUT_REQUIRED
    assert "stays input-required" in answer.line() and "next report" in answer.note
    the_lab.fire("input-required")  # the agent asks again: a self-loop the table allows
    the_lab.fire("SendMessage")
    the_lab.fire("working")  # … or resumes
    assert the_lab.state is S.WORKING and the_lab.refused == []


def test_cancel_works_while_interrupted():
    the_lab = lab()
    for name in ("SendMessage", "working", "auth-required"):
        the_lab.fire(name)
    the_lab.buttons["CancelTask"].click()
    assert the_lab.state is S.CANCELED
    assert the_lab.refused == []


def test_the_log_names_the_kits_class_and_the_specs_error_for_minus_32006():
    the_lab = lab()
    for name in ("completed", "working", "CancelTask"):
        the_lab.fire(name)
    agent_move, cancel = the_lab.log[1], the_lab.log[2]
    assert agent_move.spec_error == "InvalidAgentResponseError"
    assert "InvalidTransitionError (the kit's InvalidAgentResponseError, -32006)" in agent_move.line()
    assert cancel.spec_error == "" and "TaskNotCancelableError (-32002)" in cancel.line()


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


def test_the_course_diagram_uses_the_library_drawing_data():
    from agentproto.a2a import lifecycle_diagram
    from agentproto.course.a2a_lifecycle import NEW, state_graph

    diagram, g = lifecycle_diagram(), state_graph()
    assert list(g.nodes) == list(diagram.nodes) and set(g.edges) == set(diagram.edges)
    assert {n: g.nodes[n]["kind"] for n in g.nodes} == {n: diagram.kind(n) for n in diagram.nodes}
    assert NEW == diagram.groups["entry"][0]
