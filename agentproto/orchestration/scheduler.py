"""An orchestrator's scheduler: priorities, preemption and context snapshots.

Theory of operation
-------------------
An orchestrator (seed 004 §5) receives user requests, splits each one into sub-tasks
(:func:`decompose`), and hands every sub-task to the agent that can do it. Each agent works on
one sub-task at a time; the others wait in that agent's queue. A :class:`Policy` decides which
waiting sub-task goes next and whether a newcomer may interrupt the one that is running:

* ``FIFO`` — first come, first served; nothing is ever interrupted.
* ``priority`` — the most urgent waiting task goes next, and a newcomer whose priority is
  strictly higher than the running task's *preempts* it.
* ``priority + aging`` — as ``priority``, but a waiting task gains ``aging_rate`` priority
  points per second it has spent waiting, up to a ``ceiling``, so low-priority work cannot wait
  for ever (*starvation*) while the most urgent class, above the ceiling, still always wins.

A sub-task is a list of :class:`Step` objects. The agent finishes steps one after another; a
finished step's result is kept. Preemption saves a :class:`Snapshot` — progress, partial
results, next step — exactly the "save the scene, switch, restore the scene" of an operating
system's context switch. Resuming continues from the snapshot; only the work done inside the
interrupted step is lost (a snapshot is taken at step boundaries, the only points where an
agent's state is well defined). With ``snapshots=False`` a preempted task restarts from its
first step, which is what happens when a system has nowhere to put the context.

Every sub-task carries an A2A :class:`~agentproto.a2a.states.TaskState`: ``SUBMITTED`` when it
arrives, ``WORKING`` from its first dispatch until it ends ``COMPLETED``. A preempted task stays
``WORKING``: A2A v1.0 has no "paused" state — preemption is the orchestrator's private business,
and on the wire the agent still owns the next move (``WORKING`` → ``WORKING`` is a progress
update). Internally the scheduler tracks a finer :class:`Phase` (queued, running, preempted, done).

Everything runs on :class:`~agentproto.orchestration.engine.Simulation`: virtual seconds,
seeded randomness, no threads. :class:`ScheduleResult` holds the decision log (a trace of
dicts for the course's ``show_trace``), the Gantt segments, the snapshots and the
waiting-time statistics that the policies are compared on. The Gantt charts, the comparison
plots and notebook 13's lab are in the course layer (``course/scheduling.py``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from agentproto.a2a.states import TaskState
from agentproto.errors import AgentProtoError
from agentproto.orchestration.engine import AgendaEntry, Simulation

__all__ = [
    "Step",
    "TaskSpec",
    "Snapshot",
    "Segment",
    "Preemption",
    "Phase",
    "TaskRecord",
    "Policy",
    "FIFO",
    "PRIORITY",
    "PRIORITY_AGING",
    "POLICIES",
    "Scheduler",
    "ScheduleResult",
    "ClassStats",
    "RequestClass",
    "TRAVEL_DESK",
    "decompose",
    "poisson_workload",
    "seed_example",
    "simulate",
    "compare_policies",
    "ArrivalRatePoint",
    "sweep_arrival_rates",
    "SchedulingError",
    "DuplicateTaskError",
    "UnknownAgentError",
]


# -- errors -------------------------------------------------------------------------------
class SchedulingError(AgentProtoError, ValueError):
    """Base class: the scheduler was given something it cannot schedule."""

    rule = "scheduling"


class DuplicateTaskError(SchedulingError):
    """Two sub-tasks share one id: the scheduler could not tell their results apart."""

    rule = "duplicate-task-id"


class UnknownAgentError(SchedulingError):
    """A sub-task names an agent the orchestrator does not have."""

    rule = "unknown-agent"


# -- what is scheduled ----------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One unit of an agent's work; ``result`` is what the step produces."""

    name: str
    duration: float
    result: Any = None

    def __post_init__(self) -> None:
        if not self.duration > 0:
            raise SchedulingError(f"step {self.name!r} needs a positive duration, got {self.duration}")


@dataclass(frozen=True)
class TaskSpec:
    """A sub-task as the orchestrator hands it out.

    ``priority``: larger is more urgent. ``arrival``: virtual seconds. ``request``: the user
    request it belongs to (several sub-tasks share one).
    """

    id: str
    agent: str
    priority: int
    arrival: float
    steps: tuple[Step, ...]
    name: str = ""
    request: str = ""

    def __post_init__(self) -> None:
        if not self.steps:
            raise SchedulingError(f"task {self.id!r} has no steps")
        if self.arrival < 0:
            raise SchedulingError(f"task {self.id!r} arrives before time 0 ({self.arrival})")

    @property
    def work(self) -> float:
        """Total service time when never interrupted."""
        return sum(s.duration for s in self.steps)

    @property
    def label(self) -> str:
        return self.name or self.id


