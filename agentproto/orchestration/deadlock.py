"""Deadlocks between agents: dispatching a wait-for plan under timeouts, detection and escalation.

Theory of operation
-------------------
Agents deadlock exactly when the graph of *currently blocked* tasks has a cycle (seed 004 §11:
A waits for B, B waits for A, for ever). The graph itself — cycle finding, deadlocked groups, the check
before dispatch — lives in :mod:`agentproto.orchestration.waitgraph`; this module *runs* a
:class:`~agentproto.orchestration.waitgraph.WaitPlan` and shows what each way of coping costs.

The simulation (:func:`simulate`) dispatches a plan on a
:class:`~agentproto.orchestration.engine.Simulation` and applies one :class:`Strategy`:

``none``
    Tasks wait for as long as it takes — which, on a cycle, is for ever.
``timeout``
    A blocked task waits ``ttl`` seconds, retries up to ``max_retries`` times, then **exits with
    an explicit state** (A2A ``FAILED`` by default) and reports to the orchestrator, which
    cancels the tasks that were waiting for it. The cycle is gone; so is its work.
``detection``
    The orchestrator checks the declared wait-for graph *before dispatch* and refuses the cyclic
    part of the plan (``REJECTED``); at run time it keeps the live wait-for graph and, the moment
    a new wait closes a cycle, fails the task that closed it. Instant, but nothing on the cycle
    gets done: a data dependency cannot be broken by aborting someone — only new information
    (a default) breaks it.
``detection+escalation``
    Same detection, but instead of refusing or failing, the orchestrator asks a human for a
    default that replaces one dependency on the cycle. The task waits ``INPUT_REQUIRED`` until
    the answer arrives (one human, answering in order, ``human_delay`` seconds per answer).

Some dependencies are only discovered at run time (``hidden`` in a plan: an agent finds
half-way through its work that it needs another agent's result). Pre-dispatch detection cannot
see those, which is why run-time detection — or at least a timeout — is still needed.

Tasks carry the A2A :class:`~agentproto.a2a.states.TaskState`: ``SUBMITTED`` until they start,
``WORKING``, ``INPUT_REQUIRED`` while a human is asked, and a terminal state at the end. Waiting
for another agent is not an A2A state (on the wire the task is still ``SUBMITTED``/``WORKING``);
the orchestrator tracks it privately as the task's ``waiting`` set.

A run returns data — a :class:`DeadlockRun` with the final states, the incidents, the reports
and one :class:`DeadlockFrame` per step; :func:`sweep` and :func:`ttl_tradeoff` average random
plans (:func:`random_plan`). Their pictures are in the course layer (``course/deadlocks.py``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar

from agentproto.a2a.states import TERMINAL_STATES, TaskState
from agentproto.orchestration.engine import AgendaEntry, Simulation
from agentproto.orchestration.waitgraph import (
    CyclicPlanError,
    DeadlockError,
    Edge,
    Graph,
    WaitPlan,
    break_cycles,
    check_plan,
    deadlocked_groups,
    find_cycle,
    find_cycle_through,
    format_cycle,
    wait_for_graph,
)

__all__ = [
    "ConfigError",
    "random_plan",
    "Strategy",
    "STRATEGIES",
    "TimeoutPolicy",
    "Incident",
    "ExitReport",
    "Escalation",
    "DeadlockFrame",
    "DeadlockRun",
    "simulate",
    "SweepPoint",
    "SweepResult",
    "sweep",
    "ttl_tradeoff",
]


class ConfigError(DeadlockError, ValueError):
    """A strategy parameter is out of range (negative timeout, unknown strategy …)."""

    rule = "deadlock.config"


def random_plan(
    n_tasks: int,
    density: float,
    *,
    hidden_fraction: float = 0.3,
    mean_work: float = 10.0,
    rng: random.Random | None = None,
    seed: int | None = None,
) -> WaitPlan:
    """A random plan: each ordered pair of distinct tasks is a dependency with probability
    ``density``; each dependency is hidden (discovered at run time) with ``hidden_fraction``.
    Work is exponential with mean ``mean_work`` seconds; tasks are named ``A``, ``B``, …"""
    if not 0.0 <= density <= 1.0 or not 0.0 <= hidden_fraction <= 1.0:
        raise ConfigError("density and hidden_fraction are probabilities in [0, 1]")
    if not 1 <= n_tasks <= 26:
        raise ConfigError("n_tasks must be between 1 and 26")
    rng = rng or random.Random(seed)
    names = tuple(chr(ord("A") + i) for i in range(n_tasks))
    declared: dict[str, set[str]] = {t: set() for t in names}
    hidden: dict[str, set[str]] = {t: set() for t in names}
    for a in names:
        for b in names:
            if a != b and rng.random() < density:
                (hidden if rng.random() < hidden_fraction else declared)[a].add(b)
    work = {t: rng.expovariate(1.0 / mean_work) for t in names}
    discover_at = {t: rng.uniform(0.2, 0.8) for t in names}
    return WaitPlan(
        names,
        {t: frozenset(v) for t, v in declared.items()},
        {t: frozenset(v) for t, v in hidden.items()},
        work,
        discover_at,
        name=f"random(n={n_tasks}, density={density:g})",
    )


# -- strategies -----------------------------------------------------------------------------------
class Strategy(str, Enum):
    """How the orchestrator deals with agents waiting on each other (seed 004 §11)."""

    NONE = "none"
    TIMEOUT = "timeout"
    DETECTION = "detection"
    ESCALATION = "detection+escalation"

    @property
    def detects(self) -> bool:
        return self in (Strategy.DETECTION, Strategy.ESCALATION)


STRATEGIES: tuple[Strategy, ...] = tuple(Strategy)


@dataclass(frozen=True)
class TimeoutPolicy:
    """Wait at most ``ttl`` seconds, retry ``max_retries`` times, then exit in ``exit_state``.

    The seed's ``{"timeout": 30, "max_retries": 3, "on_timeout": "cancel"}``. In A2A terms a task
    that gives up by itself ends ``FAILED``; ``CANCELED`` is what a client's cancel request
    produces — either is an explicit, terminal exit the orchestrator can act on.
    """

    ttl: float = 30.0
    max_retries: int = 3
    exit_state: TaskState = TaskState.FAILED

    def __post_init__(self) -> None:
        if not (self.ttl > 0 and math.isfinite(self.ttl)):
            raise ConfigError(f"ttl must be a positive number of seconds, got {self.ttl}")
        if self.max_retries < 0:
            raise ConfigError(f"max_retries must be ≥ 0, got {self.max_retries}")
        if self.exit_state not in (TaskState.FAILED, TaskState.CANCELED):
            raise ConfigError(
                f"exit_state must be an explicit terminal failure (FAILED or CANCELED), "
                f"not {self.exit_state.short}: 'keep waiting' and 'silent' are no exit"
            )

    @property
    def gives_up_after(self) -> float:
        """Seconds from the start of a wait to the exit: ``ttl × (1 + max_retries)``."""
        return self.ttl * (1 + self.max_retries)


# -- run records ---------------------------------------------------------------------------------
@dataclass
class Incident:
    """A dependency cycle that mattered in one run.

    ``kind`` is ``"prevented"`` (found in the declared plan before dispatch) or ``"runtime"``
    (agents actually blocked on each other). Time to recovery runs from ``onset`` to
    ``resolved_at`` (``None``: never resolved).
    """

    cycle: tuple[str, ...]
    kind: str
    onset: float
    detected_at: float | None = None
    resolved_at: float | None = None
    resolution: str | None = None

    @property
    def time_to_recovery(self) -> float | None:
        return None if self.resolved_at is None else self.resolved_at - self.onset

    def edges(self) -> list[Edge]:
        c = self.cycle
        return [(c[k], c[(k + 1) % len(c)]) for k in range(len(c))]


@dataclass(frozen=True)
class ExitReport:
    """What a task tells the orchestrator when it stops without completing: an explicit state
    and a reason — never "still waiting", never silence."""

    task: str
    state: TaskState
    reason: str
    at: float


@dataclass
class Escalation:
    """A request to a human: supply a default for what ``task`` needs from ``waits_for``."""

    task: str
    waits_for: str
    need: str
    asked_at: float
    answered_at: float
    cycle: tuple[str, ...]


@dataclass(frozen=True)
class DeadlockFrame:
    """One step of a run, for the step widget: what happened and the graph right after."""

    time: float
    kind: str
    task: str
    message: str
    states: Mapping[str, TaskState]
    waits: tuple[Edge, ...]
    cycle: tuple[str, ...] = ()
    defaults: tuple[Edge, ...] = ()


@dataclass
class DeadlockRun:
    """Everything one run of :func:`simulate` produced; ``final`` maps task → last state."""

    plan: WaitPlan
    strategy: Strategy
    final: dict[str, TaskState]
    incidents: list[Incident]
    reports: list[ExitReport]
    escalations: list[Escalation]
    frames: list[DeadlockFrame]
    log: list[dict[str, Any]]
    end_time: float
    horizon: float
    refusal: CyclicPlanError | None = None
    spurious_exits: int = 0

    @property
    def completed(self) -> int:
        """How many tasks ended COMPLETED: a number, not the tasks (those are in ``final``)."""
        return sum(1 for s in self.final.values() if s is TaskState.COMPLETED)

    @property
    def completion_rate(self) -> float:
        return self.completed / len(self.final) if self.final else 1.0

    @property
    def stuck(self) -> tuple[str, ...]:
        """Tasks that never reached a terminal state (waiting when the horizon came)."""
        return tuple(t for t, s in self.final.items() if s not in TERMINAL_STATES)

    @property
    def deadlocked(self) -> bool:
        """Did agents actually block on each other (a run-time incident)?"""
        return any(i.kind == "runtime" for i in self.incidents)

    @property
    def recovery_times(self) -> list[float | None]:
        return [i.time_to_recovery for i in self.incidents]

    def story(self, width: int = 80) -> str:
        """The run as a time-stamped table: one line per step."""
        if not self.log:
            return "(not recorded: run with record=True)"
        name_w = max(len(t) for t in self.plan.tasks)
        kind_w = max(len(e["type"]) for e in self.log)
        lines = []
        for e in self.log:
            line = f"{e['t']:>7.1f} s  {e['task']:<{name_w}}  {e['type']:<{kind_w}}  {e['message']}"
            lines.append(line if len(line) <= width else line[: width - 1] + "…")
        return "\n".join(lines)

    def summary(self) -> str:
        n = len(self.final)
        parts = [f"{self.strategy.value}: {self.completed}/{n} tasks completed"]
        counts: dict[str, int] = {}
        for s in self.final.values():
            if s is not TaskState.COMPLETED and s in TERMINAL_STATES:
                counts[s.short] = counts.get(s.short, 0) + 1
        parts += [f"{v} {k}" for k, v in sorted(counts.items())]
        if self.stuck:
            parts.append(f"{len(self.stuck)} stuck waiting ({', '.join(self.stuck)})")
        for inc in self.incidents:
            ttr = inc.time_to_recovery
            how = (
                f"recovered after {ttr:g} s by {inc.resolution}"
                if ttr is not None
                else f"never recovered (still stuck at {self.horizon:g} s)"
            )
            parts.append(f"{inc.kind} cycle {format_cycle(inc.cycle)}: {how}")
        if self.escalations:
            parts.append(f"{len(self.escalations)} question(s) to a human")
        return "; ".join(parts)


# -- the simulation ---------------------------------------------------------------------------------
@dataclass
class _Task:
    name: str
    state: TaskState = TaskState.SUBMITTED
    phase: str = "pending"  # pending → working → discovered → done
    waiting: set[str] = field(default_factory=set)
    held: int = 0  # open questions to the human
    attempts: int = 0
    timer: AgendaEntry | None = None
    wait_started: float = 0.0

    @property
    def blocked(self) -> bool:
        return bool(self.waiting) or self.held > 0

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL_STATES


class _Run:
    def __init__(
        self,
        plan: WaitPlan,
        strategy: Strategy,
        timeout: TimeoutPolicy,
        human_delay: float,
        horizon: float,
        record: bool,
    ) -> None:
        self.plan, self.strategy, self.timeout = plan, strategy, timeout
        self.human_delay, self.horizon, self.record = human_delay, horizon, record
        self.sim = Simulation(seed=0)
        self.tasks = {t: _Task(t) for t in plan.tasks}
        self.declared = {t: set(plan.deps(t)) for t in plan.tasks}
        self.hidden = {t: set(plan.deps(t, "hidden")) for t in plan.tasks}
        self.pending_default: set[Edge] = set()
        self.defaults: list[Edge] = []
        self.incidents: list[Incident] = []
        self.reports: list[ExitReport] = []
        self.escalations: list[Escalation] = []
        self.frames: list[DeadlockFrame] = []
        self.log: list[dict[str, Any]] = []
        self.human_free_at = 0.0
        self.refusal: CyclicPlanError | None = None
        self.spurious = 0
        self.end_time = 0.0

    # -- bookkeeping ------------------------------------------------------------------------
    def waits(self) -> tuple[Edge, ...]:
        return tuple((t.name, d) for t in self.tasks.values() if not t.terminal for d in sorted(t.waiting))

    def live_graph(self) -> dict[str, list[str]]:
        """Blocked tasks and what they wait for, minus dependencies a human is already replacing."""
        return {
            t.name: [d for d in sorted(t.waiting) if (t.name, d) not in self.pending_default]
            for t in self.tasks.values()
            if t.blocked and not t.terminal
        }

    def behind_cycle(self, name: str) -> bool:
        """Is ``name`` on, or (transitively) waiting for, a task on an open deadlock?"""
        on_cycle = {
            m for i in self.incidents if i.resolved_at is None and i.kind == "runtime" for m in i.cycle
        }
        graph = self.live_graph()
        seen, todo = {name}, [name]
        while todo:
            cur = todo.pop()
            if cur in on_cycle:
                return True
            for nxt in graph.get(cur, ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    def note(self, kind: str, task: str, message: str, cycle: tuple[str, ...] = ()) -> None:
        if not self.record:
            return
        self.log.append({"type": kind, "t": round(self.sim.now, 3), "task": task, "message": message})
        self.frames.append(
            DeadlockFrame(
                self.sim.now,
                kind,
                task,
                message,
                {n: t.state for n, t in self.tasks.items()},
                self.waits(),
                cycle,
                tuple(self.defaults),
            )
        )

    def settle(self, cause: str) -> None:
        """Close incidents whose cycle no longer stands."""
        for inc in self.incidents:
            if inc.resolved_at is not None or inc.kind != "runtime":
                continue
            if not all(b in self.tasks[a].waiting and not self.tasks[a].terminal for a, b in inc.edges()):
                inc.resolved_at = self.sim.now
                inc.resolution = cause
        if all(t.terminal for t in self.tasks.values()):
            self.end_time = max(self.end_time, self.sim.now)

    # -- dispatch ---------------------------------------------------------------------------------
    def dispatch(self) -> None:
        declared_graph = wait_for_graph(self.declared, self.plan.tasks)
        if self.strategy is Strategy.DETECTION:
            try:
                check_plan(declared_graph)
            except CyclicPlanError as exc:
                self.refusal = exc
                self.refuse(declared_graph, exc)
        elif self.strategy is Strategy.ESCALATION:
            remaining = {k: list(v) for k, v in declared_graph.items()}
            for waiter, waited in break_cycles(declared_graph):
                cycle = find_cycle_through({**remaining, waiter: [waited]}, waiter) or (waiter, waited)
                remaining[waiter].remove(waited)
                inc = Incident(cycle, "prevented", onset=0.0, detected_at=0.0)
                self.incidents.append(inc)
                self.declared[waiter].discard(waited)
                self.ask_human(waiter, waited, cycle, inc, before_dispatch=True)
        for name in self.plan.tasks:
            task = self.tasks[name]
            if task.terminal:
                continue
            self.note("dispatch", name, "dispatched" + (", held for a human default" if task.held else ""))
            self.wait_for(task, self.declared[name])

    def refuse(self, graph: Graph, exc: CyclicPlanError) -> None:
        refused = {m for group in deadlocked_groups(graph) for m in group}
        changed = True
        while changed:  # everything that (transitively) waits for a refused task cannot run either
            changed = False
            for t, ws in graph.items():
                if t not in refused and refused.intersection(ws):
                    refused.add(t)
                    changed = True
        for witness in exc.cycles:
            self.incidents.append(Incident(witness, "prevented", 0.0, 0.0, 0.0, "refused before dispatch"))
        for name in self.plan.tasks:
            if name in refused:
                self.tasks[name].state = TaskState.REJECTED
                cyc = next((c for c in exc.cycles if name in c), ())
                why = f"on cycle {format_cycle(cyc)}" if cyc else "waits for a refused task"
                self.reports.append(
                    ExitReport(name, TaskState.REJECTED, f"refused before dispatch: {why}", 0.0)
                )
                self.note("refuse", name, f"REJECTED before dispatch: {why}", cyc)

    # -- waiting ------------------------------------------------------------------------------------
    def wait_for(self, task: _Task, deps: Iterable[str]) -> None:
        """Block ``task`` on the unfinished tasks in ``deps`` (or let it go on)."""
        deps = set(deps)
        dead = sorted(
            d for d in deps if self.tasks[d].terminal and self.tasks[d].state is not TaskState.COMPLETED
        )
        if dead:
            self.end(
                task, TaskState.CANCELED, f"cannot run: {dead[0]} ended {self.tasks[dead[0]].state.short}"
            )
            return
        task.waiting |= {d for d in deps if self.tasks[d].state is not TaskState.COMPLETED}
        if not task.blocked:
            self.proceed(task)
            return
        if task.waiting:
            what = ", ".join(f"{d} ({self.plan.need(task.name, d)})" for d in sorted(task.waiting))
            self.note("wait", task.name, f"waits for {what}")
            task.wait_started = self.sim.now
            self.arm_timer(task)
            self.check_cycles(task)

    def arm_timer(self, task: _Task) -> None:
        if self.strategy is not Strategy.TIMEOUT:
            return
        if task.timer is not None:
            task.timer.cancel()
        task.timer = self.sim.schedule(self.timeout.ttl, lambda: self.on_timeout(task), f"ttl {task.name}")

    def on_timeout(self, task: _Task) -> None:
        task.timer = None
        if task.terminal or not task.waiting:
            return
        deps = ", ".join(sorted(task.waiting))
        if task.attempts < self.timeout.max_retries:
            task.attempts += 1
            self.note(
                "retry",
                task.name,
                f"timed out after {self.timeout.ttl:g} s; retry "
                f"{task.attempts}/{self.timeout.max_retries}: "
                f"still waiting for {deps}",
            )
            self.arm_timer(task)
            return
        if not self.behind_cycle(task.name):
            self.spurious += 1
        self.end(
            task,
            self.timeout.exit_state,
            f"gave up waiting for {deps} after {1 + self.timeout.max_retries} × {self.timeout.ttl:g} s",
            report=True,
            cause="timeout exit",
        )

    def check_cycles(self, task: _Task) -> None:
        """Run-time detection: a new wait can only close cycles through the waiting task."""
        while not task.terminal:
            cycle = find_cycle_through(self.live_graph(), task.name)
            if cycle is None:
                return
            inc = Incident(cycle, "runtime", onset=self.sim.now)
            self.incidents.append(inc)
            if not self.strategy.detects:  # the agents are stuck; nobody notices
                self.note("deadlock", task.name, f"deadlock: {format_cycle(cycle)} (undetected)", cycle)
                return
            inc.detected_at = self.sim.now
            if self.strategy is Strategy.DETECTION:
                self.note("deadlock", task.name, f"deadlock detected: {format_cycle(cycle)}", cycle)
                self.end(
                    task,
                    TaskState.FAILED,
                    f"deadlock detected: {format_cycle(cycle)}",
                    report=True,
                    cause="detection (task failed)",
                )
                return
            self.ask_human(task, cycle[1], cycle, inc)

    # -- the human ----------------------------------------------------------------------------------
    def ask_human(
        self,
        task: _Task | str,
        waits_for: str,
        cycle: tuple[str, ...],
        inc: Incident,
        before_dispatch: bool = False,
    ) -> None:
        task = self.tasks[task] if isinstance(task, str) else task
        answer_at = max(self.sim.now, self.human_free_at) + self.human_delay
        self.human_free_at = answer_at
        need = self.plan.need(task.name, waits_for)
        self.escalations.append(Escalation(task.name, waits_for, need, self.sim.now, answer_at, cycle))
        self.pending_default.add((task.name, waits_for))
        task.held += 1
        task.state = TaskState.INPUT_REQUIRED
        where = "before dispatch" if before_dispatch else "at run time"
        self.note(
            "escalate",
            task.name,
            f"cycle {format_cycle(cycle)} found {where}; asks a human for a default {need}",
            cycle,
        )
        self.sim.at(answer_at, lambda: self.on_default(task, waits_for, inc), f"human → {task.name}")

    def on_default(self, task: _Task, waits_for: str, inc: Incident) -> None:
        self.pending_default.discard((task.name, waits_for))
        self.defaults.append((task.name, waits_for))
        task.held -= 1
        task.waiting.discard(waits_for)
        if task.terminal:
            return
        # The answer lets the agent go on, and its next report here is WORKING. A2A names no state
        # an answer leads to (§3.4.3): the agent's own next status decides, as in notebook 10.
        if task.held == 0:
            task.state = TaskState.WORKING
        self.note(
            "default",
            task.name,
            f"a human supplies a default {self.plan.need(task.name, waits_for)}; "
            f"{task.name} no longer waits for {waits_for}",
        )
        self.settle("human default")
        if inc.resolved_at is None:
            inc.resolved_at, inc.resolution = self.sim.now, "human default"
        if not task.blocked:
            self.proceed(task)

    # -- progress ------------------------------------------------------------------------------------
    def proceed(self, task: _Task) -> None:
        """Unblocked: start the work, or finish what was interrupted by a discovered need."""
        if task.timer is not None:
            task.timer.cancel()
            task.timer = None
        work = self.plan.work_of(task.name)
        if task.phase == "pending":
            task.phase = "working"
            task.state = TaskState.WORKING
            self.note("start", task.name, f"starts {work:g} s of work")
            if self.hidden[task.name]:
                frac = self.plan.discover_at.get(task.name, 0.5)
                self.sim.schedule(work * frac, lambda: self.discover(task))
            else:
                self.sim.schedule(work, lambda: self.complete(task))
        elif task.phase == "discovered":
            task.state = TaskState.WORKING
            frac = self.plan.discover_at.get(task.name, 0.5)
            self.note("resume", task.name, "has what it needs; resumes")
            self.sim.schedule(work * (1 - frac), lambda: self.complete(task))

    def discover(self, task: _Task) -> None:
        if task.terminal:
            return
        task.phase = "discovered"
        needs = ", ".join(sorted(self.hidden[task.name]))
        self.note("discover", task.name, f"finds it also needs {needs} (not in the plan)")
        self.wait_for(task, self.hidden[task.name])

    def complete(self, task: _Task) -> None:
        if task.terminal:
            return
        task.state = TaskState.COMPLETED
        task.phase = "done"
        self.note("complete", task.name, "completed")
        self.release(task.name)
        self.settle("completion")

    def release(self, name: str) -> None:
        for other in self.tasks.values():
            if name in other.waiting and not other.terminal:
                other.waiting.discard(name)
                if not other.blocked:
                    self.proceed(other)
                else:
                    self.arm_timer(other)  # a fresh wait for what is left

    def end(
        self, task: _Task, state: TaskState, reason: str, report: bool = False, cause: str = "cancellation"
    ) -> None:
        if task.terminal:
            return
        if task.timer is not None:
            task.timer.cancel()
            task.timer = None
        task.state = state
        task.phase = "done"
        if report or state is not TaskState.CANCELED:
            self.reports.append(ExitReport(task.name, state, reason, self.sim.now))
        self.note(state.short, task.name, f"{state.short.upper()}: {reason}")
        self.settle(cause)
        # the orchestrator re-plans: whoever waits for this task can no longer finish
        for other in self.tasks.values():
            if task.name in other.waiting and not other.terminal:
                self.end(other, TaskState.CANCELED, f"{task.name} ended {state.short}", cause=cause)

    def run(self) -> DeadlockRun:
        self.dispatch()
        self.settle("dispatch")
        self.sim.run(until=self.horizon)
        final = {n: t.state for n, t in self.tasks.items()}
        if any(s not in TERMINAL_STATES for s in final.values()):
            self.end_time = self.horizon
        return DeadlockRun(
            self.plan,
            self.strategy,
            final,
            self.incidents,
            self.reports,
            self.escalations,
            self.frames,
            self.log,
            self.end_time,
            self.horizon,
            self.refusal,
            self.spurious,
        )


def simulate(
    plan: WaitPlan,
    strategy: Strategy | str = Strategy.NONE,
    *,
    timeout: TimeoutPolicy | None = None,
    human_delay: float = 120.0,
    horizon: float = 3600.0,
    record: bool = True,
) -> DeadlockRun:
    """Dispatch ``plan`` under ``strategy`` and run it on a virtual clock until every task is
    terminal or ``horizon`` seconds have passed.

    ``record=False`` skips the per-step frames and log (for sweeps of thousands of runs).
    """
    try:
        strategy = Strategy(strategy)
    except ValueError:
        raise ConfigError(
            f"unknown strategy {strategy!r}; choose one of {', '.join(s.value for s in Strategy)}"
        ) from None
    if human_delay < 0 or horizon <= 0:
        raise ConfigError("human_delay must be ≥ 0 and horizon > 0")
    return _Run(plan, strategy, timeout or TimeoutPolicy(), human_delay, horizon, record).run()


# -- sweeps -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepPoint:
    """One strategy at one dependency density, averaged over many random plans."""

    strategy: Strategy
    density: float
    runs: int
    deadlock_frequency: float  # share of runs in which agents actually blocked on each other
    cyclic_plans: float  # share of plans whose full wait-for graph has a cycle
    mean_recovery: float | None  # seconds, over incidents that recovered
    unrecovered: float  # share of incidents never resolved before the horizon
    completion: float  # share of tasks completed
    human_questions: float  # per run
    spurious_exits: float  # per run: timeouts of tasks that were only slow, not deadlocked


@dataclass
class SweepResult:
    points: list[SweepPoint]
    horizon: float

    def series(self, strategy: Strategy | str, attr: str) -> tuple[list[float], list[float | None]]:
        s = Strategy(strategy)
        pts = [p for p in self.points if p.strategy is s]
        return [p.density for p in pts], [getattr(p, attr) for p in pts]

    #: The table's columns: header, and how a point fills the cell. Every number says what it
    #: is a share of, or its unit; numbers are right-aligned under their header.
    COLUMNS: ClassVar[tuple[tuple[str, Callable[[SweepPoint], str]], ...]] = (
        ("density", lambda p: f"{p.density:.2f}"),
        ("strategy", lambda p: p.strategy.value),
        ("plans with a cycle", lambda p: f"{p.cyclic_plans:.0%}"),
        ("runs deadlocked", lambda p: f"{p.deadlock_frequency:.0%}"),
        ("mean recovery (s)", lambda p: "—" if p.mean_recovery is None else f"{p.mean_recovery:.0f}"),
        ("incidents never recovered", lambda p: f"{p.unrecovered:.0%}"),
        ("tasks completed", lambda p: f"{p.completion:.0%}"),
        ("human questions / run", lambda p: f"{p.human_questions:.2f}"),
    )

    def table(self) -> str:
        """A plain-text table: a header row, a rule, then one row per density and strategy.

        Columns are separated by two spaces and sized to the wider of header and cells; the
        strategy is left-aligned, the numbers right-aligned, so no two columns run together.
        """
        headers = [h for h, _ in self.COLUMNS]
        body = [[cell(p) for _, cell in self.COLUMNS] for p in self.points]
        widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(headers)]
        left = {headers.index("strategy")}

        def line(cells: Sequence[str]) -> str:
            out = (c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
            return "  ".join(out).rstrip()

        rows = [line(headers), "  ".join("-" * w for w in widths)]
        return "\n".join(rows + [line(r) for r in body])


def sweep(
    densities: Sequence[float],
    *,
    strategies: Sequence[Strategy | str] = STRATEGIES,
    n_tasks: int = 6,
    runs: int = 100,
    hidden_fraction: float = 0.3,
    mean_work: float = 10.0,
    timeout: TimeoutPolicy | None = None,
    human_delay: float = 120.0,
    horizon: float = 3600.0,
    seed: int = 0,
) -> SweepResult:
    """Run every strategy on the same ``runs`` random plans per density (common random numbers,
    so differences come from the strategies, not from luck)."""
    chosen = [Strategy(s) for s in strategies]
    points = []
    for d_i, density in enumerate(densities):
        plans = [
            random_plan(
                n_tasks,
                density,
                hidden_fraction=hidden_fraction,
                mean_work=mean_work,
                seed=seed * 1_000_003 + d_i * 10_007 + r,
            )
            for r in range(runs)
        ]
        cyclic = sum(find_cycle(p.graph()) is not None for p in plans) / runs
        for s in chosen:
            results = [
                simulate(p, s, timeout=timeout, human_delay=human_delay, horizon=horizon, record=False)
                for p in plans
            ]
            incidents = [i for r in results for i in r.incidents]
            recovered = [i.time_to_recovery for i in incidents if i.time_to_recovery is not None]
            points.append(
                SweepPoint(
                    s,
                    float(density),
                    runs,
                    deadlock_frequency=sum(r.deadlocked for r in results) / runs,
                    cyclic_plans=cyclic,
                    mean_recovery=sum(recovered) / len(recovered) if recovered else None,
                    unrecovered=(len(incidents) - len(recovered)) / len(incidents) if incidents else 0.0,
                    completion=sum(r.completed for r in results) / (runs * n_tasks),
                    human_questions=sum(len(r.escalations) for r in results) / runs,
                    spurious_exits=sum(r.spurious_exits for r in results) / runs,
                )
            )
    return SweepResult(points, horizon)


def ttl_tradeoff(
    ttls: Sequence[float],
    *,
    density: float = 0.25,
    n_tasks: int = 6,
    runs: int = 100,
    max_retries: int = 0,
    mean_work: float = 10.0,
    seed: int = 1,
) -> list[dict[str, float]]:
    """For each TTL: deadlock recovery time and spurious exits (tasks that were merely slow)
    under the ``timeout`` strategy. Short TTLs kill healthy waits; long ones keep cycles alive."""
    rows = []
    plans = [random_plan(n_tasks, density, mean_work=mean_work, seed=seed * 7919 + r) for r in range(runs)]
    for ttl in ttls:
        policy = TimeoutPolicy(ttl=ttl, max_retries=max_retries)
        results = [simulate(p, Strategy.TIMEOUT, timeout=policy, record=False) for p in plans]
        rec = [i.time_to_recovery for r in results for i in r.incidents if i.time_to_recovery is not None]
        rows.append(
            {
                "ttl": float(ttl),
                "mean_recovery": sum(rec) / len(rec) if rec else math.nan,
                "spurious_exits": sum(r.spurious_exits for r in results) / runs,
                "completion": sum(r.completed for r in results) / (runs * n_tasks),
            }
        )
    return rows
