"""Feedback loops: execute → observe → compare → correct, under drifting conditions.

Theory of operation
-------------------
Seed 004 §13: errors cannot be designed away, so design the loop that notices and corrects
them. The model here is the smallest one that shows what such a loop can and cannot do.

An agent estimates a quantity every minute — say how many minutes late a delivery will be — and
acts on its estimate (**execute**). The world **drifts**: a slow trend (traffic building up),
a sudden step (a road closes at minute 120) and noise on every outcome (:class:`Drift`). The
true outcome of each action is known only ``latency`` minutes later, when the delivery arrives
(**observe**). Every ``period`` minutes — the *loop length* — the agent **compares** the outcomes
observed since the last check with what it expected, and **corrects** its estimate by ``gain``
times the average error (:class:`Loop`). Without a loop the agent never corrects: its error is
the drift itself.

Everything runs on :class:`~agentproto.orchestration.engine.Simulation` (virtual minutes, one
seeded noise stream per run), and :class:`LoopTrace` holds the minute-by-minute record:
the world's offset, the estimate in force, the observed error and the *tracking error*
(offset − estimate, the error without the noise).

Three results the notebook draws from it:

* a loop beats no loop under drift, and a shorter loop follows the drift more closely;
* but the loop's real length is period **plus latency**: comparing against outcomes produced
  under an older estimate double-counts corrections already made, and with a short period and
  a long latency a naive loop over-corrects, oscillates and can diverge (gain too high for its
  delay — the classic control-theory limit);
* comparing against the estimate that was in force when each outcome was produced
  (``compensate=True``: estimate the world, not the residual) removes the double counting.

A second kind of loop has no honest sensor: it **learns from its own outputs**
(:func:`route_and_learn`). A router sends each query to one of two answer agents and is
retrained on the answers users *accepted*. It only ever sees outcomes for the agent it chose,
and acceptance is not correctness, so the loop can confirm its own bias (self-reinforcement,
feedback amplification). :data:`ROUTER_DESIGNS` are the designs the notebook compares on the
same seeded queries: learning from its own accepted outputs, from delayed ground truth, with a
little exploration, or only from a held-out, human-labelled random sample.

The runs and sweeps return data; their plots and notebook 20's lab are in
the course layer (``course/feedback.py``).
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from agentproto.errors import AgentProtoError
from agentproto.orchestration.engine import Simulation

__all__ = [
    "FeedbackError",
    "Drift",
    "Loop",
    "LoopTrace",
    "run_loop",
    "compare_loops",
    "SweepRow",
    "loop_length_sweep",
    "gain_sweep",
    "ROUTER_DESIGNS",
    "RouterWorld",
    "RouterTrace",
    "route_and_learn",
    "compare_router_designs",
]


class FeedbackError(AgentProtoError, ValueError):
    """A loop or drift parameter is out of range."""

    rule = "feedback.config"


@dataclass(frozen=True)
class Drift:
    """How the world moves away from the agent's model, in minutes of extra delay.

    ``ramp`` minutes per minute of slow trend, a ``step`` at ``step_at`` (``None``: no step),
    a random walk with standard deviation ``walk`` per minute, and ``noise`` (standard
    deviation) on every single outcome.
    """

    ramp: float = 0.02
    step: float = 6.0
    step_at: float | None = 120.0
    noise: float = 1.0
    walk: float = 0.0

    def __post_init__(self) -> None:
        if self.noise < 0 or self.walk < 0:
            raise FeedbackError("noise and walk are standard deviations: they must be ≥ 0")


@dataclass(frozen=True)
class Loop:
    """The feedback loop's settings.

    ``period``: minutes between compare-and-correct steps (the loop length); ``gain``: the
    share of the observed error corrected each time (0 < gain); ``latency``: minutes before an
    outcome can be observed; ``deadband``: errors smaller than this are left alone (do not
    chase noise); ``compensate``: compare each outcome with the estimate that produced it.
    """

    period: float = 10.0
    gain: float = 0.5
    latency: float = 5.0
    deadband: float = 0.0
    compensate: bool = False

    def __post_init__(self) -> None:
        if not (self.period > 0 and math.isfinite(self.period)):
            raise FeedbackError(f"period must be a positive number of minutes, got {self.period}")
        if not (self.gain > 0 and math.isfinite(self.gain)):
            raise FeedbackError(
                f"gain must be > 0 (no correction is no loop: pass loop=None), got {self.gain}"
            )
        if self.latency < 0 or self.deadband < 0:
            raise FeedbackError("latency and deadband must be ≥ 0")

    @property
    def label(self) -> str:
        extra = ", compensated" if self.compensate else ""
        return f"loop every {self.period:g} min, gain {self.gain:g}, latency {self.latency:g} min{extra}"


@dataclass
class LoopTrace:
    """A minute-by-minute record of one run (lists indexed by minute)."""

    drift: Drift
    loop: Loop | None
    horizon: int
    times: list[float] = field(default_factory=list)
    offset: list[float] = field(default_factory=list)  # what the world adds (the truth)
    estimate: list[float] = field(default_factory=list)  # the agent's estimate in force
    error: list[float] = field(default_factory=list)  # outcome − estimate (with noise)
    corrections: list[tuple[float, float]] = field(default_factory=list)  # (minute, new estimate)
    _twin: LoopTrace | None = field(default=None, repr=False, compare=False)

    @property
    def label(self) -> str:
        return self.loop.label if self.loop else "no feedback"

    @property
    def tracking(self) -> list[float]:
        """offset − estimate: the estimate's error without the noise."""
        return [o - e for o, e in zip(self.offset, self.estimate)]

    def mean_abs_error(self, start: float = 0.0) -> float:
        """Mean |outcome − estimate| (minutes) from ``start`` on: what users feel."""
        vals = [abs(e) for t, e in zip(self.times, self.error) if t >= start]
        return sum(vals) / len(vals) if vals else 0.0

    def mean_abs_tracking(self, start: float = 0.0) -> float:
        vals = [abs(e) for t, e in zip(self.times, self.tracking) if t >= start]
        return sum(vals) / len(vals) if vals else 0.0

    def recovery_time(self, tolerance: float = 1.5, hold: float = 15.0) -> float | None:
        """Minutes from the step until the tracking error is back within ``tolerance`` and
        stays there for ``hold`` minutes; ``None`` if it never is (or there is no step)."""
        if self.drift.step_at is None:
            return None
        track = self.tracking
        start = None
        for t, e in zip(self.times, track):
            if t < self.drift.step_at:
                continue
            if abs(e) <= tolerance:
                if start is None:
                    start = t
                if t - start >= hold:
                    return start - self.drift.step_at
            else:
                start = None
        return None

    def _noise_free(self) -> LoopTrace:
        """The same run without noise or random walk: the loop's own dynamics."""
        if self.drift.noise == 0 and self.drift.walk == 0:
            return self
        if self._twin is None:
            self._twin = run_loop(replace(self.drift, noise=0.0, walk=0.0), self.loop, horizon=self.horizon)
        return self._twin

    def overshoot(self) -> float:
        """After the step, the largest tracking error on the *wrong* side, as a share of the step.

        Measured on the noise-free twin of this run, so that noise is not mistaken for overshoot.
        """
        if self.drift.step_at is None or self.drift.step == 0:
            return 0.0
        twin = self._noise_free()
        sign = 1.0 if self.drift.step > 0 else -1.0
        worst = max(
            (-sign * e for t, e in zip(twin.times, twin.tracking) if t >= self.drift.step_at), default=0.0
        )
        return max(0.0, worst) / abs(self.drift.step)

    @property
    def verdict(self) -> str:
        """``"no feedback"``, ``"diverges"`` (by the last quarter of the run the loop is worse than
        no loop at all), ``"oscillates"`` (overshoots the step by more than 30 %) or ``"settles"``
        — judged on the noise-free twin of the run."""
        if self.loop is None:
            return "no feedback"
        twin = self._noise_free()
        last = twin.times[-1] * 0.75
        tail = [(abs(o - e), abs(o)) for t, o, e in zip(twin.times, twin.offset, twin.estimate) if t >= last]
        loop_err = sum(a for a, _ in tail) / len(tail)
        open_err = sum(b for _, b in tail) / len(tail)
        if loop_err > max(open_err, 1.0):
            return "diverges"
        if self.overshoot() > 0.3:
            return "oscillates"
        return "settles"

    def summary(self) -> str:
        rec = self.recovery_time()
        rec_text = "never within ±1.5 min" if rec is None else f"{rec:g} min"
        mae = self.mean_abs_error()
        mae_text = f"{mae:.2f}" if mae < 1000 else f"{mae:.1e}"
        over = self.overshoot()
        over_text = f"{over:.0%}" if over < 10 else "> 999%"
        return (
            f"{self.label}: mean |error| {mae_text} min, recovery after the step "
            f"{rec_text}, overshoot {over_text}, {len(self.corrections)} corrections — "
            f"{self.verdict}"
        )


