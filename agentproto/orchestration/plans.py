"""Event-driven plan switching: plans as data, a runner that reacts to events.

Theory of operation
-------------------
A static plan is a fixed list of steps; the first surprise ends it. An event-driven plan
(seed 004 §7) is a *plan book*: several plans, and a table saying which event, arriving while a
plan runs, switches to which other plan. The book is plain data — a dict or JSON file — checked
once by :meth:`PlanBook.from_dict` and then interpreted by :func:`run_plan`::

    {"start": "A", "max_switches": 4,
     "plans": {"A": {"steps": [...], "on_event": {"flight_not_found":
                                                    {"action": "switch_plan", "target": "B",
                                                     "params": {"adjust": "date", "range_days": 3}}}},
               "B": {...}, "C": {...}},
     "on_event": {...handlers valid in every plan...}}

Handlers name one of four actions: ``switch_plan`` (start ``target`` from its first step with
``params``), ``retry`` (run the failed step again, at most ``max`` times), ``escalate`` (stop and
ask a human: the task goes ``INPUT_REQUIRED``) and ``fail`` (stop: ``FAILED``). A switch may be
marked ``"confirm": true`` when it changes what the user asked for (another departure city): the
runner then asks an ``approve`` callback, and with no callback it escalates instead of drifting
silently away from the user's intent. An event with no handler — one nobody planned for — ends
the run ``FAILED`` with an explicit reason; ``max_switches`` bounds ping-pong between plans.

Events come from two places: the *world* answers each step with ``None`` (it worked) or an event
name (``flight_not_found``), and events can be *injected* at chosen virtual times (the airline
cancels the flight at t = 5 s). Both go through the same lookup: the current plan's table, then
the book's global table.

The runner is a small machine on :class:`~agentproto.orchestration.engine.Simulation`; the task it
drives uses A2A :class:`~agentproto.a2a.states.TaskState` (``WORKING`` → ``COMPLETED`` /
``FAILED`` / ``INPUT_REQUIRED``). :class:`TripWorld` is the seed's travel example with random
disruptions; :func:`success_rate` compares the plan book with its static version (plan A alone)
by Monte Carlo and :func:`analytic_success` gives the exact answer for the same model.
:func:`plan_edges` is the book as a graph (plain data); the drawings and notebook 15's lab are
in the course layer (``course/plans.py``).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from random import Random
from typing import Any, Protocol

from agentproto.a2a.states import TaskState
from agentproto.errors import AgentProtoError
from agentproto.orchestration.engine import AgendaEntry, Simulation
from agentproto.resources import load_json_source

__all__ = [
    "PlanError",
    "UnknownPlanError",
    "UnknownActionError",
    "UnknownStepError",
    "PlanBookError",
    "Handler",
    "Plan",
    "PlanBook",
    "ACTIONS",
    "World",
    "TripWorld",
    "PlanRun",
    "PlanTransition",
    "TRIP_PLANS",
    "run_plan",
    "success_rate",
    "analytic_success",
    "disruption_sweep",
    "PLAN_ENDS",
    "PlanEdge",
    "plan_edges",
    "load_trip_plans",
    "STEP_SECONDS",
]

ACTIONS = ("switch_plan", "retry", "escalate", "fail")


# -- errors --------------------------------------------------------------------------------------
class PlanError(AgentProtoError, ValueError):
    """Base class: a plan book that cannot be run."""

    rule = "plan"


class PlanBookError(PlanError):
    """The book's shape is wrong (no plans, bad start, empty steps, bad budget)."""

    rule = "plan-book-shape"


class UnknownPlanError(PlanError):
    """A handler switches to a plan the book does not define."""

    rule = "unknown-plan"


class UnknownActionError(PlanError):
    """A handler names an action other than switch_plan, retry, escalate, fail."""

    rule = "unknown-action"


class UnknownStepError(PlanError):
    """A plan uses a step the world cannot perform."""

    rule = "unknown-step"


# -- the book ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Handler:
    """What to do when ``event`` arrives."""

    event: str
    action: str
    target: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    max: int = 1
    confirm: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action}
        if self.target is not None:
            out["target"] = self.target
        if self.params:
            out["params"] = dict(self.params)
        if self.action == "retry":
            out["max"] = self.max
        if self.confirm:
            out["confirm"] = True
        return out


