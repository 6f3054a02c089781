"""Resource deadlocks: a bounded worker pool starved by tasks that wait on the same pool.

Theory of operation
-------------------
:mod:`~agentproto.orchestration.waitgraph` finds deadlocks between *tasks*: A waits for B's
data. A second kind needs no data cycle at all. An agent server runs its handlers on a bounded
pool of workers (threads, processes, model slots, connections). A *parent* task, running on a
worker, makes a **synchronous** call to a sub-task — another agent, a tool, a callback — and that
sub-task needs a worker **from the same pool**. The parent holds its worker while it waits. With
as many concurrent parents as workers, every worker is held by a parent waiting for a child that
sits in the queue and can never be scheduled: the pool is *starved*, and nothing moves.

The tasks' wait-for graph (parent → child) has no cycle: a queued child waits for no task. The
cycle appears once the *resources* are nodes too: child → worker slot (it needs one, any one),
slot → the parent that holds it, parent → child. A child may take *any* free slot, so its wait is
an OR-wait, while a parent needs *all* its children (an AND-wait); in such a mixed graph a cycle
is necessary but not sufficient, and the exact test is :func:`progressing` — the least fixpoint
of "a node can progress if it waits for nothing, or for *all* (AND) / *any* (OR) of its
successors that can". Holt's *knot* is the OR-only special case.

:func:`simulate` runs a :class:`Workload` on a :class:`PoolLayout` on the virtual clock of
:class:`~agentproto.orchestration.engine.Simulation` (no threads, no sleeping) and checks the
resource graph after every event; the first moment some tasks can no longer progress is the
run's :class:`Starvation`, with both graphs, the witness cycle and the workers' holders. The
fixes are options of the same run:

* ``wait="async"`` — the parent *releases* its worker while it waits and queues a continuation
  when its children are done (A2A's non-blocking send, ``return_immediately``, then a push
  notification or a subscription, instead of the default blocking send).
* :meth:`PoolLayout.bulkheads` — children run in a pool of their own: parents can exhaust
  theirs but never the children's (the *bulkhead* pattern: one pool per kind of work, or per
  downstream).
* ``admission`` — at most that many parents in progress at once; below the pool size, one
  worker is always left for children (sizing: more workers than possible waiters).
* ``call_timeout`` — detection, not prevention: a parent gives up its call after that long,
  ends ``FAILED`` (an explicit exit, in :attr:`PoolRun.reports`), cancels its children and frees
  its worker; its work is lost.

Tasks carry the A2A :class:`~agentproto.a2a.states.TaskState`: ``SUBMITTED`` while queued,
``WORKING`` from dispatch (a parent waiting for its children is still ``WORKING`` on the wire;
the pool tracks the wait privately), then ``COMPLETED``, ``FAILED`` or ``CANCELED``. No A2A state
says "starved": a starved task simply never changes state. The pictures live in the course layer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agentproto.a2a.states import TERMINAL_STATES, TaskState
from agentproto.orchestration.deadlock import ExitReport
from agentproto.orchestration.engine import AgendaEntry, Simulation
from agentproto.orchestration.waitgraph import DeadlockError, find_cycle

__all__ = [
    "BulkheadError",
    "WaitMode",
    "Workload",
    "PoolLayout",
    "Starvation",
    "PoolRun",
    "progressing",
    "simulate",
    "GridPoint",
    "sweep_pools",
]

WaitMode = Literal["blocking", "async"]
_MODES = ("blocking", "async")


class BulkheadError(DeadlockError, ValueError):
    """A pool, workload or run parameter is out of range."""

    rule = "bulkhead.config"


# -- configuration --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Workload:
    """``parents`` requests, one every ``arrival_gap`` seconds. Each works ``parent_work``
    seconds, calls ``fan_out`` children (``child_work`` seconds each) and waits for all of them,
    then works ``finish_work`` seconds more. Parents are ``P1``…; P1's children ``P1.1``…"""

    parents: int = 2
    fan_out: int = 1
    parent_work: float = 1.0
    child_work: float = 2.0
    finish_work: float = 0.5
    arrival_gap: float = 0.0

    def __post_init__(self) -> None:
        if self.parents < 1 or self.fan_out < 1:
            raise BulkheadError(f"parents and fan_out must be ≥ 1, got {self.parents}, {self.fan_out}")
        for name in ("parent_work", "child_work", "finish_work", "arrival_gap"):
            value = getattr(self, name)
            if value < 0 or not math.isfinite(value):
                raise BulkheadError(f"{name} must be a finite number of seconds ≥ 0, got {value}")


