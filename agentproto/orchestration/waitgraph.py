"""Wait-for graphs: who waits for whom, where the cycles are, and whether a plan may be dispatched.

Theory of operation
-------------------
A plan is a set of tasks, each owned by an agent, and the *dependencies* between them: "the
flights agent needs the destination from the hotel agent". Drawn as a directed graph with an
edge ``A → B`` for "A waits for B", it is a **wait-for graph**. Agents deadlock exactly when the
graph of *currently blocked* tasks has a cycle: every task on the cycle waits for the next one,
so none can ever finish (seed 004 §11: A waits for B, B waits for A, for ever).

The graph tools here are pure functions over a plain adjacency mapping (``task → tasks it waits
for``), written out so a learner can read them; the tests check them against an independent
graph library.

* :func:`find_cycle` — one depth-first search, returns a witness cycle or ``None``; linear time,
  what a dispatcher runs before every dispatch.
* :func:`find_cycle_through` — the incremental check a run-time detector needs: only cycles
  through the task that just started waiting can be new.
* :func:`strongly_connected_components` (Tarjan) and :func:`deadlocked_groups` — every group
  of mutually waiting tasks (a strongly connected component that contains a cycle), each with
  one witness cycle. These are not necessarily *knots* in Holt's sense (a set no path leaves,
  the deadlock test when a task may go on with any one of its inputs): with AND-dependencies,
  as here, any cycle is a deadlock, so every cyclic component counts.
* :func:`simple_cycles` (Johnson) — *every* elementary cycle, for showing a learner all of them.
* :func:`check_plan` — refuse a cyclic plan before dispatch (:class:`CyclicPlanError` names
  the cycle) or return a safe dispatch order (a topological order).
* :func:`break_cycles` — which dependencies to replace by defaults so the plan becomes acyclic
  (greedy; the minimum is the NP-hard *feedback arc set* problem).

A :class:`WaitPlan` is the data the deadlock simulation
(:mod:`agentproto.orchestration.deadlock`) dispatches: tasks, their *declared* dependencies
(what a planner can see), their *hidden* ones (discovered at run time), how long each task works
and what each dependency is for. :func:`load_plan` reads one from a packaged scenario
(``"deadlock_travel"``) or a JSON file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentproto.errors import AgentProtoError
from agentproto.resources import load_json_source

__all__ = [
    "Graph",
    "Edge",
    "wait_for_graph",
    "find_cycle",
    "find_cycle_through",
    "format_cycle",
    "strongly_connected_components",
    "deadlocked_groups",
    "simple_cycles",
    "check_plan",
    "break_cycles",
    "DeadlockError",
    "WaitPlanError",
    "CyclicPlanError",
    "UnknownTaskError",
    "WaitPlan",
    "load_plan",
]

#: ``task -> tasks it waits for`` with every task present as a key (sorted, hashable values).
Graph = dict[str, tuple[str, ...]]
#: ``(waiter, waited_for)``.
Edge = tuple[str, str]


# -- errors -------------------------------------------------------------------------------------
class DeadlockError(AgentProtoError):
    """Base class of the errors of :mod:`~agentproto.orchestration.waitgraph` and
    :mod:`~agentproto.orchestration.deadlock`."""

    rule = "deadlock"


class WaitPlanError(DeadlockError, ValueError):
    """The plan cannot be dispatched as given."""

    rule = "deadlock.plan"


class CyclicPlanError(WaitPlanError):
    """The wait-for graph of a plan has a cycle: dispatching it would deadlock (seed 004 §11,
    "solution two": refuse before dispatch). ``cycle`` is one witness; ``cycles`` has one witness
    per deadlocked group (cyclic strongly connected component) of mutually waiting tasks."""

    rule = "deadlock.cyclic-plan"

    def __init__(self, cycles: Sequence[tuple[str, ...]]) -> None:
        self.cycles = [tuple(c) for c in cycles]
        self.cycle = self.cycles[0]
        more = f" (and {len(self.cycles) - 1} more deadlocked group(s))" if len(self.cycles) > 1 else ""
        super().__init__(f"plan refused before dispatch: dependency cycle {format_cycle(self.cycle)}{more}")


class UnknownTaskError(WaitPlanError):
    """A dependency names a task that is not in the plan (often a typo)."""

    rule = "deadlock.unknown-task"


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
                return tuple(path[on_path[nxt] :])
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

    Two tasks are in one component when each (transitively) waits for the other; a component
    with a cycle is a group that no task inside can untie alone.
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


class _Circuits:
    """Johnson's search for the elementary cycles through ``start`` inside one strongly
    connected component ``scc`` of ``sub`` (nodes before ``start`` already removed)."""

    def __init__(
        self,
        sub: Mapping[str, tuple[str, ...]],
        scc: set[str],
        start: str,
        found: list[tuple[str, ...]],
        limit: int | None,
    ) -> None:
        self.sub, self.scc, self.start, self.found, self.limit = sub, scc, start, found, limit
        self.blocked: set[str] = set()
        self.b_sets: dict[str, set[str]] = {n: set() for n in scc}
        self.path: list[str] = []

    def unblock(self, node: str) -> None:
        todo = [node]
        while todo:
            n = todo.pop()
            if n in self.blocked:
                self.blocked.discard(n)
                todo.extend(self.b_sets[n])
                self.b_sets[n].clear()

    def circuit(self, v: str) -> bool:
        closed = False
        self.path.append(v)
        self.blocked.add(v)
        for w in self.sub[v]:
            if w not in self.scc:
                continue
            if w == self.start:
                self.found.append(tuple(self.path))
                closed = True
                if self.limit is not None and len(self.found) >= self.limit:
                    raise _Enough
            elif w not in self.blocked and self.circuit(w):
                closed = True
        if closed:
            self.unblock(v)
        else:
            for w in self.sub[v]:
                if w in self.scc:
                    self.b_sets[w].add(v)
        self.path.pop()
        return closed


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
        try:
            _Circuits(sub, set(comp), start, found, limit).circuit(start)
        except _Enough:
            return found
    return found


def check_plan(deps: Mapping[str, Iterable[str]], tasks: Iterable[str] | None = None) -> tuple[str, ...]:
    """Refuse a cyclic plan before dispatch, or return a dispatch order.

    The order is topological — every task after the tasks it waits for — with ties broken by
    name, so it is deterministic. Raises :class:`CyclicPlanError` (with one witness cycle per
    deadlocked group) or :class:`UnknownTaskError`.
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
class WaitPlan:
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
            raise WaitPlanError(f"duplicate task names in {self.tasks}")
        for label, mapping in (("declared", self.declared), ("hidden", self.hidden)):
            for task, deps in mapping.items():
                if task not in names:
                    raise UnknownTaskError(
                        f"{label} dependencies given for {task!r}, which is not in the plan"
                    )
                for dep in deps:
                    if dep not in names:
                        raise UnknownTaskError(f"task {task!r} waits for {dep!r}, which is not in the plan")
        for task, seconds in self.work.items():
            if task not in names:
                raise UnknownTaskError(f"work given for {task!r}, which is not in the plan")
            if seconds < 0 or not math.isfinite(seconds):
                raise WaitPlanError(f"work of {task!r} must be a finite number of seconds ≥ 0, got {seconds}")

    def deps(self, task: str, kind: str = "declared") -> frozenset[str]:
        source = self.declared if kind == "declared" else self.hidden
        return frozenset(source.get(task, frozenset()))

    def graph(self, include_hidden: bool = True) -> Graph:
        """The wait-for graph; ``include_hidden=False`` is what a planner can see."""
        deps = {
            t: set(self.deps(t)) | (set(self.deps(t, "hidden")) if include_hidden else set())
            for t in self.tasks
        }
        return wait_for_graph(deps, self.tasks)

    def edges(self, include_hidden: bool = True) -> list[Edge]:
        g = self.graph(include_hidden)
        return [(a, b) for a in g for b in g[a]]

    def need(self, waiter: str, waited: str) -> str:
        """What ``waiter`` needs from ``waited`` (or a generic phrase)."""
        return self.needs.get((waiter, waited), f"{waited}'s result")

    def work_of(self, task: str) -> float:
        return float(self.work.get(task, 10.0))

    def with_defaults(self, edges: Iterable[Edge]) -> WaitPlan:
        """The plan with ``edges`` replaced by defaults (the waiter no longer waits)."""
        cut = set(edges)
        declared = {t: frozenset(d for d in ds if (t, d) not in cut) for t, ds in self.declared.items()}
        hidden = {t: frozenset(d for d in ds if (t, d) not in cut) for t, ds in self.hidden.items()}
        return replace(self, declared=declared, hidden=hidden)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WaitPlan:
        """A plan from the scenario format of ``data/scenarios/deadlock_*.json``::

            {"name": "trip", "description": "…",
             "tasks": {
               "flights": {"work": 20, "needs": {"hotel": "the destination"}},
               "hotel":   {"work": 15, "discovers": {"flights": "the arrival date"},
                           "discover_at": 0.5}}}

        ``tasks`` (required, non-empty) maps each task name to its spec; every key of a spec is
        optional:

        * ``needs`` — ``{task it waits for: what it needs from it}``, known before dispatch
          (becomes :attr:`declared`; the texts become :attr:`needs`);
        * ``discovers`` — the same shape, for dependencies the task only finds out about while
          it works (:attr:`hidden`);
        * ``discover_at`` — when that happens, as a fraction 0..1 of its work (default 0.5);
        * ``work`` — how long the task works, in virtual seconds (default 10).

        ``name`` (default ``"plan"``) and ``description`` are for display. A task named in
        ``needs`` or ``discovers`` must be in ``tasks`` (else :class:`UnknownTaskError`); an
        empty or missing ``tasks`` is a :class:`WaitPlanError`. :func:`load_plan` reads the
        same format from a file or a bundled scenario name.
        """
        tasks = data.get("tasks")
        if not isinstance(tasks, Mapping) or not tasks:
            raise WaitPlanError("a plan needs a non-empty 'tasks' object")
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
        return cls(
            tuple(tasks),
            declared,
            hidden,
            work,
            discover_at,
            needs,
            name=str(data.get("name", "plan")),
            description=str(data.get("description", "")),
        )


def load_plan(source: str | Path) -> WaitPlan:
    """Load a plan: a packaged scenario by name (``"deadlock_travel"``) or a JSON file
    (see :meth:`WaitPlan.from_dict`)."""
    return WaitPlan.from_dict(load_json_source(source))