@dataclass(frozen=True)
class Plan:
    name: str
    title: str
    steps: tuple[str, ...]
    on_event: Mapping[str, Handler]


@dataclass(frozen=True)
class PlanBook:
    """A validated set of plans and the events that switch between them."""

    start: str
    plans: Mapping[str, Plan]
    on_event: Mapping[str, Handler]
    max_switches: int = 4
    goal: str = ""

    # -- loading --------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlanBook:
        """Validate and load a book; every problem raises a :class:`PlanError` subclass."""
        plans_raw = data.get("plans")
        if not isinstance(plans_raw, Mapping) or not plans_raw:
            raise PlanBookError("a plan book needs a non-empty 'plans' object")
        start = data.get("start")
        if start not in plans_raw:
            raise PlanBookError(f"start plan {start!r} is not one of {sorted(plans_raw)}")
        budget = data.get("max_switches", 4)
        if not isinstance(budget, int) or budget < 0:
            raise PlanBookError(f"max_switches must be a non-negative integer, got {budget!r}")

        def handlers(raw: Any, where: str) -> dict[str, Handler]:
            if raw is None:
                return {}
            if not isinstance(raw, Mapping):
                raise PlanBookError(f"{where}: 'on_event' must be an object")
            out = {}
            for event, spec in raw.items():
                action = spec.get("action") if isinstance(spec, Mapping) else None
                if action not in ACTIONS:
                    raise UnknownActionError(
                        f"{where}: event {event!r} has action {action!r}; use one of {', '.join(ACTIONS)}"
                    )
                target = spec.get("target")
                if action == "switch_plan" and target not in plans_raw:
                    raise UnknownPlanError(
                        f"{where}: event {event!r} switches to plan {target!r}, "
                        f"which the book does not define ({sorted(plans_raw)})"
                    )
                retries = spec.get("max", 1)
                if action == "retry" and (not isinstance(retries, int) or retries < 1):
                    raise PlanBookError(f"{where}: retry of {event!r} needs 'max' ≥ 1")
                out[event] = Handler(
                    event,
                    action,
                    target,
                    dict(spec.get("params", {})),
                    retries,
                    bool(spec.get("confirm", False)),
                )
            return out

        plans = {}
        for name, raw in plans_raw.items():
            steps = tuple(raw.get("steps", ()))
            if not steps:
                raise PlanBookError(f"plan {name!r} has no steps")
            plans[name] = Plan(
                name, raw.get("title", name), steps, handlers(raw.get("on_event"), f"plan {name!r}")
            )
        return cls(
            str(start), plans, handlers(data.get("on_event"), "book"), budget, str(data.get("goal", ""))
        )

    @classmethod
    def from_json(cls, source: str | Path) -> PlanBook:
        """A book from a packaged scenario by name (``"plans_trip"``) or a JSON file."""
        return cls.from_dict(load_json_source(source))

    def to_dict(self) -> dict[str, Any]:
        """The book as data again (round-trips through :meth:`from_dict`)."""
        out: dict[str, Any] = {
            "goal": self.goal,
            "start": self.start,
            "max_switches": self.max_switches,
            "plans": {},
        }
        for name, plan in self.plans.items():
            entry: dict[str, Any] = {"title": plan.title, "steps": list(plan.steps)}
            if plan.on_event:
                entry["on_event"] = {e: h.to_dict() for e, h in plan.on_event.items()}
            out["plans"][name] = entry
        if self.on_event:
            out["on_event"] = {e: h.to_dict() for e, h in self.on_event.items()}
        return out

    # -- questions about the book -----------------------------------------------------------------
    def handler(self, plan: str, event: str) -> Handler | None:
        """The handler for ``event`` in ``plan``: the plan's own table first, then the book's."""
        return self.plans[plan].on_event.get(event) or self.on_event.get(event)

    def static(self) -> PlanBook:
        """The same start plan with every handler removed: the first surprise ends the run."""
        plan = self.plans[self.start]
        return PlanBook(
            self.start, {self.start: Plan(plan.name, plan.title, plan.steps, {})}, {}, 0, self.goal
        )

    def unreachable(self) -> list[str]:
        """Plans no chain of switches can reach from the start (usually a typo in a target)."""
        seen, todo = {self.start}, [self.start]
        while todo:
            name = todo.pop()
            for h in [*self.plans[name].on_event.values(), *self.on_event.values()]:
                if h.action == "switch_plan" and h.target not in seen:
                    seen.add(h.target)  # type: ignore[arg-type]
                    todo.append(h.target)  # type: ignore[arg-type]
        return [p for p in self.plans if p not in seen]

    def check_steps(self, known: Iterable[str]) -> None:
        """Raise :class:`UnknownStepError` if a plan uses a step the world cannot perform."""
        known = set(known)
        for plan in self.plans.values():
            for step in plan.steps:
                if step not in known:
                    raise UnknownStepError(
                        f"plan {plan.name!r} uses step {step!r}; the world knows {sorted(known)}"
                    )


