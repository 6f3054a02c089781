"""Deadlocks (seed 004 §11): dispatching a wait-for plan under timeouts, detection and escalation."""

from __future__ import annotations

import pytest

from agentproto.a2a.states import TaskState
from agentproto.orchestration.deadlock import (
    ConfigError,
    DeadlockFrame,
    Strategy,
    SweepResult,
    TimeoutPolicy,
    random_plan,
    simulate,
    sweep,
    ttl_tradeoff,
)
from agentproto.orchestration.waitgraph import WaitPlan, check_plan, find_cycle, load_plan

TRAVEL = load_plan("deadlock_travel")
TRAVEL_HIDDEN = load_plan("deadlock_travel_hidden")


def plan(deps, work=None, hidden=None, discover_at=None):
    tasks = tuple(
        sorted(
            set(deps)
            | {d for ds in deps.values() for d in ds}
            | set(hidden or {})
            | {d for ds in (hidden or {}).values() for d in ds}
        )
    )
    return WaitPlan(
        tasks,
        {t: frozenset(deps.get(t, ())) for t in tasks},
        {t: frozenset((hidden or {}).get(t, ())) for t in tasks},
        work or {},
        discover_at or {},
    )


# -- the simulation ------------------------------------------------------------------------------
def test_with_no_strategy_the_agents_wait_for_ever():
    run = simulate(TRAVEL, "none")
    assert run.stuck == ("flights", "hotel", "itinerary")
    assert run.final["weather"] is TaskState.COMPLETED
    assert run.deadlocked and run.recovery_times == [None]
    assert run.reports == []  # nobody tells the orchestrator anything


def test_the_seeds_timeout_exits_after_ttl_times_one_plus_retries_with_an_explicit_state():
    policy = TimeoutPolicy(ttl=30, max_retries=3)  # the seed's numbers
    assert policy.gives_up_after == 120
    run = simulate(TRAVEL, "timeout", timeout=policy)
    first = run.reports[0]
    assert (first.task, first.state, first.at) == ("flights", TaskState.FAILED, 120.0)
    assert "after 4 × 30 s" in first.reason
    assert run.final == {
        "flights": TaskState.FAILED,
        "hotel": TaskState.CANCELED,
        "itinerary": TaskState.CANCELED,
        "weather": TaskState.COMPLETED,
    }
    assert run.recovery_times == [120.0]
    assert [e["type"] for e in run.log].count("retry") == 9  # three waiters × three retries


def test_a_timeout_may_exit_as_canceled_like_the_seeds_on_timeout_cancel():
    run = simulate(TRAVEL, "timeout", timeout=TimeoutPolicy(30, 0, TaskState.CANCELED))
    assert run.reports[0].state is TaskState.CANCELED and run.reports[0].at == 30.0


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(ttl=0),
        dict(ttl=-5),
        dict(max_retries=-1),
        dict(exit_state=TaskState.WORKING),
        dict(exit_state=TaskState.COMPLETED),
    ],
)
def test_a_timeout_without_a_finite_wait_or_an_explicit_failure_exit_is_refused(kwargs):
    with pytest.raises(ConfigError):
        TimeoutPolicy(**kwargs)


def test_an_unknown_strategy_is_a_typed_error():
    with pytest.raises(ConfigError, match="detection\\+escalation"):
        simulate(TRAVEL, "pray")


def test_detection_rejects_the_cycle_and_its_dependents_but_runs_the_rest():
    run = simulate(TRAVEL, "detection")
    assert run.refusal is not None and run.refusal.cycle == ("flights", "hotel")
    assert run.final == {
        "flights": TaskState.REJECTED,
        "hotel": TaskState.REJECTED,
        "itinerary": TaskState.REJECTED,
        "weather": TaskState.COMPLETED,
    }
    assert run.recovery_times == [0.0] and not run.deadlocked


def test_escalation_asks_one_question_and_everything_completes():
    run = simulate(TRAVEL, "detection+escalation", human_delay=120)
    assert run.completion_rate == 1.0
    (q,) = run.escalations
    assert (q.task, q.waits_for, q.need, q.asked_at, q.answered_at) == (
        "flights",
        "hotel",
        "destination",
        0.0,
        120.0,
    )
    assert run.recovery_times == [120.0]
    assert run.end_time == 120 + 20 + 15 + 10  # default, then flights, hotel, itinerary in turn


def test_a_hidden_dependency_passes_the_pre_dispatch_check():
    check_plan(TRAVEL_HIDDEN.graph(include_hidden=False))  # no error: the planner cannot see it
    assert find_cycle(TRAVEL_HIDDEN.graph()) == ("flights", "hotel")


def test_run_time_detection_catches_the_hidden_cycle_when_it_closes():
    run = simulate(TRAVEL_HIDDEN, "detection")
    (inc,) = run.incidents
    assert inc.kind == "runtime" and inc.onset == 8.0 == inc.detected_at  # half of hotel's 16 s
    assert run.final["hotel"] is TaskState.FAILED and run.final["flights"] is TaskState.CANCELED
    assert run.reports[0].reason.startswith("deadlock detected: hotel → flights → hotel")


def test_run_time_escalation_resumes_the_task_that_asked():
    run = simulate(TRAVEL_HIDDEN, "detection+escalation", human_delay=60)
    assert run.completion_rate == 1.0
    assert run.escalations[0].task == "hotel" and run.escalations[0].answered_at == 68.0
    kinds = [(e["task"], e["type"]) for e in run.log]
    assert (
        kinds.index(("hotel", "default"))
        < kinds.index(("hotel", "resume"))
        < kinds.index(("hotel", "complete"))
    )