@dataclass(frozen=True)
class Snapshot:
    """The context saved when a task is preempted (seed 004 §5's "snapshot")."""

    task_id: str
    saved_at: float
    steps_done: int
    total_steps: int
    partial_results: Mapping[str, Any]
    next_step: str
    lost_work: float

    @property
    def progress(self) -> str:
        return f"{self.steps_done} of {self.total_steps} steps done"

    def to_dict(self) -> dict[str, Any]:
        """The seed's JSON shape, with the A2A state the task really has on the wire."""
        return {
            "taskId": self.task_id,
            "state": TaskState.WORKING.value,
            "snapshot": {
                "progress": self.progress,
                "partialResults": dict(self.partial_results),
                "nextStep": self.next_step,
            },
        }


@dataclass(frozen=True)
class Segment:
    """A stretch of time during which ``agent`` worked on ``task_id`` (one Gantt bar)."""

    agent: str
    task_id: str
    priority: int
    start: float
    end: float
    ended_by: Literal["completed", "preempted", "horizon"]


@dataclass(frozen=True)
class Preemption:
    """``task_id`` was interrupted on ``agent`` at ``time`` to run ``by``."""

    time: float
    agent: str
    task_id: str
    by: str
    snapshot: Snapshot | None


class Phase(str, Enum):
    """The scheduler's own view of a task (finer than its A2A state)."""

    PENDING = "pending"  # not arrived yet
    QUEUED = "queued"  # waiting, never run
    RUNNING = "running"
    PREEMPTED = "preempted"  # waiting again, with a snapshot
    DONE = "done"


@dataclass
class TaskRecord:
    """Mutable run-time record of one sub-task."""

    spec: TaskSpec
    seq: int
    state: TaskState = TaskState.SUBMITTED
    phase: Phase = Phase.PENDING
    steps_done: int = 0
    partial_results: dict[str, Any] = field(default_factory=dict)
    ready_since: float = 0.0
    waited: float = 0.0
    first_start: float | None = None
    finished: float | None = None
    preemptions: int = 0
    lost_work: float = 0.0
    snapshots: list[Snapshot] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.spec.id

    def waiting_until(self, now: float) -> float:
        """Total time spent waiting in a queue, counting the current wait up to ``now``."""
        if self.phase in (Phase.QUEUED, Phase.PREEMPTED):
            return self.waited + (now - self.ready_since)
        return self.waited


# -- policies -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Policy:
    """How an agent picks its next task and whether newcomers may interrupt."""

    name: str
    order: Literal["fifo", "priority"]
    preemptive: bool = False
    aging_rate: float = 0.0  # priority points gained per second of waiting
    ceiling: float = math.inf  # aging never lifts a task above this effective priority

    def __post_init__(self) -> None:
        if self.order not in ("fifo", "priority"):
            raise SchedulingError(f"unknown order {self.order!r}; use 'fifo' or 'priority'")
        if self.aging_rate < 0:
            raise SchedulingError("aging_rate must be ≥ 0")
        if self.preemptive and self.order == "fifo":
            raise SchedulingError("a FIFO queue has no notion of 'more urgent': it cannot preempt")

    def effective_priority(self, rec: TaskRecord, now: float) -> float:
        """Base priority plus what the task earned by waiting (aging), at most ``ceiling``.

        A task whose base priority is already above the ceiling is not affected by it.
        """
        base = rec.spec.priority
        if self.aging_rate == 0:
            return base
        return max(base, min(self.ceiling, base + self.aging_rate * rec.waiting_until(now)))

    def sort_key(self, rec: TaskRecord, now: float) -> tuple[float, ...]:
        """Smallest key runs next; arrival order breaks ties (so equal priorities are FIFO)."""
        if self.order == "fifo":
            return (rec.spec.arrival, rec.seq)
        return (-self.effective_priority(rec, now), rec.spec.arrival, rec.seq)