@dataclass(frozen=True)
class PoolLayout:
    """Named pools and their sizes, which pool runs parents and which runs children, and an
    optional ``admission`` limit on parents in progress at once."""

    sizes: Mapping[str, int]
    parent_pool: str = "shared"
    child_pool: str = "shared"
    admission: int | None = None

    def __post_init__(self) -> None:
        for pool in (self.parent_pool, self.child_pool):
            if pool not in self.sizes:
                raise BulkheadError(f"pool {pool!r} is used but not defined (pools: {sorted(self.sizes)})")
        for pool, size in self.sizes.items():
            if size < 1:
                raise BulkheadError(f"pool {pool!r} needs at least one worker, got {size}")
        if self.admission is not None and self.admission < 1:
            raise BulkheadError(f"admission must be ≥ 1 (or None for no limit), got {self.admission}")
        object.__setattr__(self, "sizes", dict(self.sizes))

    @classmethod
    def shared(cls, workers: int, *, admission: int | None = None) -> PoolLayout:
        """One pool for everything — the layout that can starve."""
        return cls({"shared": workers}, "shared", "shared", admission)

    @classmethod
    def bulkheads(cls, parent_workers: int, child_workers: int) -> PoolLayout:
        """A pool per kind of work: parents in ``parents``, children in ``children``."""
        return cls({"parents": parent_workers, "children": child_workers}, "parents", "children")


# -- records ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Starvation:
    """The first moment some tasks could no longer progress.

    ``task_graph`` is the classic wait-for graph (parent → its unfinished children);
    ``resource_graph`` adds the worker slots (queued task → every slot of its pool, held slot →
    holder). ``stuck`` are the nodes of the resource graph that cannot progress; ``held`` maps
    each slot of the starved pool to the task holding it.
    """

    at: float
    pool: str
    stuck: tuple[str, ...]
    held: Mapping[str, str]
    task_graph: Mapping[str, tuple[str, ...]]
    resource_graph: Mapping[str, tuple[str, ...]]

    @property
    def task_cycle(self) -> tuple[str, ...] | None:
        return find_cycle(self.task_graph)

    @property
    def resource_cycle(self) -> tuple[str, ...] | None:
        stuck = set(self.stuck)
        return find_cycle(
            {n: [w for w in ws if w in stuck] for n, ws in self.resource_graph.items() if n in stuck}
        )