#: Seed 004 §7's travel plans as data. Plan B widens the dates; plan C changes the departure
#: city, which changes the user's trip — so that switch asks for confirmation.
TRIP_PLANS: dict[str, Any] = {
    "goal": "Beijing → Sanya on 2024-04-08: flight, hotel, airport transfer",
    "start": "A",
    "max_switches": 4,
    "plans": {
        "A": {
            "title": "as asked",
            "steps": ["search_flights", "book_hotel", "arrange_transfer"],
            "on_event": {
                "flight_not_found": {
                    "action": "switch_plan",
                    "target": "B",
                    "params": {"adjust": "date", "range_days": 3},
                }
            },
        },
        "B": {
            "title": "shift dates ±3 days",
            "steps": ["search_flights", "book_hotel", "arrange_transfer"],
            "on_event": {
                "all_dates_full": {
                    "action": "switch_plan",
                    "target": "C",
                    "params": {"adjust": "departure_city"},
                    "confirm": True,
                }
            },
        },
        "C": {
            "title": "depart from another city",
            "steps": ["search_flights", "book_hotel", "arrange_transfer"],
            "on_event": {"no_route": {"action": "escalate"}},
        },
    },
    "on_event": {
        "hotel_full": {"action": "retry", "max": 2},
        "flight_cancelled": {
            "action": "switch_plan",
            "target": "B",
            "params": {"adjust": "date", "range_days": 3},
        },
    },
}


# -- the world -------------------------------------------------------------------------------------------
class World(Protocol):
    """What the runner needs from a domain: the steps it knows and how each one turns out."""

    steps: frozenset[str]

    def perform(self, step: str, params: Mapping[str, Any], rng: Random) -> tuple[str | None, dict[str, Any]]:
        """Do ``step``; return ``(None, details)`` on success or ``(event, details)``."""
        ...


@dataclass
class TripWorld:
    """Flights from a home city and two alternatives, hotels that are sometimes full.

    ``sold_out`` holds the (city, day offset) pairs with no seats. ``hotel_full`` is the chance
    that one booking attempt fails (a transient shortage, so a retry may succeed).
    """

    home: str = "Beijing"
    alternatives: tuple[str, ...] = ("Tianjin", "Shijiazhuang")
    sold_out: frozenset[tuple[str, int]] = frozenset()
    hotel_full: float = 0.0
    steps: frozenset[str] = frozenset({"search_flights", "book_hotel", "arrange_transfer"})

    @classmethod
    def random(
        cls, rng: Random, *, sold_out: float, hotel_full: float = 0.0, peak: float = 0.0, range_days: int = 3
    ) -> TripWorld:
        """Each (city, day) sells out with probability ``sold_out``, independently — except that
        with probability ``peak`` the whole week from the home city is sold out (a holiday)."""
        cities = ("Beijing", "Tianjin", "Shijiazhuang")
        days = range(-range_days, range_days + 1)
        holiday = rng.random() < peak
        gone = {
            (c, d) for c in cities for d in days if (holiday and c == "Beijing") or rng.random() < sold_out
        }
        return cls(sold_out=frozenset(gone), hotel_full=hotel_full)

    def perform(self, step: str, params: Mapping[str, Any], rng: Random) -> tuple[str | None, dict[str, Any]]:
        if step == "search_flights":
            adjust = params.get("adjust")
            if adjust == "date":
                span = int(params.get("range_days", 3))
                for d in sorted(range(-span, span + 1), key=lambda d: (abs(d), d)):
                    if d and (self.home, d) not in self.sold_out:
                        return None, {"city": self.home, "day": d}
                return "all_dates_full", {"city": self.home, "tried_days": 2 * span}
            if adjust == "departure_city":
                for city in self.alternatives:
                    if (city, 0) not in self.sold_out:
                        return None, {"city": city, "day": 0}
                return "no_route", {"tried": list(self.alternatives)}
            if (self.home, 0) in self.sold_out:
                return "flight_not_found", {"city": self.home, "day": 0}
            return None, {"city": self.home, "day": 0}
        if step == "book_hotel":
            return ("hotel_full", {}) if rng.random() < self.hotel_full else (None, {})
        if step == "arrange_transfer":
            return None, {}
        raise UnknownStepError(f"the trip world cannot {step!r}")