FIFO = Policy("FIFO", "fifo")
PRIORITY = Policy("priority", "priority", preemptive=True)
#: Aging at 0.05 points/s up to a ceiling of 2.5: a report (1) that has waited 30 s outranks
#: fresh trip requests (2), but no amount of waiting lifts anything to an urgent complaint's 3.
#: Without the ceiling, at overload old trips and reports outrank new complaints — see
#: notebook 13's failure modes.
PRIORITY_AGING = Policy("priority + aging", "priority", preemptive=True, aging_rate=0.05, ceiling=2.5)
POLICIES: tuple[Policy, ...] = (FIFO, PRIORITY, PRIORITY_AGING)


# -- results ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClassStats:
    """Waiting-time statistics for the sub-tasks of one priority level."""

    priority: int
    count: int
    finished: int
    mean_wait: float
    p95_wait: float
    max_wait: float


@dataclass
class ScheduleResult:
    """What happened: records, Gantt segments, preemptions and a readable decision log."""

    policy: Policy
    agents: tuple[str, ...]
    records: dict[str, TaskRecord]
    segments: list[Segment]
    preemptions: list[Preemption]
    log: list[dict[str, Any]]
    horizon: float

    def waiting_times(self) -> dict[str, float]:
        """Task id → total time spent waiting (unfinished tasks counted up to the horizon)."""
        return {
            tid: rec.waiting_until(self.horizon)
            for tid, rec in self.records.items()
            if rec.phase is not Phase.PENDING
        }

    def unfinished(self) -> list[str]:
        return [tid for tid, rec in self.records.items() if rec.phase is not Phase.DONE]

    def by_priority(self) -> list[ClassStats]:
        """One :class:`ClassStats` per priority level, most urgent first."""
        groups: dict[int, list[TaskRecord]] = {}
        for rec in self.records.values():
            if rec.phase is not Phase.PENDING:
                groups.setdefault(rec.spec.priority, []).append(rec)
        out = []
        for prio in sorted(groups, reverse=True):
            recs = groups[prio]
            waits = sorted(r.waiting_until(self.horizon) for r in recs)
            out.append(
                ClassStats(
                    priority=prio,
                    count=len(recs),
                    finished=sum(r.phase is Phase.DONE for r in recs),
                    mean_wait=sum(waits) / len(waits),
                    p95_wait=_quantile(waits, 0.95),
                    max_wait=waits[-1],
                )
            )
        return out

    def starved(self, threshold: float) -> list[str]:
        """Tasks that waited longer than ``threshold`` seconds in total (or never finished)."""
        waits = self.waiting_times()
        return [tid for tid, w in waits.items() if w > threshold or self.records[tid].phase is not Phase.DONE]

    @property
    def lost_work(self) -> float:
        """Seconds of agent work thrown away by preemptions."""
        return sum(r.lost_work for r in self.records.values())

    def response_times(self) -> dict[str, float]:
        """User request id → time from arrival until its last sub-task completed."""
        spans: dict[str, list[float]] = {}
        for rec in self.records.values():
            if rec.finished is None:
                continue
            span = spans.setdefault(rec.spec.request or rec.id, [math.inf, -math.inf])
            span[0] = min(span[0], rec.spec.arrival)
            span[1] = max(span[1], rec.finished)
        unfinished = {r.spec.request or r.id for r in self.records.values() if r.finished is None}
        return {req: end - start for req, (start, end) in spans.items() if req not in unfinished}

    def summary(self) -> str:
        """A few lines a learner can read: waits per priority, preemptions, lost work."""
        lines = [
            f"{self.policy.name}: {len(self.records)} sub-tasks, "
            f"{len(self.unfinished())} unfinished at t={self.horizon:g}s, "
            f"{len(self.preemptions)} preemptions, {self.lost_work:.1f}s of work lost"
        ]
        for s in self.by_priority():
            lines.append(
                f"  priority {s.priority}: n={s.count:<3} mean wait {s.mean_wait:6.1f}s  "
                f"p95 {s.p95_wait:6.1f}s  max {s.max_wait:6.1f}s"
            )
        return "\n".join(lines)


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank quantile of an already sorted, non-empty sequence."""
    k = max(0, math.ceil(q * len(sorted_values)) - 1)
    return sorted_values[k]


# -- the scheduler ------------------------------------------------------------------------------
@dataclass
class _AgentSlot:
    name: str
    queue: list[TaskRecord] = field(default_factory=list)
    running: TaskRecord | None = None
    segment_start: float = 0.0
    step_start: float = 0.0
    pending: AgendaEntry | None = None


class Scheduler:
    """Runs sub-tasks on a set of agents under one :class:`Policy`.

    >>> sched = Scheduler(["data"], PRIORITY)
    >>> sched.submit(TaskSpec("low", "data", 1, 0.0, (Step("a", 2.0),)))
    >>> sched.submit(TaskSpec("high", "data", 3, 1.0, (Step("b", 1.0),)))
    >>> result = sched.run()
    >>> [(s.task_id, s.start, s.end, s.ended_by) for s in result.segments]
    [('low', 0.0, 1.0, 'preempted'), ('high', 1.0, 2.0, 'completed'), ('low', 2.0, 4.0, 'completed')]
    """

    def __init__(
        self,
        agents: Iterable[str],
        policy: Policy = PRIORITY,
        *,
        sim: Simulation | None = None,
        snapshots: bool = True,
    ) -> None:
        self.policy = policy
        self.sim = sim if sim is not None else Simulation(seed=0)
        self.snapshots = snapshots
        self.slots = {name: _AgentSlot(name) for name in agents}
        if not self.slots:
            raise SchedulingError("an orchestrator needs at least one agent")
        self.records: dict[str, TaskRecord] = {}
        self.segments: list[Segment] = []
        self.preemptions: list[Preemption] = []
        self.log: list[dict[str, Any]] = []

    # -- input ------------------------------------------------------------------------------
    def submit(self, spec: TaskSpec) -> None:
        """Register ``spec``; it joins its agent's queue at ``spec.arrival``."""
        if spec.id in self.records:
            raise DuplicateTaskError(f"task id {spec.id!r} was already submitted")
        if spec.agent not in self.slots:
            raise UnknownAgentError(
                f"task {spec.id!r} wants agent {spec.agent!r}; agents are {sorted(self.slots)}"
            )
        rec = TaskRecord(spec, seq=len(self.records))
        self.records[spec.id] = rec
        self.sim.at(max(spec.arrival, self.sim.now), lambda: self._arrive(rec), label=f"arrive {spec.id}")

    def submit_all(self, specs: Iterable[TaskSpec]) -> None:
        for spec in specs:
            self.submit(spec)

    def run(self, until: float | None = None) -> ScheduleResult:
        """Run the simulation (to completion, or to ``until``) and return the result."""
        self.sim.run(until=until)
        horizon = self.sim.now
        for slot in self.slots.values():  # close the bars still open at the horizon
            rec = slot.running
            if rec is not None and horizon > slot.segment_start:
                self.segments.append(
                    Segment(slot.name, rec.id, rec.spec.priority, slot.segment_start, horizon, "horizon")
                )
        return ScheduleResult(
            self.policy,
            tuple(self.slots),
            dict(self.records),
            list(self.segments),
            list(self.preemptions),
            list(self.log),
            horizon,
        )

    # -- events -----------------------------------------------------------------------------
    def _note(self, kind: str, rec: TaskRecord, slot: _AgentSlot, **extra: Any) -> None:
        entry = {
            "type": kind,
            "t": round(self.sim.now, 6),
            "agent": slot.name,
            "taskId": rec.id,
            "priority": rec.spec.priority,
            "state": rec.state.value,
        }
        entry.update(extra)
        self.log.append(entry)

    def _arrive(self, rec: TaskRecord) -> None:
        slot = self.slots[rec.spec.agent]
        rec.phase = Phase.QUEUED
        rec.ready_since = self.sim.now
        self._note("ARRIVED", rec, slot)
        running = slot.running
        slot.queue.append(rec)
        if running is None:
            self._dispatch(slot)
        elif self.policy.preemptive and (
            self.policy.effective_priority(rec, self.sim.now)
            > self.policy.effective_priority(running, self.sim.now)
        ):
            self._preempt(slot, by=rec)
            self._dispatch(slot, rec)  # the newcomer that preempted runs now
        # else: it waits its turn

    def _dispatch(self, slot: _AgentSlot, chosen: TaskRecord | None = None) -> None:
        if slot.running is not None or not slot.queue:
            return
        now = self.sim.now
        if chosen is None:
            chosen = min(slot.queue, key=lambda r: self.policy.sort_key(r, now))
        slot.queue.remove(chosen)
        rec = chosen
        rec.waited += now - rec.ready_since
        resumed = rec.phase is Phase.PREEMPTED
        rec.phase = Phase.RUNNING
        rec.state = TaskState.WORKING
        if rec.first_start is None:
            rec.first_start = now
        slot.running = rec
        slot.segment_start = now
        if resumed:
            self._note("RESUMED", rec, slot, fromStep=rec.spec.steps[rec.steps_done].name)
        else:
            self._note("STARTED", rec, slot)
        self._start_step(slot)

    def _start_step(self, slot: _AgentSlot) -> None:
        rec = slot.running
        assert rec is not None
        step = rec.spec.steps[rec.steps_done]
        slot.step_start = self.sim.now
        slot.pending = self.sim.schedule(
            step.duration, lambda: self._finish_step(slot), label=f"{rec.id}:{step.name}"
        )

    def _finish_step(self, slot: _AgentSlot) -> None:
        rec = slot.running
        assert rec is not None
        step = rec.spec.steps[rec.steps_done]
        rec.partial_results[step.name] = step.result
        rec.steps_done += 1
        if rec.steps_done < len(rec.spec.steps):
            self._start_step(slot)
            return
        now = self.sim.now
        rec.state = TaskState.COMPLETED
        rec.phase = Phase.DONE
        rec.finished = now
        self.segments.append(
            Segment(slot.name, rec.id, rec.spec.priority, slot.segment_start, now, "completed")
        )
        self._note("COMPLETED", rec, slot)
        slot.running = None
        slot.pending = None
        self._dispatch(slot)

    def _preempt(self, slot: _AgentSlot, by: TaskRecord) -> None:
        rec = slot.running
        assert rec is not None and slot.pending is not None
        now = self.sim.now
        slot.pending.cancel()
        lost = now - slot.step_start
        if not self.snapshots:  # nowhere to keep the context: everything done so far is lost
            lost += sum(s.duration for s in rec.spec.steps[: rec.steps_done])
            rec.steps_done = 0
            rec.partial_results.clear()
        rec.lost_work += lost
        rec.preemptions += 1
        snap = None
        if self.snapshots:
            snap = Snapshot(
                rec.id,
                now,
                rec.steps_done,
                len(rec.spec.steps),
                dict(rec.partial_results),
                rec.spec.steps[rec.steps_done].name,
                lost,
            )
            rec.snapshots.append(snap)
        if now > slot.segment_start:  # a task preempted the instant it started leaves no bar
            self.segments.append(
                Segment(slot.name, rec.id, rec.spec.priority, slot.segment_start, now, "preempted")
            )
        self.preemptions.append(Preemption(now, slot.name, rec.id, by.id, snap))
        rec.phase = Phase.PREEMPTED  # A2A state stays WORKING: there is no "paused" on the wire
        rec.ready_since = now
        self._note(
            "PREEMPTED", rec, slot, by=by.id, progress=snap.progress if snap else "restart from step 1"
        )
        slot.running = None
        slot.pending = None
        slot.queue.append(rec)


