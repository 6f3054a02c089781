"""Deadlocks between agents: wait-for graphs, cycle detection, timeouts and escalation.

Theory of operation
-------------------
A plan is a set of tasks, each owned by an agent, and the *dependencies* between them: "the
flights agent needs the destination from the hotel agent". Drawn as a directed graph with an
edge ``A → B`` for "A waits for B", it is a **wait-for graph**. Agents deadlock exactly when the
graph of *currently blocked* tasks has a cycle: every task on the cycle waits for the next one,
so none can ever finish (seed 004 §11: A waits for B, B waits for A, for ever).

The graph tools here are pure functions over a plain adjacency mapping (``task → tasks it waits
for``), written out so a learner can read them; the tests use :mod:`networkx` as the oracle.

* :func:`find_cycle` — one depth-first search, returns a witness cycle or ``None``; linear time,
  what a dispatcher runs before every dispatch.
* :func:`strongly_connected_components` (Tarjan) and :func:`deadlocked_groups` — every knot
  of mutually waiting tasks, each with one witness cycle.
* :func:`simple_cycles` (Johnson) — *every* elementary cycle, for showing a learner all of them.
* :func:`check_plan` — refuse a cyclic plan before dispatch (:class:`CyclicPlanError` names
  the cycle) or return a safe dispatch order (a topological order).
* :func:`break_cycles` — which dependencies to replace by defaults so the plan becomes acyclic
  (greedy; the minimum is the NP-hard *feedback arc set* problem).

The simulation (:func:`simulate`) dispatches a :class:`Plan` on a
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

Some dependencies are only discovered at run time (``hidden`` in a :class:`Plan`: an agent
finds half-way through its work that it needs another agent's result). Pre-dispatch detection
cannot see those, which is why run-time detection — or at least a timeout — is still needed.

Tasks carry the A2A :class:`~agentproto.a2a.states.TaskState`: ``SUBMITTED`` until they start,
``WORKING``, ``INPUT_REQUIRED`` while a human is asked, and a terminal state at the end. Waiting
for another agent is not an A2A state (on the wire the task is still ``SUBMITTED``/``WORKING``);
the orchestrator tracks it privately as the task's ``waiting`` set.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any

from agentproto.resources import load_json_source
from agentproto.a2a.states import TERMINAL_STATES, TaskState
from agentproto.orchestration.engine import Scheduled, Simulation

__all__ = [
    "Graph", "Edge", "wait_for_graph", "find_cycle", "find_cycle_through", "format_cycle",
    "strongly_connected_components", "deadlocked_groups", "simple_cycles", "check_plan",
    "break_cycles", "DeadlockError", "PlanError", "CyclicPlanError", "UnknownTaskError",
    "ConfigError", "Plan", "load_plan", "random_plan", "Strategy", "STRATEGIES", "TimeoutPolicy",
    "Incident", "ExitReport", "Escalation", "Frame", "RunResult", "simulate",
    "SweepPoint", "SweepResult", "sweep", "plot_sweep", "ttl_tradeoff", "plot_ttl_tradeoff",
    "plot_wait_for_graph", "circle_layout",
]

#: ``task -> tasks it waits for`` with every task present as a key (sorted, hashable values).
Graph = dict[str, tuple[str, ...]]
#: ``(waiter, waited_for)``.
Edge = tuple[str, str]


# -- errors -------------------------------------------------------------------------------------
class DeadlockError(Exception):
    """Base class of this module's errors."""

    rule = "deadlock"


class PlanError(DeadlockError, ValueError):
    """The plan cannot be dispatched as given."""

    rule = "deadlock.plan"


class CyclicPlanError(PlanError):
    """The wait-for graph of a plan has a cycle: dispatching it would deadlock (seed 004 §11,
    "solution two": refuse before dispatch). ``cycle`` is one witness; ``cycles`` has one witness
    per knot of mutually waiting tasks."""

    rule = "deadlock.cyclic-plan"

    def __init__(self, cycles: Sequence[tuple[str, ...]]) -> None:
        self.cycles = [tuple(c) for c in cycles]
        self.cycle = self.cycles[0]
        more = f" (and {len(self.cycles) - 1} more knot(s))" if len(self.cycles) > 1 else ""
        super().__init__(f"plan refused before dispatch: dependency cycle {format_cycle(self.cycle)}{more}")