# -- the runner --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlanTransition:
    """The run moved because ``event`` arrived in ``source``: to plan ``target`` or to an end."""

    time: float
    source: str
    event: str
    action: str
    target: str


@dataclass
class PlanRun:
    """How one run went: final A2A state, plans visited, transitions and a readable log."""

    state: TaskState
    path: list[str]
    transitions: list[PlanTransition]
    log: list[dict[str, Any]]
    reason: str
    finished_at: float
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def succeeded(self) -> bool:
        return self.state is TaskState.COMPLETED


STEP_SECONDS = {"search_flights": 2.0, "book_hotel": 1.0, "arrange_transfer": 0.5}


class _PlanRunner:
    """The state machine behind :func:`run_plan`: one run of ``book`` on ``sim``."""

    def __init__(
        self,
        book: PlanBook,
        world: World,
        sim: Simulation,
        approve: Callable[[Handler, str], bool] | None,
        step_seconds: Mapping[str, float],
    ) -> None:
        self.book, self.world, self.sim = book, world, sim
        self.rng = sim.rng
        self.approve = approve
        self.step_seconds = step_seconds
        self.plan = book.start
        self.params: dict[str, Any] = {}
        self.step = 0
        self.switches = 0
        self.retries: dict[str, int] = {}
        self.pending: AgendaEntry | None = None
        self.over = False
        self.run = PlanRun(TaskState.WORKING, [book.start], [], [], "", 0.0)

    def note(self, kind: str, **fields: Any) -> None:
        """Append one entry, stamped with the virtual time, to the run's log."""
        self.run.log.append({"type": kind, "t": round(self.sim.now, 6), **fields})

    def end(self, state: TaskState, reason: str, event: str = "", action: str = "") -> None:
        """Stop the run in ``state``; an ``event`` that caused it becomes a transition to the end."""
        self.over = True
        if self.pending is not None:
            self.pending.cancel()
        run = self.run
        run.state, run.reason, run.finished_at = state, reason, self.sim.now
        if event:
            run.transitions.append(PlanTransition(self.sim.now, self.plan, event, action, state.short))
        self.note("TASK_STATE", state=state.value, reason=reason)

    def start_plan(self, name: str, params: Mapping[str, Any]) -> None:
        """Begin plan ``name`` at its first step with ``params``."""
        self.plan, self.params, self.step, self.retries = name, dict(params), 0, {}
        self.note("PLAN_STARTED", plan=name, title=self.book.plans[name].title, params=dict(params))
        self.start_step()

    def start_step(self) -> None:
        """Schedule the current step, or complete the run when the plan has no steps left."""
        plan = self.book.plans[self.plan]
        if self.step == len(plan.steps):
            self.end(TaskState.COMPLETED, f"plan {plan.name} ({plan.title}) completed")
            return
        step = plan.steps[self.step]
        self.pending = self.sim.schedule(self.step_seconds.get(step, 1.0), partial(self.finish_step, step))

    def finish_step(self, step: str) -> None:
        """Ask the world how ``step`` went: move to the next step, or react to its event."""
        self.pending = None
        event, details = self.world.perform(step, self.params, self.rng)
        if event is None:
            self.note("STEP_DONE", plan=self.plan, step=step, **details)
            if step == "search_flights":
                self.run.details["flight"] = details
            self.step += 1
            self.start_step()
        else:
            self.note("EVENT", plan=self.plan, step=step, event=event, **details)
            self.react(event)

    def injected(self, event: str) -> None:
        """An event from outside: abort the step in progress and react (ignored once over)."""
        if self.over:
            return
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None
        self.note("EVENT", plan=self.plan, event=event, injected=True)
        self.react(event)

    def react(self, event: str) -> None:
        """Look ``event`` up (plan table, then book table) and carry out its handler's action."""
        plan = self.plan
        h = self.book.handler(plan, event)
        if h is None:
            self.end(TaskState.FAILED, f"no plan for {event!r} in plan {plan}", event, "unhandled")
        elif h.action == "fail":
            self.end(TaskState.FAILED, f"{event!r} ends the run", event, "fail")
        elif h.action == "escalate":
            self.end(
                TaskState.INPUT_REQUIRED, f"{event!r} in plan {plan}: a human must decide", event, "escalate"
            )
        elif h.action == "retry":
            self.retry(event, h)
        else:  # switch_plan
            self.switch(event, h)

    def retry(self, event: str, h: Handler) -> None:
        """Run the failed step again, unless ``event`` already used its ``h.max`` retries."""
        used = self.retries.get(event, 0)
        if used >= h.max:
            self.end(TaskState.FAILED, f"{event!r} persisted after {h.max} retries", event, "retry")
            return
        self.retries[event] = used + 1
        self.note("RETRY", plan=self.plan, event=event, attempt=used + 2)
        self.start_step()

    def switch(self, event: str, h: Handler) -> None:
        """Switch to ``h.target`` within the budget, asking ``approve`` first if ``h.confirm``."""
        plan, target, book = self.plan, h.target, self.book
        assert target is not None
        if self.switches >= book.max_switches:
            self.end(TaskState.FAILED, f"switch budget of {book.max_switches} used up", event, "switch_plan")
            return
        if h.confirm and (self.approve is None or not self.approve(h, plan)):
            if self.approve is None:
                self.end(
                    TaskState.INPUT_REQUIRED,
                    f"switching {plan} → {target} changes the request: asking the user",
                    event,
                    "confirm",
                )
            else:
                self.end(TaskState.FAILED, f"the user declined plan {target}", event, "declined")
            return
        self.switches += 1
        self.run.transitions.append(PlanTransition(self.sim.now, plan, event, "switch_plan", target))
        self.run.path.append(target)
        self.note("PLAN_SWITCHED", source=plan, event=event, target=target)
        self.start_plan(target, h.params)