@dataclass
class PoolRun:
    """Everything one :func:`simulate` produced; ``final`` maps task → last A2A state."""

    workload: Workload
    layout: PoolLayout
    wait: str
    final: dict[str, TaskState]
    reports: list[ExitReport]
    starvation: Starvation | None
    log: list[dict[str, Any]]
    end_time: float

    @property
    def completed(self) -> int:
        """Parents (requests) that ended COMPLETED."""
        return sum(1 for t, s in self.final.items() if "." not in t and s is TaskState.COMPLETED)

    @property
    def stuck(self) -> tuple[str, ...]:
        """Tasks that never reached a terminal state."""
        return tuple(t for t, s in self.final.items() if s not in TERMINAL_STATES)

    @property
    def deadlocked(self) -> bool:
        """Did the pool starve at some point (whether or not a timeout later undid it)?"""
        return self.starvation is not None

    def story(self, width: int = 100) -> str:
        """The run as a time-stamped table, one line per step."""
        kind_w = max(len(e["type"]) for e in self.log)
        name_w = max(len(e["task"]) for e in self.log)
        lines = []
        for e in self.log:
            line = f"{e['t']:>6.1f} s  {e['task']:<{name_w}}  {e['type']:<{kind_w}}  {e['message']}"
            lines.append(line if len(line) <= width else line[: width - 1] + "…")
        return "\n".join(lines)

    def summary(self) -> str:
        pools = ", ".join(f"{p}×{n}" for p, n in self.layout.sizes.items())
        parts = [f"{self.wait} on {pools}: {self.completed}/{self.workload.parents} requests completed"]
        if self.starvation is not None:
            parts.append(f"pool {self.starvation.pool!r} starved at {self.starvation.at:g} s")
        if self.reports:
            parts.append(f"{len(self.reports)} explicit exit(s)")
        if self.stuck:
            parts.append(f"{len(self.stuck)} task(s) stuck for ever ({', '.join(self.stuck)})")
        return "; ".join(parts)


# -- the progress test ------------------------------------------------------------------------------
def progressing(graph: Mapping[str, Iterable[str]], kinds: Mapping[str, str]) -> set[str]:
    """The nodes that can still progress in a mixed AND/OR wait-for graph.

    A node waiting for nothing progresses (it is working, or it is a free slot). A node of kind
    ``"and"`` (the default) progresses once *all* its successors can; an ``"or"`` node once *any*
    can. The least fixpoint of that rule; every other node is deadlocked.
    """
    g = {n: tuple(ws) for n, ws in graph.items()}
    for ws in list(g.values()):
        for w in ws:
            g.setdefault(w, ())
    ok: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node, ws in g.items():
            if node in ok:
                continue
            test = any if kinds.get(node, "and") == "or" else all
            if not ws or test(w in ok for w in ws):
                ok.add(node)
                changed = True
    return ok


# -- the simulation -----------------------------------------------------------------------------------
@dataclass
class _Task:
    name: str
    pool: str
    parent: str | None = None
    children: tuple[str, ...] = ()
    state: TaskState = TaskState.SUBMITTED
    phase: str = "queued"  # queued → running → waiting → (queued →) finishing → done
    slot: str | None = None
    done_event: AgendaEntry | None = None
    timer: AgendaEntry | None = None
    admitted: bool = False

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL_STATES