def run_loop(
    drift: Drift | None = None, loop: Loop | None = None, *, horizon: int = 240, seed: int = 0
) -> LoopTrace:
    """Run the agent for ``horizon`` minutes under ``drift``, with ``loop`` (``None``: open loop).

    Order within a minute: compare-and-correct first, then execute; an outcome produced at
    minute t is observed at t + latency (after anything already due then).
    """
    drift = drift or Drift()
    if horizon < 1:
        raise FeedbackError("horizon must be at least one minute")
    sim = Simulation(seed=seed)
    rng = sim.rng
    trace = LoopTrace(drift, loop, horizon)
    state = {"estimate": 0.0, "walk": 0.0}
    inbox: list[tuple[float, float]] = []  # (observed error, estimate that produced it)

    def offset_at(t: float) -> float:
        step = drift.step if drift.step_at is not None and t >= drift.step_at else 0.0
        return drift.ramp * t + step + state["walk"]

    def compare() -> None:
        assert loop is not None
        if not inbox:
            return
        if loop.compensate:  # estimate the world from each outcome, then compare with now
            delta = sum(err + est for err, est in inbox) / len(inbox) - state["estimate"]
        else:  # the naive loop: average error, whatever estimate produced it
            delta = sum(err for err, _ in inbox) / len(inbox)
        inbox.clear()
        if abs(delta) > loop.deadband:
            state["estimate"] += loop.gain * delta
            trace.corrections.append((sim.now, state["estimate"]))

    def execute() -> None:
        if drift.walk:
            state["walk"] += rng.gauss(0.0, drift.walk)
        truth = offset_at(sim.now)
        outcome = truth + (rng.gauss(0.0, drift.noise) if drift.noise else 0.0)
        est = state["estimate"]
        trace.times.append(sim.now)
        trace.offset.append(truth)
        trace.estimate.append(est)
        trace.error.append(outcome - est)
        if loop is not None:
            sim.schedule(loop.latency, partial(inbox.append, (outcome - est, est)))

    if loop is not None:
        k = 1
        while k * loop.period < horizon:
            sim.at(k * loop.period, compare)
            k += 1
    for t in range(horizon):
        sim.at(float(t), execute)
    sim.run()
    return trace