# -- workloads ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RequestClass:
    """A kind of user request and how the orchestrator splits it.

    ``subtasks``: (agent, step names, seconds per step) for each sub-task it becomes.
    """

    name: str
    priority: int
    weight: float
    subtasks: tuple[tuple[str, tuple[str, ...], float], ...]


#: A travel desk with three agents. The analytics agent is the bottleneck: every request needs
#: it (complaints 2 s, trips 1 s, reports 10 s), so it saturates at about 0.33 requests/s.
TRAVEL_DESK: tuple[RequestClass, ...] = (
    RequestClass(
        "complaint",
        priority=3,
        weight=0.2,
        subtasks=(
            ("analytics", ("look up booking", "draft reply"), 1.0),
            ("hotels", ("rebook room",), 1.0),
        ),
    ),
    RequestClass(
        "trip",
        priority=2,
        weight=0.6,
        subtasks=(
            ("flights", ("search flights", "hold seat"), 1.5),
            ("hotels", ("search hotels", "hold room"), 1.5),
            ("analytics", ("price check",), 1.0),
        ),
    ),
    RequestClass(
        "report",
        priority=1,
        weight=0.2,
        subtasks=(("analytics", tuple(f"department {d}" for d in "ABCDE"), 2.0),),
    ),
)


def decompose(
    request_id: str, cls: RequestClass, arrival: float, priority: int | None = None
) -> list[TaskSpec]:
    """Split one user request into the sub-tasks of its class (ids ``<request>/<agent>``)."""
    prio = cls.priority if priority is None else priority
    return [
        TaskSpec(
            id=f"{request_id}/{agent}",
            agent=agent,
            priority=prio,
            arrival=arrival,
            steps=tuple(Step(s, secs) for s in steps),
            name=f"{cls.name} {request_id}",
            request=request_id,
        )
        for agent, steps, secs in cls.subtasks
    ]