class _Pool:
    def __init__(
        self,
        workload: Workload,
        layout: PoolLayout,
        wait: str,
        call_timeout: float | None,
    ) -> None:
        self.w, self.layout, self.wait, self.call_timeout = workload, layout, wait, call_timeout
        self.sim = Simulation(seed=0)
        self.slots: dict[str, str | None] = {
            f"{pool}#{k}": None for pool, size in layout.sizes.items() for k in range(1, size + 1)
        }
        self.queues: dict[str, list[str]] = {pool: [] for pool in layout.sizes}
        self.tasks: dict[str, _Task] = {}
        self.reports: list[ExitReport] = []
        self.log: list[dict[str, Any]] = []
        self.starvation: Starvation | None = None

    def note(self, kind: str, task: str, message: str) -> None:
        self.log.append({"type": kind, "t": round(self.sim.now, 3), "task": task, "message": message})

    # -- lifecycle ------------------------------------------------------------------------------
    def arrive(self, name: str) -> None:
        kids = tuple(f"{name}.{k}" for k in range(1, self.w.fan_out + 1))
        self.tasks[name] = _Task(name, self.layout.parent_pool, children=kids)
        self.enqueue(name, "arrives")

    def enqueue(self, name: str, why: str) -> None:
        task = self.tasks[name]
        task.phase = "queued" if task.phase != "waiting" else "continuation"
        self.queues[task.pool].append(name)
        self.note("queued", name, f"{why}; queued for a {task.pool!r} worker")
        self.dispatch(task.pool)

    def eligible(self, task: _Task) -> bool:
        cap = self.layout.admission
        if cap is None or task.parent is not None or task.admitted:
            return True
        return sum(1 for t in self.tasks.values() if t.admitted and not t.terminal) < cap

    def dispatch(self, pool: str) -> None:
        while (free := [s for s, h in self.slots.items() if h is None and s.rsplit("#", 1)[0] == pool]) and (
            pick := next((n for n in self.queues[pool] if self.eligible(self.tasks[n])), None)
        ):
            self.queues[pool].remove(pick)
            self.start(self.tasks[pick], free[0])

    def start(self, task: _Task, slot: str) -> None:
        self.slots[slot], task.slot, task.state = task.name, slot, TaskState.WORKING
        then: Callable[[_Task], None]
        if task.parent is not None:
            work, then, what = self.w.child_work, self.child_done, "works"
        elif task.phase == "continuation":
            work, then, what = self.w.finish_work, self.finish, "resumes"
        else:
            task.admitted = True
            work, then, what = self.w.parent_work, self.call_children, "works"
        task.phase = "running"
        self.note("start", task.name, f"{what} on {slot}")
        task.done_event = self.sim.schedule(work, lambda: then(task))

    def release(self, task: _Task) -> None:
        if task.slot is not None:
            slot, pool = task.slot, task.slot.rsplit("#", 1)[0]
            self.slots[slot], task.slot = None, None
            self.dispatch(pool)

    def call_children(self, parent: _Task) -> None:
        parent.phase = "waiting"
        how = "holding its worker" if self.wait == "blocking" else "its worker released"
        self.note("call", parent.name, f"calls {', '.join(parent.children)} and waits ({how})")
        if self.call_timeout is not None:
            parent.timer = self.sim.schedule(self.call_timeout, lambda: self.give_up(parent))
        if self.wait == "async":
            self.release(parent)
        for kid in parent.children:
            self.tasks[kid] = _Task(kid, self.layout.child_pool, parent=parent.name)
        for kid in parent.children:
            self.enqueue(kid, f"called by {parent.name}")

    def child_done(self, kid: _Task) -> None:
        self.end(kid, TaskState.COMPLETED, "done")
        parent = self.tasks[kid.parent or ""]
        if parent.terminal or any(not self.tasks[k].terminal for k in parent.children):
            return
        if parent.timer is not None:
            parent.timer.cancel()
        if self.wait == "blocking":
            assert parent.slot is not None
            parent.phase = "continuation"
            self.start(parent, parent.slot)
        else:
            self.enqueue(parent.name, "its children are done")

    def finish(self, parent: _Task) -> None:
        self.end(parent, TaskState.COMPLETED, "done")
        self.dispatch(self.layout.parent_pool)  # an admission token came free

    def give_up(self, parent: _Task) -> None:
        reason = f"gave up after {self.call_timeout:g} s waiting for {', '.join(parent.children)}"
        self.end(parent, TaskState.FAILED, reason, release=False)
        for kid in (self.tasks[k] for k in parent.children):
            if not kid.terminal:
                if kid.name in self.queues[kid.pool]:
                    self.queues[kid.pool].remove(kid.name)
                self.end(kid, TaskState.CANCELED, f"canceled by {parent.name}")
        self.release(parent)
        self.dispatch(self.layout.parent_pool)

    def end(self, task: _Task, state: TaskState, reason: str, *, release: bool = True) -> None:
        task.state, task.phase = state, "done"
        if task.done_event is not None:
            task.done_event.cancel()
        self.note(state.short.lower(), task.name, reason)
        if state is not TaskState.COMPLETED:
            self.reports.append(ExitReport(task.name, state, reason, self.sim.now))
        if release:
            self.release(task)

    # -- graphs ------------------------------------------------------------------------------------
    def graphs(self) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]], dict[str, str]]:
        tasks: dict[str, tuple[str, ...]] = {}
        res: dict[str, tuple[str, ...]] = {}
        kinds: dict[str, str] = {}
        live = [t for t in self.tasks.values() if not t.terminal]
        for t in live:
            waits = tuple(k for k in t.children if not self.tasks[k].terminal) if t.phase == "waiting" else ()
            tasks[t.name] = waits
            if t.phase in ("queued", "continuation"):
                pool_slots = tuple(s for s in self.slots if s.rsplit("#", 1)[0] == t.pool)
                admitted = tuple(a.name for a in live if a.admitted)
                res[t.name] = pool_slots if self.eligible(t) else admitted
                kinds[t.name] = "or"
            else:
                res[t.name] = waits
        for slot, holder in self.slots.items():
            res[slot] = (holder,) if holder is not None else ()
        return tasks, res, kinds

    def check(self) -> None:
        if self.starvation is not None:
            return
        tasks, res, kinds = self.graphs()
        stuck = sorted(set(res) - progressing(res, kinds))
        if not stuck:
            return
        queued = (
            t for n in stuck if (t := self.tasks.get(n)) is not None and t.phase in ("queued", "continuation")
        )
        pool = next((t.pool for t in queued), self.layout.child_pool)
        held = {s: h for s, h in self.slots.items() if s.rsplit("#", 1)[0] == pool and h is not None}
        self.starvation = Starvation(self.sim.now, pool, tuple(stuck), held, tasks, res)
        who = ", ".join(f"{s} by {h}" for s, h in held.items())
        self.note("starved", pool, f"every worker is held by a waiting task: {who}")

    def _arrival(self, name: str) -> Callable[[], None]:
        return lambda: self.arrive(name)

    def run(self, horizon: float) -> PoolRun:
        for i in range(self.w.parents):
            self.sim.at(i * self.w.arrival_gap, self._arrival(f"P{i + 1}"))
        while (nxt := self.sim.peek()) is not None and nxt <= horizon:
            self.sim.step()
            self.check()
        final = {n: t.state for n, t in sorted(self.tasks.items(), key=lambda kv: _order(kv[0]))}
        return PoolRun(
            self.w, self.layout, self.wait, final, self.reports, self.starvation, self.log, self.sim.now
        )