def test_one_human_answers_questions_in_turn():
    p = plan({"a": ["b"], "b": ["a"], "c": ["d"], "d": ["c"]})
    run = simulate(p, "detection+escalation", human_delay=50)
    assert [q.answered_at for q in run.escalations] == [50.0, 100.0]


def test_a_short_ttl_kills_a_wait_that_was_only_slow():
    p = plan({"a": ["b"]}, work={"a": 1, "b": 100})
    run = simulate(p, "timeout", timeout=TimeoutPolicy(ttl=10, max_retries=0))
    assert run.spurious_exits == 1 and not run.incidents
    assert run.final == {"a": TaskState.FAILED, "b": TaskState.COMPLETED}
    assert simulate(p, "none").completion_rate == 1.0  # without the timeout it would have finished


def test_tasks_waiting_behind_a_deadlock_are_not_counted_as_spurious():
    p = plan({"a": ["b"], "b": ["a"], "c": ["a"]})
    run = simulate(p, "timeout", timeout=TimeoutPolicy(ttl=10, max_retries=0))
    assert run.spurious_exits == 0


@pytest.mark.parametrize("strategy", ["none", "timeout", "detection", "detection+escalation"])
def test_every_task_moves_only_along_the_a2a_task_machine(strategy):
    from agentproto.a2a.machine import why_refused

    plans = [TRAVEL, TRAVEL_HIDDEN] + [random_plan(6, d, seed=s) for d in (0.2, 0.4) for s in range(15)]
    for p in plans:
        run = simulate(p, strategy, human_delay=30)
        for task in p.tasks:
            states = [TaskState.SUBMITTED] + [f.states[task] for f in run.frames]
            moves = [(a, b) for a, b in zip(states, states[1:]) if a is not b]
            for a, b in moves:
                assert why_refused(a, b) is None, f"{p.name} {strategy}: {task} {a.short} → {b.short}"


def test_frames_record_the_graph_after_every_step():
    run = simulate(TRAVEL, "none")
    deadlock = next(f for f in run.frames if f.kind == "deadlock")
    assert set(deadlock.waits) >= {("flights", "hotel"), ("hotel", "flights")}
    assert deadlock.cycle == ("hotel", "flights")
    assert all(isinstance(f, DeadlockFrame) for f in run.frames) and run.frames[0].kind == "dispatch"
    assert simulate(TRAVEL, "none", record=False).frames == []


def test_random_plans_are_reproducible_and_density_zero_has_no_edges():
    assert random_plan(5, 0.4, seed=3) == random_plan(5, 0.4, seed=3)
    assert random_plan(5, 0.0, seed=3).edges() == []
    with pytest.raises(ConfigError):
        random_plan(5, 1.5)


# -- sweeps --------------------------------------------------------------------------------------
def test_without_hidden_dependencies_detection_prevents_every_deadlock():
    res = sweep([0.3], runs=30, hidden_fraction=0.0)
    by = {p.strategy: p for p in res.points}
    assert by[Strategy.NONE].deadlock_frequency > 0.5
    assert by[Strategy.DETECTION].deadlock_frequency == 0.0
    assert by[Strategy.ESCALATION].completion == 1.0
    assert by[Strategy.NONE].unrecovered == 1.0 and by[Strategy.TIMEOUT].unrecovered == 0.0


def test_a_sweep_is_deterministic_and_tabulates_every_density():
    a, b = sweep([0.1, 0.3], runs=10), sweep([0.1, 0.3], runs=10)
    assert a.points == b.points
    table = a.table()
    assert len(table.splitlines()) == 2 + 2 * 4  # header, rule, a row per density and strategy


def test_the_sweep_table_labels_every_column_and_keeps_them_apart():
    table = sweep([0.1, 0.3], runs=10).table().splitlines()
    header, rule, rows = table[0], table[1], table[2:]
    labels = [h for h, _ in SweepResult.COLUMNS]
    assert [h.strip() for h in header.split("  ") if h.strip()] == labels
    # the rule marks each column's extent; every cell sits inside its column, two spaces apart
    spans, at = [], 0
    for dashes in rule.split("  "):
        spans.append((at, at + len(dashes)))
        at += len(dashes) + 2
    assert len(spans) == len(labels)
    for row in rows:
        for start, _end in spans[1:]:
            assert row[start - 2 : start] == "  "  # no two columns run together
        cells = [row[a:b].strip() for a, b in spans]
        assert all(cells) and cells[1] in {s.value for s in Strategy}
        assert cells[2].endswith("%") and cells[3].endswith("%")


def test_longer_ttls_kill_fewer_healthy_waits_but_recover_later():
    rows = ttl_tradeoff([5, 80], runs=40)
    assert rows[0]["spurious_exits"] > rows[1]["spurious_exits"]
    assert rows[0]["mean_recovery"] < rows[1]["mean_recovery"]


def test_help_says_completed_is_a_count_not_the_tasks():
    import pydoc

    from agentproto.orchestration.deadlock import DeadlockRun

    text = pydoc.render_doc(DeadlockRun, renderer=pydoc.plaintext)
    assert "a number, not the tasks" in text
    assert "those are in ``final``" in text  # where the tasks themselves are