def run_plan(
    book: PlanBook,
    world: World,
    *,
    inject: Sequence[tuple[float, str]] = (),
    approve: Callable[[Handler, str], bool] | None = None,
    seed: int = 0,
    step_seconds: Mapping[str, float] = STEP_SECONDS,
) -> PlanRun:
    """Run ``book`` against ``world`` on a fresh :class:`Simulation` and report what happened.

    ``inject``: (virtual time, event) pairs delivered while the run is in progress (an injected
    event aborts the step in progress). ``approve(handler, from_plan)`` answers switches marked
    ``confirm``; without it such a switch escalates to a human (``INPUT_REQUIRED``).
    """
    book.check_steps(world.steps)
    sim = Simulation(seed=seed)
    runner = _PlanRunner(book, world, sim, approve, step_seconds)
    runner.note("TASK_STATE", state=TaskState.WORKING.value, goal=book.goal)
    sim.at(0.0, partial(runner.start_plan, book.start, {}))
    for when, event in inject:
        sim.at(when, partial(runner.injected, event))
    sim.run()
    return runner.run


# -- Monte Carlo and the exact answer ------------------------------------------------------------------------
def success_rate(
    book: PlanBook,
    *,
    sold_out: float,
    hotel_full: float = 0.0,
    peak: float = 0.0,
    trials: int = 1000,
    seed: int = 0,
    approve: Callable[[Handler, str], bool] | None = lambda _h, _p: True,
) -> float:
    """Fraction of runs that complete, each in a freshly drawn :class:`TripWorld`."""
    rng = random.Random(seed)
    wins = 0
    for i in range(trials):
        world = TripWorld.random(rng, sold_out=sold_out, hotel_full=hotel_full, peak=peak)
        wins += run_plan(book, world, seed=seed * 100_003 + i, approve=approve).succeeded
    return wins / trials