def compare_loops(
    loops: Sequence[Loop | None], drift: Drift | None = None, *, horizon: int = 240, seed: int = 0
) -> list[LoopTrace]:
    """The same drift and the same noise (same seed) under each loop."""
    return [run_loop(drift, lp, horizon=horizon, seed=seed) for lp in loops]


@dataclass(frozen=True)
class SweepRow:
    value: float  # the swept parameter (loop length or gain)
    mean_abs_error: float  # minutes, averaged over seeds
    recovery: float | None  # minutes, mean over seeds that recovered; None if none did
    recovered: float  # share of seeds that recovered
    diverged: float  # share of seeds whose loop made things worse than no loop


def _row(value: float, traces: Sequence[LoopTrace]) -> SweepRow:
    recs = [r for r in (t.recovery_time() for t in traces) if r is not None]
    return SweepRow(
        value,
        sum(t.mean_abs_error() for t in traces) / len(traces),
        sum(recs) / len(recs) if recs else None,
        len(recs) / len(traces),
        sum(t.verdict == "diverges" for t in traces) / len(traces),
    )


def loop_length_sweep(
    periods: Sequence[float],
    *,
    loop: Loop | None = None,
    drift: Drift | None = None,
    seeds: int = 8,
    horizon: int = 240,
) -> list[SweepRow]:
    """Mean error and recovery time for each loop length (``period``), other settings from ``loop``."""
    return _sweep(periods, lambda base, p: replace(base, period=p), loop, drift, seeds, horizon)