def poisson_workload(
    rate: float,
    duration: float,
    classes: Sequence[RequestClass] = TRAVEL_DESK,
    *,
    seed: int = 0,
    priorities: Mapping[str, int] | None = None,
) -> list[TaskSpec]:
    """Requests arriving as a Poisson process (``rate`` per second) for ``duration`` seconds.

    ``priorities`` overrides a class's priority by name (what the notebook's sliders change).
    The draw of arrival times and classes depends only on ``seed``, ``rate`` and ``duration``,
    so changing priorities replays the very same requests.
    """
    if rate <= 0:
        raise SchedulingError("arrival rate must be positive")
    rng = random.Random(seed)
    weights = [c.weight for c in classes]
    specs: list[TaskSpec] = []
    t, n = 0.0, 0
    while True:
        t += rng.expovariate(rate)
        if t >= duration:
            return specs
        n += 1
        cls = rng.choices(classes, weights)[0]
        prio = (priorities or {}).get(cls.name)
        specs += decompose(f"r{n}", cls, round(t, 3), prio)


def seed_example() -> list[TaskSpec]:
    """Seed 004 §5's story on one data agent.

    A low-priority monthly report waits while a medium-priority weekly query works through five
    departments; at t=6.5 s an urgent customer complaint arrives. The weekly query has finished
    departments A–C (results 120, 98, 156, the seed's numbers), so its snapshot says
    "3 of 5 steps done, next: query department D".
    """
    weekly = tuple(Step(f"query department {d}", 2.0, v) for d, v in zip("ABCDE", (120, 98, 156, 87, 131)))
    return [
        TaskSpec("weekly-data", "data", 2, 0.0, weekly, name="query this week's data"),
        TaskSpec(
            "monthly-report",
            "data",
            1,
            0.0,
            (Step("collect", 3.0), Step("write", 3.0)),
            name="generate monthly report",
        ),
        TaskSpec(
            "complaint",
            "data",
            3,
            6.5,
            (Step("investigate", 2.0), Step("reply", 1.0)),
            name="URGENT: customer complaint",
        ),
    ]


