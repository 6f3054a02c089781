"""Resource deadlocks in a bounded worker pool: the starved pool, its detection, and the fixes."""

from __future__ import annotations

import pytest

from agentproto.a2a.states import TaskState
from agentproto.orchestration import bulkhead
from agentproto.orchestration.bulkhead import (
    BulkheadError,
    PoolLayout,
    Workload,
    progressing,
    simulate,
    sweep_pools,
)
from agentproto.orchestration.waitgraph import DeadlockError, find_cycle

STARVED = Workload(parents=2, fan_out=1)


def test_two_parents_on_two_workers_blocking_starve_the_pool() -> None:
    run = simulate(STARVED, PoolLayout.shared(2), wait="blocking")
    assert run.deadlocked
    assert run.completed == 0
    assert set(run.stuck) == {"P1", "P2", "P1.1", "P2.1"}
    # on the wire every stuck task is still SUBMITTED or WORKING: no A2A state says "starved"
    assert run.final["P1"] is TaskState.WORKING
    assert run.final["P1.1"] is TaskState.SUBMITTED
    s = run.starvation
    assert s is not None and s.pool == "shared"
    assert s.held == {"shared#1": "P1", "shared#2": "P2"}


def test_the_task_graph_has_no_cycle_the_resource_graph_has_one() -> None:
    s = simulate(STARVED, PoolLayout.shared(2)).starvation
    assert s is not None
    assert s.task_graph == {"P1": ("P1.1",), "P2": ("P2.1",), "P1.1": (), "P2.1": ()}
    assert find_cycle(s.task_graph) is None
    assert s.task_cycle is None
    cycle = s.resource_cycle
    assert cycle is not None and find_cycle(s.resource_graph) is not None
    # the witness passes through a worker slot: a task never waits for a task directly on it
    assert any(node.startswith("shared#") for node in cycle)
    assert set(s.stuck) >= {"P1", "P2", "P1.1", "P2.1", "shared#1", "shared#2"}


def test_one_parent_fewer_than_workers_finishes() -> None:
    run = simulate(Workload(parents=1, fan_out=3), PoolLayout.shared(2))
    assert not run.deadlocked
    assert run.completed == 1
    assert run.stuck == ()
    assert all(s is TaskState.COMPLETED for s in run.final.values())


def test_async_continuation_never_starves() -> None:
    run = simulate(Workload(parents=5, fan_out=2), PoolLayout.shared(2), wait="async")
    assert not run.deadlocked and run.completed == 5 and run.stuck == ()


def test_bulkheads_separate_pools_never_starve() -> None:
    run = simulate(Workload(parents=5, fan_out=2), PoolLayout.bulkheads(2, 1), wait="blocking")
    assert not run.deadlocked and run.completed == 5
    assert run.layout.sizes == {"parents": 2, "children": 1}


def test_admission_limit_below_pool_size_is_the_sizing_fix() -> None:
    run = simulate(Workload(parents=5, fan_out=2), PoolLayout.shared(2, admission=1))
    assert not run.deadlocked and run.completed == 5


def test_call_timeout_detects_starvation_with_an_explicit_exit() -> None:
    run = simulate(STARVED, PoolLayout.shared(2), call_timeout=30.0)
    assert run.deadlocked  # it did starve; the timeout is how it was noticed
    assert run.stuck == ()
    assert run.final["P1"] is TaskState.FAILED and run.final["P1.1"] is TaskState.CANCELED
    assert [r.task for r in run.reports][:2] == ["P1", "P1.1"]
    assert "30" in run.reports[0].reason
    assert run.completed == 0


def test_timeout_frees_workers_for_later_parents() -> None:
    run = simulate(Workload(parents=3, fan_out=1), PoolLayout.shared(2), call_timeout=30.0)
    # P1 and P2 starve and give up; P3 then gets a worker and a spare one for its child
    assert run.final["P1"] is TaskState.FAILED and run.final["P2"] is TaskState.FAILED
    assert run.final["P3"] is TaskState.COMPLETED
    assert run.completed == 1


def test_runs_are_deterministic_and_tell_a_story() -> None:
    a = simulate(STARVED, PoolLayout.shared(2))
    b = simulate(STARVED, PoolLayout.shared(2))
    assert a.log == b.log
    assert "starved" in a.story()
    assert "stuck" in a.summary()


def test_progressing_mixes_and_and_or_waits() -> None:
    graph = {"p": ("c1", "c2"), "c1": (), "c2": ("s1", "s2"), "s1": ("p",), "s2": ()}
    kinds = {"p": "and", "c2": "or"}
    assert progressing(graph, kinds) == {"p", "c1", "c2", "s1", "s2"}
    graph["s2"] = ("p",)  # the last free slot is taken by the waiting parent
    assert progressing(graph, kinds) == {"c1"}


def test_sweep_marks_stuck_exactly_where_parents_reach_the_pool_size() -> None:
    points = sweep_pools(workers=[1, 2, 3], parents=[1, 2, 3, 4])
    stuck = {(p.workers, p.parents) for p in points if p.stuck}
    assert stuck == {(w, n) for w in (1, 2, 3) for n in (1, 2, 3, 4) if n >= w}
    safe = sweep_pools(workers=[1, 2, 3], parents=[1, 2, 3, 4], wait="async")
    assert not any(p.stuck for p in safe)


@pytest.mark.parametrize(
    "make",
    [
        lambda: PoolLayout.shared(0),
        lambda: PoolLayout.shared(2, admission=0),
        lambda: PoolLayout({"a": 1}, parent_pool="a", child_pool="b"),
        lambda: Workload(parents=0),
        lambda: Workload(fan_out=0),
        lambda: Workload(child_work=-1.0),
        lambda: simulate(STARVED, PoolLayout.shared(2), wait="hope"),
        lambda: simulate(STARVED, PoolLayout.shared(2), call_timeout=0.0),
    ],
)
def test_bad_configuration_is_refused(make) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BulkheadError) as info:
        make()
    assert isinstance(info.value, DeadlockError) and isinstance(info.value, ValueError)
    assert info.value.rule == "bulkhead.config"


def test_module_surface() -> None:
    assert set(bulkhead.__all__) >= {"PoolLayout", "Workload", "simulate", "sweep_pools", "progressing"}


def test_a_shared_pool_needs_one_worker_more_than_the_parents_in_flight() -> None:
    """Notebook 18 §6 and Exercise 4: four parents arriving together, fan-out 2, starve four
    workers and finish on five; the 6 × 8 sweep is stuck exactly where parents ≥ workers (33 of 48)."""
    work = Workload(parents=4, fan_out=2)
    assert simulate(work, PoolLayout.shared(4)).stuck
    assert not simulate(work, PoolLayout.shared(5)).stuck
    points = sweep_pools(range(1, 7), range(1, 9))
    assert sum(p.stuck for p in points) == 33 == sum(9 - w for w in range(1, 7))
