"""The derived task transition table and the spec rules behind it (a2a.proto, spec §3)."""

from __future__ import annotations

import itertools

import pytest

from agentproto.a2a.errors import (
    InvalidAgentResponseError,
    InvalidParamsError,
    TaskNotCancelableError,
    UnsupportedOperationError,
)
from agentproto.a2a.machine import (
    CREATED,
    TRANSITIONS,
    InvalidTransitionError,
    Operation,
    TaskMachine,
    Transition,
    edges,
    resolve_follow_up,
    why_refused,
)
from agentproto.a2a.states import INTERRUPTED_STATES, TERMINAL_STATES, TaskState
from agentproto.clock import FakeClock

S = TaskState
VALID = [s for s in S if s is not S.UNSPECIFIED]

#: The table written out longhand, row by row, as the docs print it.
EXPECTED = {
    CREATED: {S.SUBMITTED, S.WORKING, S.INPUT_REQUIRED, S.AUTH_REQUIRED, S.COMPLETED, S.FAILED, S.REJECTED},
    S.SUBMITTED: {
        S.WORKING,
        S.INPUT_REQUIRED,
        S.AUTH_REQUIRED,
        S.COMPLETED,
        S.FAILED,
        S.CANCELED,
        S.REJECTED,
    },
    S.WORKING: {S.WORKING, S.INPUT_REQUIRED, S.AUTH_REQUIRED, S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED},
    S.INPUT_REQUIRED: {
        S.WORKING,
        S.INPUT_REQUIRED,
        S.AUTH_REQUIRED,
        S.COMPLETED,
        S.FAILED,
        S.CANCELED,
        S.REJECTED,
    },
    S.AUTH_REQUIRED: {
        S.WORKING,
        S.INPUT_REQUIRED,
        S.AUTH_REQUIRED,
        S.COMPLETED,
        S.FAILED,
        S.CANCELED,
        S.REJECTED,
    },
    S.COMPLETED: set(),
    S.FAILED: set(),
    S.CANCELED: set(),
    S.REJECTED: set(),
}


def test_the_table_has_a_row_for_creation_and_every_valid_state():
    assert set(TRANSITIONS) == {CREATED, *VALID}
    assert {k: set(v) for k, v in TRANSITIONS.items()} == EXPECTED


@pytest.mark.parametrize("source, target", list(itertools.product([CREATED, *VALID], list(S))))
def test_every_pair_is_allowed_exactly_when_the_table_says_so(source, target):
    machine = TaskMachine("t", clock=FakeClock())
    if source is not CREATED:
        machine.history = [Transition(None, source, 0)]
    allowed = target in EXPECTED[source]
    if allowed:
        assert machine.advance(target).target is target
        assert why_refused(source, target) is None
    else:
        with pytest.raises(InvalidTransitionError) as info:
            machine.advance(target)
        assert machine.state is source  # a refused move changes nothing
        assert info.value.code == -32006
        assert why_refused(source, target) in str(info.value)


@pytest.mark.parametrize("terminal", sorted(TERMINAL_STATES))
def test_a_terminal_state_is_final(terminal):
    assert TRANSITIONS[terminal] == frozenset()
    assert "terminal" in why_refused(terminal, S.WORKING)


def test_submitted_is_an_entry_state_only():
    assert all(S.SUBMITTED not in TRANSITIONS[s] for s in VALID)
    assert "entry state" in why_refused(S.WORKING, S.SUBMITTED)


def test_nothing_can_be_canceled_before_it_exists():
    assert S.CANCELED not in TRANSITIONS[CREATED]
    assert "exist" in why_refused(CREATED, S.CANCELED)


def test_rejected_can_happen_at_creation_or_later():
    assert S.REJECTED in TRANSITIONS[CREATED]
    assert S.REJECTED in TRANSITIONS[S.WORKING]


@pytest.mark.parametrize("interrupted", sorted(INTERRUPTED_STATES))
def test_an_interrupted_task_can_resume_be_canceled_or_ask_again(interrupted):
    assert {S.WORKING, S.CANCELED, interrupted} <= TRANSITIONS[interrupted]


def test_unspecified_is_never_a_target():
    assert all(S.UNSPECIFIED not in targets for targets in TRANSITIONS.values())
    assert "not a valid state" in why_refused(S.WORKING, S.UNSPECIFIED)


def test_edges_enumerate_the_table_for_the_state_diagram():
    assert len(list(edges())) == sum(len(v) for v in EXPECTED.values())
    assert (CREATED, S.SUBMITTED) in set(edges())


def test_every_transition_is_recorded_with_the_injected_time():
    clock = FakeClock(start_ms=1_000)
    m = TaskMachine("t-1", clock=clock)
    m.create()
    clock.advance(250)
    m.advance(S.WORKING, reason="agent started")
    clock.advance(750)
    m.advance(S.COMPLETED)
    assert [(t.source, t.target, t.at_ms) for t in m.history] == [
        (None, S.SUBMITTED, 1_000),
        (S.SUBMITTED, S.WORKING, 1_250),
        (S.WORKING, S.COMPLETED, 2_000),
    ]
    assert m.history[1].reason == "agent started"
    assert m.is_terminal and not m.is_interrupted


def test_a_task_is_created_once():
    m = TaskMachine("t", clock=FakeClock())
    m.create()
    with pytest.raises(InvalidAgentResponseError, match="already exists"):
        m.create()