def _order(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name[1:].split("."))


def simulate(
    workload: Workload,
    layout: PoolLayout,
    *,
    wait: str = "blocking",
    call_timeout: float | None = None,
    horizon: float = 10_000.0,
) -> PoolRun:
    """Run ``workload`` on ``layout``; ``wait`` is ``"blocking"`` (the parent holds its worker
    while its children run) or ``"async"`` (it releases it and resumes on a continuation)."""
    if wait not in _MODES:
        raise BulkheadError(f"wait must be one of {_MODES}, got {wait!r}")
    if call_timeout is not None and not (call_timeout > 0 and math.isfinite(call_timeout)):
        raise BulkheadError(f"call_timeout must be a positive number of seconds, got {call_timeout}")
    return _Pool(workload, layout, wait, call_timeout).run(horizon)


# -- sweeps ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GridPoint:
    """One cell of :func:`sweep_pools`: did ``parents`` requests starve ``workers`` workers?"""

    workers: int
    parents: int
    stuck: bool
    completed: int
    end_time: float = field(default=0.0)


def sweep_pools(
    workers: Sequence[int],
    parents: Sequence[int],
    *,
    base: Workload = Workload(),
    wait: str = "blocking",
    layout_for: Callable[[int], PoolLayout] = PoolLayout.shared,
) -> list[GridPoint]:
    """Every (pool size, number of concurrent parents) pair, run once each (deterministic)."""
    out = []
    for w in workers:
        for n in parents:
            wl = Workload(
                n, base.fan_out, base.parent_work, base.child_work, base.finish_work, base.arrival_gap
            )
            run = simulate(wl, layout_for(w), wait=wait)
            out.append(GridPoint(w, n, bool(run.stuck), run.completed, run.end_time))
    return out