class UnknownTaskError(PlanError):
    """A dependency names a task that is not in the plan (often a typo)."""

    rule = "deadlock.unknown-task"


class ConfigError(DeadlockError, ValueError):
    """A strategy parameter is out of range (negative timeout, unknown strategy …)."""

    rule = "deadlock.config"


# -- graphs -------------------------------------------------------------------------------------
def wait_for_graph(deps: Mapping[str, Iterable[str]], tasks: Iterable[str] | None = None) -> Graph:
    """Normalise ``task -> waited-for tasks`` into a :data:`Graph` with sorted adjacency.

    With ``tasks``, every dependency must name one of them (else :class:`UnknownTaskError`);
    without, tasks that only appear as dependencies become nodes of their own.
    """
    known = set(tasks) if tasks is not None else None
    graph: dict[str, set[str]] = {}
    for task, waits in deps.items():
        graph.setdefault(task, set())
        for dep in waits:
            if known is not None and dep not in known:
                raise UnknownTaskError(f"task {task!r} waits for {dep!r}, which is not in the plan")
            graph[task].add(dep)
            graph.setdefault(dep, set())
    for task in known or ():
        graph.setdefault(task, set())
    return {t: tuple(sorted(graph[t])) for t in sorted(graph)}


def format_cycle(cycle: Sequence[str]) -> str:
    """``("a", "b")`` → ``"a → b → a"`` (a cycle is listed without repeating its start)."""
    if not cycle:
        return "(no cycle)"
    return " → ".join([*cycle, cycle[0]])


def find_cycle(graph: Mapping[str, Iterable[str]]) -> tuple[str, ...] | None:
    """One cycle of ``graph`` (as the list of its nodes), or ``None`` if it is acyclic.

    Iterative depth-first search with three colours: *new*, *on the current path*, *done*. An
    edge into a node on the current path closes a cycle; the path from that node is the witness.
    Nodes are visited in sorted order, so the answer is deterministic.
    """
    g = wait_for_graph(graph)
    on_path: dict[str, int] = {}  # node -> index in path
    done: set[str] = set()
    for root in g:
        if root in done:
            continue
        path: list[str] = [root]
        on_path[root] = 0
        stack = [iter(g[root])]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                node = path.pop()
                del on_path[node]
                done.add(node)
                stack.pop()
                continue
            if nxt in on_path:
                return tuple(path[on_path[nxt]:])
            if nxt not in done:
                on_path[nxt] = len(path)
                path.append(nxt)
                stack.append(iter(g[nxt]))
    return None


def find_cycle_through(graph: Mapping[str, Iterable[str]], node: str) -> tuple[str, ...] | None:
    """A cycle that passes through ``node`` (starting at it), or ``None``.

    This is the incremental check a run-time detector needs: when ``node`` starts waiting, the
    only *new* cycles are the ones through ``node``.
    """
    g = {k: tuple(v) for k, v in graph.items()}
    parent: dict[str, str] = {}
    stack = [node]
    seen = {node}
    while stack:
        cur = stack.pop()
        for nxt in sorted(g.get(cur, ()), reverse=True):
            if nxt == node:
                path = [cur]
                while path[-1] != node:
                    path.append(parent[path[-1]])
                return tuple(reversed(path))
            if nxt not in seen:
                seen.add(nxt)
                parent[nxt] = cur
                stack.append(nxt)
    return None