@pytest.mark.parametrize(
    "operation, error, code",
    [
        (Operation.SEND_MESSAGE, UnsupportedOperationError, -32004),  # spec §3.1.1
        (Operation.CANCEL, TaskNotCancelableError, -32002),  # spec §3.1.5
        (Operation.SUBSCRIBE, UnsupportedOperationError, -32004),  # spec §3.1.6
    ],
)
@pytest.mark.parametrize("terminal", sorted(TERMINAL_STATES))
def test_operations_on_a_terminal_task_fail_with_the_spec_error(operation, error, code, terminal):
    m = TaskMachine.restore(
        "t-9", [Transition(None, S.SUBMITTED, 0), Transition(S.SUBMITTED, terminal, 1)], FakeClock()
    )
    with pytest.raises(error) as info:
        m.check(operation)
    assert info.value.code == code
    assert info.value.metadata == {"taskId": "t-9", "state": terminal.value}


@pytest.mark.parametrize("state", [S.SUBMITTED, S.WORKING, *sorted(INTERRUPTED_STATES)])
def test_operations_on_a_live_task_are_allowed(state):
    m = TaskMachine("t", clock=FakeClock())
    m.create(state)
    for op in Operation:
        m.check(op)


def test_restore_replays_a_stored_history_and_rejects_a_corrupt_one():
    good = [Transition(None, S.SUBMITTED, 0), Transition(S.SUBMITTED, S.WORKING, 5)]
    assert TaskMachine.restore("t", good, FakeClock()).state is S.WORKING
    bad = [Transition(None, S.SUBMITTED, 0), Transition(S.COMPLETED, S.WORKING, 5)]
    with pytest.raises(InvalidTransitionError):
        TaskMachine.restore("t", bad, FakeClock())


# --- follow-up messages (spec §3.4.2, §3.4.3) ----------------------------------------------


def test_a_follow_up_without_context_id_gets_the_tasks_context():
    assert resolve_follow_up("t", "ctx-1", S.INPUT_REQUIRED, "") == "ctx-1"


def test_a_follow_up_with_the_same_context_id_is_accepted():
    assert resolve_follow_up("t", "ctx-1", S.AUTH_REQUIRED, "ctx-1") == "ctx-1"


def test_a_follow_up_with_another_context_id_is_rejected_as_invalid_params():
    with pytest.raises(InvalidParamsError) as info:
        resolve_follow_up("t", "ctx-1", S.INPUT_REQUIRED, "ctx-2")
    assert info.value.code == -32602
    assert "does not match" in info.value.message


@pytest.mark.parametrize("terminal", sorted(TERMINAL_STATES))
def test_a_follow_up_to_a_terminal_task_is_unsupported(terminal):
    with pytest.raises(UnsupportedOperationError, match="new task in the same context"):
        resolve_follow_up("t", "ctx-1", terminal, "ctx-1")


def test_the_table_in_the_docs_is_the_table_in_the_code():
    import pathlib
    import re

    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "a2a.md").read_text()
    block = doc.split("<!-- transition-table")[1].split("<!-- /transition-table -->")[0]
    rows = {}
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("from", "---"):
            continue
        source = None if "new task" in cells[0] else S[cells[0].strip("`")]
        rows[source] = {S[name] for name in re.findall(r"`(\w+)`", cells[1])}
    assert rows == EXPECTED


# -- the lifecycle diagram's drawing data -------------------------------------------------------


def test_the_lifecycle_diagram_is_drawn_from_the_transition_table():
    from agentproto.a2a import lifecycle_diagram
    from agentproto.a2a.machine import ENTRY_NODE, TRANSITIONS

    def name(state):
        return ENTRY_NODE if state is None else state.short

    diagram = lifecycle_diagram()
    assert set(diagram.edges) == {(name(s), name(t)) for s, targets in TRANSITIONS.items() for t in targets}
    assert len(diagram.edges) == len(set(diagram.edges))
    assert set(diagram.nodes) == {name(s) for s in TRANSITIONS}


def test_the_diagram_groups_are_the_state_sets_and_cover_every_node_once():
    from agentproto.a2a import INTERRUPTED_STATES, TERMINAL_STATES, lifecycle_diagram

    diagram = lifecycle_diagram()
    grouped = [n for members in diagram.groups.values() for n in members]
    assert sorted(grouped) == sorted(diagram.nodes) and len(grouped) == len(set(grouped))
    assert set(diagram.groups["terminal"]) == {s.short for s in TERMINAL_STATES}
    assert set(diagram.groups["interrupted"]) == {s.short for s in INTERRUPTED_STATES}
    assert diagram.kind("(new)") == "entry" and diagram.kind("working") == "active"
    with pytest.raises(KeyError):
        diagram.kind("paused")


def test_no_edge_leaves_a_terminal_state_in_the_picture():
    from agentproto.a2a import lifecycle_diagram

    diagram = lifecycle_diagram()
    assert [e for e in diagram.edges if e[0] in diagram.groups["terminal"]] == []


def test_the_diagram_as_json_and_as_mermaid():
    import json

    from agentproto.a2a import lifecycle_diagram

    diagram = lifecycle_diagram()
    data = json.loads(json.dumps(diagram.to_dict()))
    assert data["nodes"] == list(diagram.nodes) and len(data["edges"]) == len(diagram.edges)
    mermaid = diagram.to_mermaid()
    assert mermaid.startswith("stateDiagram-v2\n")
    assert "    [*] --> submitted" in mermaid and "    input_required --> working" in mermaid
    assert mermaid.count(" --> ") == len(diagram.edges) + len(diagram.groups["terminal"])