def analytic_success(
    sold_out: float,
    *,
    hotel_full: float = 0.0,
    peak: float = 0.0,
    static: bool = False,
    range_days: int = 3,
    alternatives: int = 2,
    hotel_retries: int = 2,
) -> float:
    """Exact success probability of :data:`TRIP_PLANS` (or its static version) in the
    :meth:`TripWorld.random` model: q = ``sold_out``, h = ``hotel_full``.

    Static: the home city on the day (1 − q), one hotel attempt (1 − h).
    Event-driven: a seat on any of the 1 + 2·range_days home-city days or, failing that, on the
    day from an alternative city; the hotel gets 1 + ``hotel_retries`` attempts. A holiday peak
    empties the home city, leaving only the alternatives.
    """
    q, h = sold_out, hotel_full
    if static:
        return (1 - peak) * (1 - q) * (1 - h)
    home_days = 1 + 2 * range_days
    normal = 1 - q ** (home_days + alternatives)
    holiday = 1 - q**alternatives if alternatives else 0.0
    return ((1 - peak) * normal + peak * holiday) * (1 - h ** (1 + hotel_retries))


def disruption_sweep(
    book: PlanBook,
    rates: Sequence[float],
    *,
    trials: int = 400,
    hotel_full: float = 0.0,
    peak: float = 0.0,
    seed: int = 0,
) -> dict[str, list[float]]:
    """Success rate of the static plan and the event-driven book at each sold-out rate."""
    static = book.static()
    return {
        "static plan": [
            success_rate(static, sold_out=q, hotel_full=hotel_full, peak=peak, trials=trials, seed=seed)
            for q in rates
        ],
        "event-driven plans": [
            success_rate(book, sold_out=q, hotel_full=hotel_full, peak=peak, trials=trials, seed=seed)
            for q in rates
        ],
    }


# -- the book as a graph ------------------------------------------------------------------------------
#: The run's final state (``TaskState.short``) → the end node it is drawn as.
PLAN_ENDS = {"completed": "COMPLETED", "failed": "FAILED", "input-required": "ASK HUMAN"}


@dataclass(frozen=True)
class PlanEdge:
    """One arrow of the plan book seen as a graph: in plan ``source``, ``event`` leads to
    ``target`` — another plan, or an end node of :data:`PLAN_ENDS` — by ``action`` (a handler's
    action, ``complete`` when all steps worked, ``unhandled`` for events nobody planned for)."""

    source: str
    target: str
    event: str
    action: str


def plan_edges(book: PlanBook) -> list[PlanEdge]:
    """The plan book as a directed multigraph: plans and end states are the nodes.

    Every plan gets an edge to ``COMPLETED`` (its steps all worked), one edge per handler (a
    switch that asks for confirmation is labelled ``(ask)``, a retry points back at its own
    plan), and, for events nobody handles, an implicit edge to ``FAILED`` labelled
    ``other event``. Plain data: the course's ``plan_graph`` (``course/plans.py``) turns it into
    a graph object for drawing.
    """
    edges = []
    for name, plan in book.plans.items():
        edges.append(PlanEdge(name, PLAN_ENDS["completed"], "all steps done", "complete"))
        handled = {**book.on_event, **plan.on_event}
        for event, h in handled.items():
            if h.action == "switch_plan":
                assert h.target is not None  # checked when the book was loaded
                edges.append(PlanEdge(name, h.target, event + (" (ask)" if h.confirm else ""), "switch_plan"))
            elif h.action == "escalate":
                edges.append(PlanEdge(name, PLAN_ENDS["input-required"], event, "escalate"))
            elif h.action == "fail":
                edges.append(PlanEdge(name, PLAN_ENDS["failed"], event, "fail"))
            else:
                edges.append(PlanEdge(name, name, f"{event} (retry ≤{h.max})", "retry"))
        edges.append(PlanEdge(name, PLAN_ENDS["failed"], "other event", "unhandled"))
    return edges


def load_trip_plans() -> PlanBook:
    """:data:`TRIP_PLANS` as a validated :class:`PlanBook` (a fresh copy each call)."""
    return PlanBook.from_dict(copy.deepcopy(TRIP_PLANS))