def strongly_connected_components(graph: Mapping[str, Iterable[str]]) -> list[tuple[str, ...]]:
    """Tarjan's algorithm (iterative): the strongly connected components, each sorted.

    Two tasks are in one component when each (transitively) waits for the other — a knot that
    no task inside can untie alone.
    """
    g = wait_for_graph(graph)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[tuple[str, ...]] = []
    counter = 0
    for root in g:
        if root in index:
            continue
        work = [(root, iter(g[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(g[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                out.append(tuple(sorted(comp)))
    return sorted(out)


def deadlocked_groups(graph: Mapping[str, Iterable[str]]) -> list[tuple[str, ...]]:
    """The components that contain a cycle: more than one task, or a task waiting for itself."""
    g = wait_for_graph(graph)
    return [c for c in strongly_connected_components(g) if len(c) > 1 or c[0] in g[c[0]]]


class _Enough(Exception):
    """Internal: the cycle limit was reached."""


def simple_cycles(graph: Mapping[str, Iterable[str]], limit: int | None = None) -> list[tuple[str, ...]]:
    """Every elementary cycle (Johnson 1975), each rotated to start at its smallest task.

    Exponential in the worst case (a dense graph has very many cycles); ``limit`` stops early.
    """
    g = wait_for_graph(graph)
    nodes = list(g)
    found: list[tuple[str, ...]] = []
    for i, start in enumerate(nodes):
        allowed = set(nodes[i:])
        sub = {n: tuple(w for w in g[n] if w in allowed) for n in nodes[i:]}
        comp = next(c for c in strongly_connected_components(sub) if start in c)
        if len(comp) == 1 and start not in sub[start]:
            continue
        scc = set(comp)
        blocked: set[str] = set()
        b_sets: dict[str, set[str]] = {n: set() for n in scc}
        path: list[str] = []

        def unblock(node: str) -> None:
            todo = [node]
            while todo:
                n = todo.pop()
                if n in blocked:
                    blocked.discard(n)
                    todo.extend(b_sets[n])
                    b_sets[n].clear()

        def circuit(v: str) -> bool:
            closed = False
            path.append(v)
            blocked.add(v)
            for w in sub[v]:
                if w not in scc:
                    continue
                if w == start:
                    found.append(tuple(path))
                    closed = True
                    if limit is not None and len(found) >= limit:
                        raise _Enough
                elif w not in blocked and circuit(w):
                    closed = True
            if closed:
                unblock(v)
            else:
                for w in sub[v]:
                    if w in scc:
                        b_sets[w].add(v)
            path.pop()
            return closed

        try:
            circuit(start)
        except _Enough:
            return found
    return found


def check_plan(deps: Mapping[str, Iterable[str]], tasks: Iterable[str] | None = None) -> tuple[str, ...]:
    """Refuse a cyclic plan before dispatch, or return a dispatch order.

    The order is topological — every task after the tasks it waits for — with ties broken by
    name, so it is deterministic. Raises :class:`CyclicPlanError` (with one witness cycle per
    knot) or :class:`UnknownTaskError`.
    """
    g = wait_for_graph(deps, tasks)
    groups = deadlocked_groups(g)
    if groups:
        witnesses = []
        for group in groups:
            members = set(group)
            witness = find_cycle({n: [w for w in g[n] if w in members] for n in group})
            assert witness is not None  # a non-trivial SCC always has one
            witnesses.append(witness)
        raise CyclicPlanError(witnesses)
    remaining = {t: set(ws) for t, ws in g.items()}
    order: list[str] = []
    ready = sorted(t for t, ws in remaining.items() if not ws)
    while ready:
        t = ready.pop(0)
        order.append(t)
        for other, ws in remaining.items():
            if t in ws:
                ws.discard(t)
                if not ws and other not in order and other not in ready:
                    ready.append(other)
                    ready.sort()
    return tuple(order)


def break_cycles(graph: Mapping[str, Iterable[str]], cycle_limit: int = 2000) -> list[Edge]:
    """Dependencies to replace by defaults so that ``graph`` becomes acyclic.

    Greedy: while a cycle remains, cut the edge of the witness cycle that lies on the most
    elementary cycles (counted up to ``cycle_limit``). Not always the minimum — finding the
    minimum (the *feedback arc set*) is NP-hard — but one cut per simple cycle is never needed
    where cycles share an edge.
    """
    g = {k: set(v) for k, v in wait_for_graph(graph).items()}
    cuts: list[Edge] = []
    while (witness := find_cycle(g)) is not None:
        counts: dict[Edge, int] = {}
        for cyc in simple_cycles(g, limit=cycle_limit):
            for k in range(len(cyc)):
                e = (cyc[k], cyc[(k + 1) % len(cyc)])
                counts[e] = counts.get(e, 0) + 1
        edges = [(witness[k], witness[(k + 1) % len(witness)]) for k in range(len(witness))]
        best = max(edges, key=lambda e: counts.get(e, 0))  # first of equals wins
        g[best[0]].discard(best[1])
        cuts.append(best)
    return cuts


# -- plans ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """Tasks, their declared and hidden dependencies, and how long each one works.

    ``declared[t]`` is what the planner knows t waits for before it can start. ``hidden[t]`` is
    what t discovers it needs after ``discover_at[t]`` of its work is done (a fraction 0..1).
    ``needs[(a, b)]`` optionally says *what* a needs from b (shown in logs and to the human).
    """

    tasks: tuple[str, ...]
    declared: Mapping[str, frozenset[str]]
    hidden: Mapping[str, frozenset[str]] = field(default_factory=dict)
    work: Mapping[str, float] = field(default_factory=dict)
    discover_at: Mapping[str, float] = field(default_factory=dict)
    needs: Mapping[Edge, str] = field(default_factory=dict)
    name: str = "plan"
    description: str = ""

    def __post_init__(self) -> None:
        names = set(self.tasks)
        if len(names) != len(self.tasks):
            raise PlanError(f"duplicate task names in {self.tasks}")
        for label, mapping in (("declared", self.declared), ("hidden", self.hidden)):
            for task, deps in mapping.items():
                if task not in names:
                    raise UnknownTaskError(f"{label} dependencies given for {task!r}, which is not in the plan")
                for dep in deps:
                    if dep not in names:
                        raise UnknownTaskError(f"task {task!r} waits for {dep!r}, which is not in the plan")
        for task, seconds in self.work.items():
            if task not in names:
                raise UnknownTaskError(f"work given for {task!r}, which is not in the plan")
            if seconds < 0 or not math.isfinite(seconds):
                raise PlanError(f"work of {task!r} must be a finite number of seconds ≥ 0, got {seconds}")

    def deps(self, task: str, kind: str = "declared") -> frozenset[str]:
        source = self.declared if kind == "declared" else self.hidden
        return frozenset(source.get(task, frozenset()))

    def graph(self, include_hidden: bool = True) -> Graph:
        """The wait-for graph; ``include_hidden=False`` is what a planner can see."""
        deps = {t: set(self.deps(t)) | (set(self.deps(t, "hidden")) if include_hidden else set())
                for t in self.tasks}
        return wait_for_graph(deps, self.tasks)

    def edges(self, include_hidden: bool = True) -> list[Edge]:
        g = self.graph(include_hidden)
        return [(a, b) for a in g for b in g[a]]

    def need(self, waiter: str, waited: str) -> str:
        """What ``waiter`` needs from ``waited`` (or a generic phrase)."""
        return self.needs.get((waiter, waited), f"{waited}'s result")

    def work_of(self, task: str) -> float:
        return float(self.work.get(task, 10.0))

    def with_defaults(self, edges: Iterable[Edge]) -> Plan:
        """The plan with ``edges`` replaced by defaults (the waiter no longer waits)."""
        cut = set(edges)
        declared = {t: frozenset(d for d in ds if (t, d) not in cut) for t, ds in self.declared.items()}
        hidden = {t: frozenset(d for d in ds if (t, d) not in cut) for t, ds in self.hidden.items()}
        return replace(self, declared=declared, hidden=hidden)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        """Read the scenario format of ``data/scenarios/deadlock_*.json``::

            {"name": ..., "description": ...,
             "tasks": {"flights": {"work": 20, "needs": {"hotel": "destination"},
                                   "discovers": {}, "discover_at": 0.5}, ...}}
        """
        tasks = data.get("tasks")
        if not isinstance(tasks, Mapping) or not tasks:
            raise PlanError("a plan needs a non-empty 'tasks' object")
        declared, hidden, work, discover_at, needs = {}, {}, {}, {}, {}
        for name, spec in tasks.items():
            spec = spec or {}
            declared[name] = frozenset(spec.get("needs", {}))
            hidden[name] = frozenset(spec.get("discovers", {}))
            work[name] = float(spec.get("work", 10.0))
            discover_at[name] = float(spec.get("discover_at", 0.5))
            for key in ("needs", "discovers"):
                for dep, what in dict(spec.get(key, {})).items():
                    needs[(name, dep)] = str(what)
        return cls(tuple(tasks), declared, hidden, work, discover_at, needs,
                   name=str(data.get("name", "plan")), description=str(data.get("description", "")))


def load_plan(source: str | Path) -> Plan:
    """Load a plan: a packaged scenario by name (``"deadlock_travel"``) or a JSON file
    (see :meth:`Plan.from_dict`)."""
    return Plan.from_dict(load_json_source(source))


def random_plan(n_tasks: int, density: float, *, hidden_fraction: float = 0.3, mean_work: float = 10.0,
                rng: random.Random | None = None, seed: int | None = None) -> Plan:
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
    return Plan(names, {t: frozenset(v) for t, v in declared.items()},
                {t: frozenset(v) for t, v in hidden.items()}, work, discover_at,
                name=f"random(n={n_tasks}, density={density:g})")


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
            raise ConfigError(f"exit_state must be an explicit terminal failure (FAILED or CANCELED), "
                              f"not {self.exit_state.short}: 'keep waiting' and 'silent' are no exit")

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
class Frame:
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
class RunResult:
    """Everything one run produced; see :func:`simulate`."""

    plan: Plan
    strategy: Strategy
    final: dict[str, TaskState]
    incidents: list[Incident]
    reports: list[ExitReport]
    escalations: list[Escalation]
    frames: list[Frame]
    log: list[dict[str, Any]]
    end_time: float
    horizon: float
    refusal: CyclicPlanError | None = None
    spurious_exits: int = 0

    @property
    def completed(self) -> int:
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
            how = f"recovered after {ttr:g} s by {inc.resolution}" if ttr is not None else \
                f"never recovered (still stuck at {self.horizon:g} s)"
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
    timer: Scheduled | None = None
    wait_started: float = 0.0

    @property
    def blocked(self) -> bool:
        return bool(self.waiting) or self.held > 0

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL_STATES


class _Run:
    def __init__(self, plan: Plan, strategy: Strategy, timeout: TimeoutPolicy, human_delay: float,
                 horizon: float, record: bool) -> None:
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
        self.frames: list[Frame] = []
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
        return {t.name: [d for d in sorted(t.waiting) if (t.name, d) not in self.pending_default]
                for t in self.tasks.values() if t.blocked and not t.terminal}

    def behind_cycle(self, name: str) -> bool:
        """Is ``name`` on, or (transitively) waiting for, a task on an open deadlock?"""
        on_cycle = {m for i in self.incidents if i.resolved_at is None and i.kind == "runtime" for m in i.cycle}
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
        self.frames.append(Frame(self.sim.now, kind, task, message,
                                 {n: t.state for n, t in self.tasks.items()}, self.waits(), cycle,
                                 tuple(self.defaults)))

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
                self.reports.append(ExitReport(name, TaskState.REJECTED, f"refused before dispatch: {why}", 0.0))
                self.note("refuse", name, f"REJECTED before dispatch: {why}", cyc)

    # -- waiting ------------------------------------------------------------------------------------
    def wait_for(self, task: _Task, deps: Iterable[str]) -> None:
        """Block ``task`` on the unfinished tasks in ``deps`` (or let it go on)."""
        deps = set(deps)
        dead = sorted(d for d in deps if self.tasks[d].terminal and self.tasks[d].state is not TaskState.COMPLETED)
        if dead:
            self.end(task, TaskState.CANCELED, f"cannot run: {dead[0]} ended {self.tasks[dead[0]].state.short}")
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
            self.note("retry", task.name,
                      f"timed out after {self.timeout.ttl:g} s; retry {task.attempts}/{self.timeout.max_retries}: "
                      f"still waiting for {deps}")
            self.arm_timer(task)
            return
        if not self.behind_cycle(task.name):
            self.spurious += 1
        self.end(task, self.timeout.exit_state,
                 f"gave up waiting for {deps} after {1 + self.timeout.max_retries} × {self.timeout.ttl:g} s",
                 report=True, cause="timeout exit")

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
                self.end(task, TaskState.FAILED, f"deadlock detected: {format_cycle(cycle)}", report=True,
                         cause="detection (task failed)")
                return
            self.ask_human(task, cycle[1], cycle, inc)

    # -- the human ----------------------------------------------------------------------------------
    def ask_human(self, task: _Task | str, waits_for: str, cycle: tuple[str, ...], inc: Incident,
                  before_dispatch: bool = False) -> None:
        task = self.tasks[task] if isinstance(task, str) else task
        answer_at = max(self.sim.now, self.human_free_at) + self.human_delay
        self.human_free_at = answer_at
        need = self.plan.need(task.name, waits_for)
        self.escalations.append(Escalation(task.name, waits_for, need, self.sim.now, answer_at, cycle))
        self.pending_default.add((task.name, waits_for))
        task.held += 1
        task.state = TaskState.INPUT_REQUIRED
        where = "before dispatch" if before_dispatch else "at run time"
        self.note("escalate", task.name,
                  f"cycle {format_cycle(cycle)} found {where}; asks a human for a default {need}", cycle)
        self.sim.at(answer_at, lambda: self.on_default(task, waits_for, inc), f"human → {task.name}")

    def on_default(self, task: _Task, waits_for: str, inc: Incident) -> None:
        self.pending_default.discard((task.name, waits_for))
        self.defaults.append((task.name, waits_for))
        task.held -= 1
        task.waiting.discard(waits_for)
        if task.terminal:
            return
        if task.held == 0:  # the answer resumes the task (A2A: an interrupted task goes back to WORKING,
            task.state = TaskState.WORKING  # never to SUBMITTED, which is an entry state only)
        self.note("default", task.name, f"a human supplies a default {self.plan.need(task.name, waits_for)}; "
                                        f"{task.name} no longer waits for {waits_for}")
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

    def end(self, task: _Task, state: TaskState, reason: str, report: bool = False,
            cause: str = "cancellation") -> None:
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

    def run(self) -> RunResult:
        self.dispatch()
        self.settle("dispatch")
        self.sim.run(until=self.horizon)
        final = {n: t.state for n, t in self.tasks.items()}
        if any(s not in TERMINAL_STATES for s in final.values()):
            self.end_time = self.horizon
        return RunResult(self.plan, self.strategy, final, self.incidents, self.reports, self.escalations,
                         self.frames, self.log, self.end_time, self.horizon, self.refusal, self.spurious)


def simulate(plan: Plan, strategy: Strategy | str = Strategy.NONE, *, timeout: TimeoutPolicy | None = None,
             human_delay: float = 120.0, horizon: float = 3600.0, record: bool = True) -> RunResult:
    """Dispatch ``plan`` under ``strategy`` and run it on a virtual clock until every task is
    terminal or ``horizon`` seconds have passed.

    ``record=False`` skips the per-step frames and log (for sweeps of thousands of runs).
    """
    try:
        strategy = Strategy(strategy)
    except ValueError:
        raise ConfigError(f"unknown strategy {strategy!r}; choose one of "
                          f"{', '.join(s.value for s in Strategy)}") from None
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

    def table(self) -> str:
        """A plain-text table (one row per density and strategy)."""
        lines = [f"{'density':>7}  {'strategy':<21}{'deadlock':>9}{'recovery s':>11}{'never':>7}"
                 f"{'completed':>10}{'human Qs':>9}"]
        for p in self.points:
            rec = "—" if p.mean_recovery is None else f"{p.mean_recovery:.0f}"
            lines.append(f"{p.density:>7.2f}  {p.strategy.value:<21}{p.deadlock_frequency:>9.0%}{rec:>11}"
                         f"{p.unrecovered:>7.0%}{p.completion:>10.0%}{p.human_questions:>9.2f}")
        return "\n".join(lines)


def sweep(densities: Sequence[float], *, strategies: Sequence[Strategy | str] = STRATEGIES,
          n_tasks: int = 6, runs: int = 100, hidden_fraction: float = 0.3, mean_work: float = 10.0,
          timeout: TimeoutPolicy | None = None, human_delay: float = 120.0, horizon: float = 3600.0,
          seed: int = 0) -> SweepResult:
    """Run every strategy on the same ``runs`` random plans per density (common random numbers,
    so differences come from the strategies, not from luck)."""
    strategies = [Strategy(s) for s in strategies]
    points = []
    for d_i, density in enumerate(densities):
        plans = [random_plan(n_tasks, density, hidden_fraction=hidden_fraction, mean_work=mean_work,
                             seed=seed * 1_000_003 + d_i * 10_007 + r) for r in range(runs)]
        cyclic = sum(find_cycle(p.graph()) is not None for p in plans) / runs
        for s in strategies:
            results = [simulate(p, s, timeout=timeout, human_delay=human_delay, horizon=horizon, record=False)
                       for p in plans]
            incidents = [i for r in results for i in r.incidents]
            recovered = [i.time_to_recovery for i in incidents if i.time_to_recovery is not None]
            points.append(SweepPoint(
                s, float(density), runs,
                deadlock_frequency=sum(r.deadlocked for r in results) / runs,
                cyclic_plans=cyclic,
                mean_recovery=sum(recovered) / len(recovered) if recovered else None,
                unrecovered=(len(incidents) - len(recovered)) / len(incidents) if incidents else 0.0,
                completion=sum(r.completed for r in results) / (runs * n_tasks),
                human_questions=sum(len(r.escalations) for r in results) / runs,
                spurious_exits=sum(r.spurious_exits for r in results) / runs,
            ))
    return SweepResult(points, horizon)


_STYLE = {
    Strategy.NONE: dict(color="#999999", marker="o", linestyle="-"),
    Strategy.TIMEOUT: dict(color="#E69F00", marker="s", linestyle="--"),
    Strategy.DETECTION: dict(color="#0072B2", marker="^", linestyle="-"),
    Strategy.ESCALATION: dict(color="#009E73", marker="D", linestyle=":"),
}


def plot_sweep(result: SweepResult, fig: Any = None) -> Any:
    """Three panels against dependency density: deadlock frequency, time to recovery (``none``
    drawn at the horizon: it never recovers), and the share of tasks completed."""
    import matplotlib.pyplot as plt

    fig = fig or plt.figure(figsize=(12, 3.8))
    axes = fig.subplots(1, 3)
    for s in Strategy:
        xs, freq = result.series(s, "deadlock_frequency")
        if not xs:
            continue
        _, rec = result.series(s, "mean_recovery")
        _, never = result.series(s, "unrecovered")
        _, done = result.series(s, "completion")
        style = _STYLE[s]
        axes[0].plot(xs, [100 * f for f in freq], label=s.value, **style)
        shown = [result.horizon if (n or 0) >= 0.999 else r for r, n in zip(rec, never)]
        axes[1].plot(xs, [math.nan if v is None else v for v in shown], label=s.value, **style)
        axes[2].plot(xs, [100 * c for c in done], label=s.value, **style)
    xs, cyc = result.series(result.points[0].strategy, "cyclic_plans")
    axes[0].plot(xs, [100 * c for c in cyc], color="black", linewidth=0.8, label="plans with a cycle")
    axes[0].set(title="Deadlocks that actually happen", xlabel="dependency density (P[edge])",
                ylabel="runs with a deadlock (%)", ylim=(-3, 103))
    axes[1].set(title="Time to recovery", xlabel="dependency density (P[edge])",
                ylabel="mean seconds from cycle to recovery", yscale="symlog")
    axes[1].text(0.03, 0.8, f"none: never recovers (cut off at {result.horizon:g} s)", fontsize=8,
                 color="#555555", transform=axes[1].transAxes)
    axes[2].set(title="Work that gets done", xlabel="dependency density (P[edge])",
                ylabel="tasks completed (%)", ylim=(-3, 103))
    axes[2].legend(*axes[0].get_legend_handles_labels(), fontsize=8, loc="lower left")
    fig.tight_layout()
    return fig


def ttl_tradeoff(ttls: Sequence[float], *, density: float = 0.25, n_tasks: int = 6, runs: int = 100,
                 max_retries: int = 0, mean_work: float = 10.0, seed: int = 1) -> list[dict[str, float]]:
    """For each TTL: deadlock recovery time and spurious exits (tasks that were merely slow)
    under the ``timeout`` strategy. Short TTLs kill healthy waits; long ones keep cycles alive."""
    rows = []
    plans = [random_plan(n_tasks, density, mean_work=mean_work, seed=seed * 7919 + r) for r in range(runs)]
    for ttl in ttls:
        policy = TimeoutPolicy(ttl=ttl, max_retries=max_retries)
        results = [simulate(p, Strategy.TIMEOUT, timeout=policy, record=False) for p in plans]
        rec = [i.time_to_recovery for r in results for i in r.incidents if i.time_to_recovery is not None]
        rows.append({
            "ttl": float(ttl),
            "mean_recovery": sum(rec) / len(rec) if rec else math.nan,
            "spurious_exits": sum(r.spurious_exits for r in results) / runs,
            "completion": sum(r.completed for r in results) / (runs * n_tasks),
        })
    return rows


def plot_ttl_tradeoff(rows: Sequence[Mapping[str, float]], ax: Any = None) -> Any:
    """Spurious exits and recovery time against the TTL, on two y axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.6))
    ttl = [r["ttl"] for r in rows]
    ax.plot(ttl, [r["spurious_exits"] for r in rows], marker="o", color="#D55E00",
            label="healthy waits killed (per run)")
    ax.set(xlabel="TTL (s)", ylabel="spurious exits per run", title="The TTL trade-off")
    twin = ax.twinx()
    twin.plot(ttl, [r["mean_recovery"] for r in rows], marker="s", color="#0072B2",
              label="time to break a real deadlock (s)")
    twin.set_ylabel("mean recovery time (s)")
    twin.grid(False)
    lines = ax.get_lines() + twin.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], loc="center right", fontsize=8)
    return ax


# -- drawing ---------------------------------------------------------------------------------------
def circle_layout(names: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Tasks on a circle, the first at the top, clockwise."""
    n = max(1, len(names))
    return {name: (math.sin(2 * math.pi * i / n), math.cos(2 * math.pi * i / n)) for i, name in enumerate(names)}


def plot_wait_for_graph(plan_or_graph: Plan | Mapping[str, Iterable[str]], *, cycle: Sequence[str] = (),
                        states: Mapping[str, TaskState] | None = None, ax: Any = None,
                        title: str = "Wait-for graph (A → B: A waits for B)") -> Any:
    """Draw a wait-for graph: hidden dependencies dashed, a cycle in red, nodes coloured by state."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    from agentproto.course.plots import PALETTE, STATE_COLORS

    if isinstance(plan_or_graph, Plan):
        plan = plan_or_graph
        names = list(plan.tasks)
        declared = {(a, b) for a, b in plan.edges(include_hidden=False)}
        edges = plan.edges()
    else:
        g = wait_for_graph(plan_or_graph)
        names, declared, plan = list(g), {(a, b) for a in g for b in g[a]}, None
        edges = sorted(declared)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4))
    pos = circle_layout(names)
    on_cycle = {(cycle[k], cycle[(k + 1) % len(cycle)]) for k in range(len(cycle))} if cycle else set()
    for a, b in edges:
        red = (a, b) in on_cycle
        ax.add_patch(FancyArrowPatch(
            pos[a], pos[b], arrowstyle="-|>", mutation_scale=14, shrinkA=22, shrinkB=22,
            connectionstyle="arc3,rad=0.15", linewidth=2.2 if red else 1.2,
            linestyle="-" if (a, b) in declared else "--",
            color=PALETTE["bad"] if red else "#555555"))
        if plan is not None and (a, b) in plan.needs:
            # the midpoint of matplotlib's arc3 curve: half the control point's offset from the chord
            dx, dy = pos[b][0] - pos[a][0], pos[b][1] - pos[a][1]
            mx = (pos[a][0] + pos[b][0]) / 2 + 0.5 * 0.15 * dy
            my = (pos[a][1] + pos[b][1]) / 2 - 0.5 * 0.15 * dx
            ax.text(mx, my, plan.needs[(a, b)], fontsize=7, ha="center", va="center", color="#333333",
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8))
    for name in names:
        state = (states or {}).get(name, TaskState.SUBMITTED)
        ax.scatter(*pos[name], s=1500, color=STATE_COLORS.get(state.short, PALETTE["muted"]), zorder=3,
                   edgecolors=PALETTE["bad"] if name in cycle else "white", linewidths=2)
        ax.text(*pos[name], name, ha="center", va="center", fontsize=7 if len(name) > 6 else 8,
                color="white", zorder=4, fontweight="bold")
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title)
    return ax


