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

The runs and sweeps return data; their plots and notebook 20's lab are in
the course layer (``course/feedback.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial

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
]


class FeedbackError(ValueError):
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
    base = loop or Loop()
    return [
        _row(p, [run_loop(drift, replace(base, period=p), horizon=horizon, seed=s) for s in range(seeds)])
        for p in periods
    ]


def gain_sweep(
    gains: Sequence[float],
    *,
    loop: Loop | None = None,
    drift: Drift | None = None,
    seeds: int = 8,
    horizon: int = 240,
) -> list[SweepRow]:
    """Mean error for each gain, other settings from ``loop``."""
    base = loop or Loop()
    return [
        _row(g, [run_loop(drift, replace(base, gain=g), horizon=horizon, seed=s) for s in range(seeds)])
        for g in gains
    ]