def gain_sweep(
    gains: Sequence[float],
    *,
    loop: Loop | None = None,
    drift: Drift | None = None,
    seeds: int = 8,
    horizon: int = 240,
) -> list[SweepRow]:
    """Mean error for each gain, other settings from ``loop``."""
    return _sweep(gains, lambda base, g: replace(base, gain=g), loop, drift, seeds, horizon)


def _sweep(
    values: Sequence[float],
    vary: Callable[[Loop, float], Loop],
    loop: Loop | None,
    drift: Drift | None,
    seeds: int,
    horizon: int,
) -> list[SweepRow]:
    """One :class:`SweepRow` per value: ``vary(loop, value)`` run on ``seeds`` seeds."""
    base = loop or Loop()
    runs = [[run_loop(drift, vary(base, v), horizon=horizon, seed=s) for s in range(seeds)] for v in values]
    return [_row(v, traces) for v, traces in zip(values, runs, strict=True)]


# -- a loop that learns from its own outputs ------------------------------------------------------
#: The router designs :func:`route_and_learn` knows, in the order the notebook shows them.
ROUTER_DESIGNS = ("own outputs", "delayed truth", "explore", "held-out labels")


@dataclass(frozen=True)
class RouterWorld:
    """Two answer agents and their users; the router knows none of these numbers.

    ``quality``: the chance that each agent's answer is actually right. ``rubber_stamp``: the
    share of *wrong* answers users accept anyway (acceptance is not correctness). ``head_start``:
    on day one the first agent happened to answer one query well, so the router starts out
    believing in it (1 good of 1 seen) and not in the other (0 of 1).
    """

    quality: tuple[float, float] = (0.62, 0.80)
    rubber_stamp: float = 0.3
    agents: tuple[str, str] = ("A", "B")
    head_start: bool = True

    def __post_init__(self) -> None:
        if not all(0.0 <= q <= 1.0 for q in (*self.quality, self.rubber_stamp)):
            raise FeedbackError("quality and rubber_stamp are probabilities: they must be in [0, 1]")


@dataclass(frozen=True)
class RouterTrace:
    """One design's run: who got each query and what the router believed after it."""

    design: str
    world: RouterWorld
    routed: tuple[int, ...]  # index of the agent each query went to
    estimates: tuple[tuple[float, float], ...]  # the router's estimate of each agent, after each query
    judged: tuple[int, int]  # how many answers of each agent the router learned from
    last_judged: tuple[int | None, int | None]  # the query whose answer it last learned from, per agent

    def share(self, agent: str, last: int | None = None) -> float:
        """Share of the queries (the ``last`` ones, or all) routed to ``agent``."""
        i = self.world.agents.index(agent)
        window = self.routed[-last:] if last else self.routed
        return sum(1 for a in window if a == i) / len(window) if window else 0.0

    def rolling_share(self, agent: str, window: int = 100) -> list[float]:
        """Share of the previous ``window`` queries routed to ``agent``, after each query."""
        i = self.world.agents.index(agent)
        out: list[float] = []
        recent: deque[int] = deque(maxlen=window)
        for a in self.routed:
            recent.append(a == i)
            out.append(sum(recent) / len(recent))
        return out

    def estimate(self, agent: str) -> float:
        """The router's final estimate of ``agent``'s quality."""
        return self.estimates[-1][self.world.agents.index(agent)] if self.estimates else 0.0

    def starved(self, agent: str) -> int:
        """Queries since the router last learned anything about ``agent`` — a monitor's number.

        A loop that has stopped looking at one option shows it here long before any accuracy
        metric moves: the whole run (``len(routed)``) when it never learned about it at all.
        """
        last = self.last_judged[self.world.agents.index(agent)]
        return len(self.routed) - (last + 1 if last is not None else 0)

    def summary(self, last: int = 1000) -> str:
        a, b = self.world.agents
        return (
            f"{self.design}: last {last} queries to {b} {self.share(b, last):.0%}; router believes "
            f"{a} {self.estimate(a):.2f}, {b} {self.estimate(b):.2f} (true {self.world.quality[0]:.2f}, "
            f"{self.world.quality[1]:.2f}); learned from {self.judged[1]} of {b}'s answers"
        )