def simulate(
    specs: Iterable[TaskSpec],
    policy: Policy = PRIORITY,
    *,
    agents: Iterable[str] | None = None,
    until: float | None = None,
    snapshots: bool = True,
    seed: int = 0,
) -> ScheduleResult:
    """Schedule ``specs`` under ``policy``; agents default to those the specs name."""
    specs = list(specs)
    names = list(agents) if agents is not None else sorted({s.agent for s in specs})
    sched = Scheduler(names, policy, sim=Simulation(seed=seed), snapshots=snapshots)
    sched.submit_all(specs)
    return sched.run(until=until)


def compare_policies(
    specs: Sequence[TaskSpec],
    policies: Sequence[Policy] = POLICIES,
    *,
    until: float | None = None,
    agents: Iterable[str] | None = None,
) -> dict[str, ScheduleResult]:
    """The same workload under each policy, keyed by policy name."""
    names = list(agents) if agents is not None else None
    return {p.name: simulate(specs, p, agents=names, until=until) for p in policies}


@dataclass(frozen=True)
class ArrivalRatePoint:
    """One policy at one arrival rate: the numbers the starvation plot shows."""

    policy: str
    rate: float
    mean_wait: dict[int, float]
    max_wait: dict[int, float]
    unfinished: int
    preemptions: int


def sweep_arrival_rates(
    rates: Sequence[float],
    policies: Sequence[Policy] = POLICIES,
    *,
    duration: float = 600.0,
    seed: int = 0,
    classes: Sequence[RequestClass] = TRAVEL_DESK,
    priorities: Mapping[str, int] | None = None,
) -> list[ArrivalRatePoint]:
    """Run every policy at every arrival rate on the same seeded workloads (horizon = duration)."""
    out = []
    for rate in rates:
        specs = poisson_workload(rate, duration, classes, seed=seed, priorities=priorities)
        for policy in policies:
            res = simulate(specs, policy, until=duration)
            stats = res.by_priority()
            out.append(
                ArrivalRatePoint(
                    policy.name,
                    rate,
                    {s.priority: s.mean_wait for s in stats},
                    {s.priority: s.max_wait for s in stats},
                    len(res.unfinished()),
                    len(res.preemptions),
                )
            )
    return out
