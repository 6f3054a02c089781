"""The orchestrator's scheduler: priorities, preemption with snapshots, aging, and no lost tasks."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentproto.a2a.states import TaskState
from agentproto.orchestration.scheduler import (
    FIFO,
    POLICIES,
    PRIORITY,
    PRIORITY_AGING,
    DuplicateTaskError,
    Phase,
    Policy,
    SchedulingError,
    Step,
    TaskSpec,
    UnknownAgentError,
    poisson_workload,
    seed_example,
    simulate,
    sweep_arrival_rates,
)


def task(tid: str, prio: int, arrival: float, *durations: float, agent: str = "a") -> TaskSpec:
    return TaskSpec(tid, agent, prio, arrival, tuple(Step(f"{tid}.{i}", d) for i, d in enumerate(durations)))


# -- the seed's story ---------------------------------------------------------------------
def test_urgent_complaint_preempts_the_weekly_query_and_its_snapshot_matches_the_seed():
    result = simulate(seed_example(), PRIORITY)
    (pre,) = result.preemptions
    assert (pre.time, pre.task_id, pre.by) == (6.5, "weekly-data", "complaint")
    snap = pre.snapshot
    assert snap.progress == "3 of 5 steps done"
    assert dict(snap.partial_results) == {
        "query department A": 120,
        "query department B": 98,
        "query department C": 156,
    }
    assert snap.next_step == "query department D"
    assert snap.lost_work == pytest.approx(0.5)  # half of department D's step


def test_a_preempted_task_resumes_from_its_snapshot_not_from_the_start():
    result = simulate(seed_example(), PRIORITY)
    kinds = [(e["type"], e["taskId"]) for e in result.log if e["type"] != "ARRIVED"]
    assert kinds == [
        ("STARTED", "weekly-data"),
        ("PREEMPTED", "weekly-data"),
        ("STARTED", "complaint"),
        ("COMPLETED", "complaint"),
        ("RESUMED", "weekly-data"),
        ("COMPLETED", "weekly-data"),
        ("STARTED", "monthly-report"),
        ("COMPLETED", "monthly-report"),
    ]
    resumed = next(e for e in result.log if e["type"] == "RESUMED")
    assert resumed["fromStep"] == "query department D"
    assert result.records["weekly-data"].finished == pytest.approx(13.5)  # 9.5 + two 2 s steps


def test_a_preempted_task_stays_working_on_the_wire_because_a2a_has_no_paused_state():
    result = simulate(seed_example(), PRIORITY)
    preempted = next(e for e in result.log if e["type"] == "PREEMPTED")
    assert preempted["state"] == TaskState.WORKING.value
    assert result.preemptions[0].snapshot.to_dict()["state"] == "TASK_STATE_WORKING"
    assert {e["state"] for e in result.log} <= {s.value for s in TaskState}
    assert all(r.state is TaskState.COMPLETED for r in result.records.values())


def test_without_snapshots_a_preempted_task_starts_over_and_loses_all_its_progress():
    result = simulate(seed_example(), PRIORITY, snapshots=False)
    weekly = result.records["weekly-data"]
    assert weekly.lost_work == pytest.approx(6.5)  # three finished departments + half of D
    assert weekly.snapshots == [] and result.preemptions[0].snapshot is None
    assert weekly.finished == pytest.approx(19.5)  # 9.5 + all five 2 s steps again


def test_waiting_times_per_priority_are_hand_checked_for_the_seed_story():
    stats = {s.priority: s for s in simulate(seed_example(), PRIORITY).by_priority()}
    assert stats[3].mean_wait == 0.0
    assert stats[2].mean_wait == pytest.approx(3.0)  # preempted from 6.5 to 9.5
    assert stats[1].mean_wait == pytest.approx(13.5)


# -- policies -----------------------------------------------------------------------------
def test_fifo_never_preempts_and_serves_in_arrival_order():
    result = simulate(seed_example(), FIFO)
    assert result.preemptions == []
    order = [e["taskId"] for e in result.log if e["type"] == "STARTED"]
    assert order == ["weekly-data", "monthly-report", "complaint"]
    assert result.waiting_times()["complaint"] == pytest.approx(16.0 - 6.5)


def test_non_preemptive_priority_lets_the_urgent_task_jump_the_queue_but_not_interrupt():
    polite = Policy("priority, no preemption", "priority", preemptive=False)
    result = simulate(seed_example(), polite)
    assert result.preemptions == []
    order = [e["taskId"] for e in result.log if e["type"] == "STARTED"]
    assert order == ["weekly-data", "complaint", "monthly-report"]


def test_equal_priority_never_preempts():
    result = simulate([task("first", 2, 0.0, 2.0), task("second", 2, 1.0, 1.0)], PRIORITY)
    assert result.preemptions == []


STREAM = [task("low", 1, 0.0, 1.0)] + [task(f"m{i}", 2, float(i), 1.0) for i in range(10)]


def test_strict_priority_starves_low_work_while_higher_work_keeps_arriving():
    result = simulate(STREAM, PRIORITY)
    assert result.records["low"].finished == pytest.approx(11.0)  # after all ten m-tasks
    assert result.starved(threshold=5.0) == ["low"]


def test_aging_lets_a_waiting_task_overtake_newer_higher_priority_work():
    aging = Policy("aging", "priority", preemptive=True, aging_rate=0.5)
    result = simulate(STREAM, aging)
    # at t=2 the low task has waited 2 s: 1 + 0.5·2 = 2 ties with the fresh m2; older wins
    assert result.records["low"].finished == pytest.approx(3.0)
    assert result.starved(threshold=5.0) == []


def test_aging_stops_at_the_ceiling():
    capped = Policy("capped", "priority", preemptive=True, aging_rate=0.5, ceiling=1.5)
    result = simulate(STREAM, capped)
    assert result.records["low"].finished == pytest.approx(11.0)  # 1.5 never reaches 2


def test_a_task_above_the_ceiling_keeps_its_priority():
    capped = Policy("capped", "priority", preemptive=True, aging_rate=0.5, ceiling=2.5)
    from agentproto.orchestration.scheduler import TaskRecord

    urgent = TaskRecord(task("u", 3, 0.0, 1.0), seq=0)
    assert capped.effective_priority(urgent, now=100.0) == 3


@pytest.mark.parametrize(
    "bad",
    [
        dict(order="lifo"),
        dict(order="fifo", preemptive=True),
        dict(order="priority", aging_rate=-1.0),
    ],
)
def test_policies_that_make_no_sense_are_refused(bad):
    with pytest.raises(SchedulingError):
        Policy("bad", **bad)


# -- bad input ----------------------------------------------------------------------------
def test_duplicate_task_ids_are_refused_and_the_first_task_is_kept():
    from agentproto.orchestration.scheduler import Scheduler

    sched = Scheduler(["a"], PRIORITY)
    sched.submit(task("t", 1, 0.0, 1.0))
    with pytest.raises(DuplicateTaskError) as err:
        sched.submit(task("t", 3, 0.0, 5.0))
    assert err.value.rule == "duplicate-task-id"
    result = sched.run()
    assert result.records["t"].spec.priority == 1 and result.records["t"].finished == 1.0


def test_a_task_for_an_unknown_agent_is_refused():
    from agentproto.orchestration.scheduler import Scheduler

    with pytest.raises(UnknownAgentError, match="agents are"):
        Scheduler(["flights"], PRIORITY).submit(task("t", 1, 0.0, 1.0, agent="hotels"))


@pytest.mark.parametrize(
    "make",
    [
        lambda: Step("s", 0.0),
        lambda: TaskSpec("t", "a", 1, 0.0, ()),
        lambda: TaskSpec("t", "a", 1, -1.0, (Step("s", 1.0),)),
    ],
)
def test_malformed_tasks_are_refused(make):
    with pytest.raises(SchedulingError):
        make()


# -- workloads and sweeps -------------------------------------------------------------------
def test_workloads_are_reproducible_and_priorities_do_not_change_the_requests():
    a = poisson_workload(0.3, 120, seed=3)
    b = poisson_workload(0.3, 120, seed=3, priorities={"report": 5})
    assert [(s.id, s.arrival) for s in a] == [(s.id, s.arrival) for s in b]
    assert {s.priority for s in b if s.name.startswith("report")} == {5}
    assert a == poisson_workload(0.3, 120, seed=3)


def test_a_request_is_split_into_one_sub_task_per_agent_and_its_response_time_is_the_slowest():
    specs = poisson_workload(0.1, 60, seed=1)
    result = simulate(specs, PRIORITY)
    by_request: dict[str, list[TaskSpec]] = {}
    for spec in specs:
        by_request.setdefault(spec.request, []).append(spec)
    times = result.response_times()
    for req, subs in by_request.items():
        last = max(result.records[s.id].finished for s in subs)
        assert times[req] == pytest.approx(last - subs[0].arrival)


def test_sweep_runs_every_policy_at_every_rate():
    points = sweep_arrival_rates([0.1, 0.3], duration=120)
    assert [(p.policy, p.rate) for p in points] == [(pol.name, r) for r in (0.1, 0.3) for pol in POLICIES]


def test_at_overload_strict_priority_starves_reports_and_aging_shortens_their_worst_wait():
    specs = poisson_workload(0.4, 600, seed=0)
    strict = simulate(specs, PRIORITY, until=600)
    aged = simulate(specs, PRIORITY_AGING, until=600)
    worst = lambda r: {s.priority: s.max_wait for s in r.by_priority()}[1]  # noqa: E731
    assert worst(aged) < worst(strict)
    urgent = lambda r: {s.priority: s.max_wait for s in r.by_priority()}[3]  # noqa: E731
    assert urgent(aged) < 10.0  # the ceiling keeps complaints fast
    uncapped = simulate(specs, Policy("no ceiling", "priority", True, aging_rate=0.05), until=600)
    assert urgent(uncapped) > 10 * urgent(aged)


# -- invariants (property tests) --------------------------------------------------------------
specs_strategy = st.lists(
    st.tuples(
        st.sampled_from(["x", "y"]),
        st.integers(1, 4),
        st.integers(0, 20),
        st.lists(st.integers(1, 4), min_size=1, max_size=3),
    ),
    min_size=1,
    max_size=14,
).map(
    lambda rows: [
        TaskSpec(f"t{i}", agent, prio, float(arr), tuple(Step(f"s{j}", float(d)) for j, d in enumerate(ds)))
        for i, (agent, prio, arr, ds) in enumerate(rows)
    ]
)
policy_strategy = st.sampled_from(
    list(POLICIES) + [Policy("np", "priority"), Policy("fast aging", "priority", True, 1.0)]
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs_strategy, policy_strategy, st.booleans())
def test_scheduler_never_loses_or_duplicates_a_task(specs, policy, snapshots):
    result = simulate(specs, policy, agents=["x", "y"], snapshots=snapshots)
    completed = [e["taskId"] for e in result.log if e["type"] == "COMPLETED"]
    started = [e["taskId"] for e in result.log if e["type"] == "STARTED"]
    assert sorted(completed) == sorted(started) == sorted(s.id for s in specs)  # each exactly once
    for spec in specs:
        rec = result.records[spec.id]
        assert rec.state is TaskState.COMPLETED and rec.phase is Phase.DONE
        mine = [s for s in result.segments if s.task_id == spec.id]
        assert all(s.agent == spec.agent for s in mine)
        assert sum(s.end - s.start for s in mine) == pytest.approx(spec.work + rec.lost_work)
        assert mine[0].start >= spec.arrival
    for agent in ("x", "y"):  # one task at a time per agent
        bars = sorted((s.start, s.end) for s in result.segments if s.agent == agent)
        assert all(a_end <= b_start + 1e-9 for (_, a_end), (b_start, _) in zip(bars, bars[1:]))


@settings(max_examples=60, deadline=None)
@given(specs_strategy, policy_strategy, st.integers(0, 25))
def test_at_any_horizon_every_task_is_somewhere(specs, policy, horizon):
    result = simulate(specs, policy, agents=["x", "y"], until=float(horizon))
    for spec in specs:
        rec = result.records[spec.id]
        if spec.arrival > horizon:
            assert rec.phase is Phase.PENDING
        else:
            assert rec.phase in (Phase.QUEUED, Phase.RUNNING, Phase.PREEMPTED, Phase.DONE)
    running = [r for r in result.records.values() if r.phase is Phase.RUNNING]
    assert len({r.spec.agent for r in running}) == len(running)  # at most one per agent


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_every_sub_task_moves_only_along_the_a2a_task_machine(policy):
    from agentproto.a2a.machine import why_refused

    result = simulate(poisson_workload(0.4, 300, seed=2), policy, until=300)
    for tid in result.records:
        states = [None] + [TaskState(e["state"]) for e in result.log if e["taskId"] == tid]
        for a, b in zip(states, states[1:]):
            if a is not b:
                assert why_refused(a, b) is None, f"{tid}: {a} → {b}"