def route_and_learn(
    design: str,
    world: RouterWorld | None = None,
    *,
    n: int = 3000,
    seed: int = 11,
    explore: float = 0.1,
    holdout: float = 0.1,
    delay: int = 50,
) -> RouterTrace:
    """A router retrained on what it observes, under one of :data:`ROUTER_DESIGNS`.

    Every query goes to the agent with the higher estimate (ties: the first), except where the
    design samples at random. The router learns a good/seen count per agent:

    * ``"own outputs"`` — from every answer it routed, counting *accepted* as good;
    * ``"delayed truth"`` — from every answer it routed, counting *correct* as good, but each
      label arrives ``delay`` queries later (the ticket reopened, the refund reversed);
    * ``"explore"`` — like own outputs, but a random ``explore`` share of queries is routed at
      random;
    * ``"held-out labels"`` — only from a random ``holdout`` share of queries, routed at random
      and labelled right/wrong by a reviewer; never from its own routed traffic.

    The queries (whether each agent would be right, whether a wrong answer is accepted) come
    from one ``random.Random(seed)`` and are the same for every design; the router's own coin
    flips come from a second seeded stream, one per design.
    """
    if design not in ROUTER_DESIGNS:
        raise FeedbackError(f"unknown design {design!r}; use one of {list(ROUTER_DESIGNS)}")
    if not (0.0 <= explore <= 1.0 and 0.0 <= holdout <= 1.0):
        raise FeedbackError("explore and holdout are shares of the queries: they must be in [0, 1]")
    if n < 1 or delay < 0:
        raise FeedbackError("n must be ≥ 1 and delay ≥ 0")
    w = world or RouterWorld()
    queries = random.Random(seed)
    coins = random.Random(seed * 7919 + 1 + ROUTER_DESIGNS.index(design))
    good = [1.0, 0.0] if w.head_start else [0.0, 0.0]
    seen = [1, 1] if w.head_start else [0, 0]
    judged: list[int] = [0, 0]
    last: list[int | None] = [None, None]
    pending: deque[tuple[int, int, bool]] = deque()  # (due at query, agent, correct)
    routed: list[int] = []
    estimates: list[tuple[float, float]] = []

    def learn(agent: int, signal: bool, at: int) -> None:
        seen[agent] += 1
        good[agent] += signal
        judged[agent] += 1
        last[agent] = at

    for q in range(n):
        draw, accept_draw = queries.random(), queries.random()
        est = [good[i] / seen[i] if seen[i] else 0.0 for i in (0, 1)]
        share = explore if design == "explore" else holdout if design == "held-out labels" else 0.0
        sampled = share > 0 and coins.random() < share
        agent = coins.randrange(2) if sampled else (0 if est[0] >= est[1] else 1)
        correct = draw < w.quality[agent]
        accepted = correct or accept_draw < w.rubber_stamp
        if design == "held-out labels":
            if sampled:
                learn(agent, correct, q)
        elif design == "delayed truth":
            pending.append((q + delay, agent, correct))
            while pending and pending[0][0] <= q:
                _, a, c = pending.popleft()
                learn(a, c, q)
        else:
            learn(agent, accepted, q)
        routed.append(agent)
        estimates.append((good[0] / seen[0] if seen[0] else 0.0, good[1] / seen[1] if seen[1] else 0.0))
    return RouterTrace(design, w, tuple(routed), tuple(estimates), (judged[0], judged[1]), (last[0], last[1]))


def compare_router_designs(
    designs: Sequence[str] = ROUTER_DESIGNS,
    world: RouterWorld | None = None,
    *,
    n: int = 3000,
    seed: int = 11,
    explore: float = 0.1,
    holdout: float = 0.1,
    delay: int = 50,
) -> dict[str, RouterTrace]:
    """The same queries (same seed) under each design, keyed by design."""
    return {
        d: route_and_learn(d, world, n=n, seed=seed, explore=explore, holdout=holdout, delay=delay)
        for d in designs
    }
