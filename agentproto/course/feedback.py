"""Notebook 20's pictures and lab: the same drifting world with and without a feedback loop.

The loop is :mod:`agentproto.orchestration.feedback` (runs and sweeps return data); this module
draws it. :func:`plot_traces`, :func:`plot_loop_length` and :func:`plot_gain` are the notebook's
static matplotlib figures; :class:`RouterLab` puts the router that learns from its own outputs
next to one prevention of the learner's choice (sliders: how good agent B really is, how often
users accept a wrong answer, the exploration / held-out share). :func:`plot_self_reinforcement`
draws that router (:func:`~agentproto.orchestration.feedback.route_and_learn`) under each design,
side by side: where the traffic went, and what the router came to believe against the truth.

:class:`FeedbackLab` has sliders for the loop length (minutes between corrections), the gain, the
observation latency and the drift, and check boxes for *feedback on* and *compensate*. The chart
(SVG, so a redraw takes milliseconds) shows the estimate's error over time without feedback
(grey) and with the loop (blue); the summary gives mean error, recovery time after the step,
overshoot and a verdict (settles / oscillates / diverges). **Reset** restores the defaults.
From code::

    lab = FeedbackLab()
    lab.period.value = 1
    lab.summary_text            # "... diverges"
    lab.reset_button.click()
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import ipywidgets as widgets

from agentproto.course.plots import PALETTE
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.widgets import lab_slider
from agentproto.orchestration.feedback import (
    ROUTER_DESIGNS,
    Drift,
    Loop,
    LoopTrace,
    RouterTrace,
    RouterWorld,
    SweepRow,
    route_and_learn,
    run_loop,
)

__all__ = [
    "FeedbackLab",
    "RouterLab",
    "router_chart",
    "trace_chart",
    "plot_traces",
    "plot_loop_length",
    "plot_gain",
    "plot_self_reinforcement",
]


# -- static figures (matplotlib) ------------------------------------------------------------------
def plot_traces(
    traces: Sequence[LoopTrace],
    ax: Any = None,
    *,
    title: str = "Error of the estimate over time",
    show_noise: bool = False,
) -> Any:
    """Tracking error (offset − estimate) over time for each trace; the step marked."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.8))
    for tr in traces:
        style = dict(color="#999999", linewidth=2.2) if tr.loop is None else dict(linewidth=1.6)
        (line,) = ax.plot(tr.times, tr.tracking, label=tr.label, **style)
        if show_noise:
            ax.plot(tr.times, tr.error, color=line.get_color(), alpha=0.25, linewidth=0.8)
    step_at = traces[0].drift.step_at if traces else None
    if step_at is not None:
        ax.axvline(step_at, color="#D55E00", linestyle=":", linewidth=1)
        ax.annotate(
            "road closes",
            (step_at, ax.get_ylim()[1]),
            textcoords="offset points",
            xytext=(4, -12),
            fontsize=8,
            color="#D55E00",
        )
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set(xlabel="time (simulated minutes)", ylabel="estimate error (minutes late)", title=title)
    ax.legend(fontsize=8, loc="upper left")
    return ax


def plot_loop_length(
    rows_by_label: dict[str, Sequence[SweepRow]], open_loop_error: float | None = None, fig: Any = None
) -> Any:
    """Two panels against loop length (log scale): mean error, and recovery time after the step."""
    import matplotlib.pyplot as plt

    fig = fig or plt.figure(figsize=(11, 3.8))
    ax1, ax2 = fig.subplots(1, 2)
    for label, rows in rows_by_label.items():
        xs = [r.value for r in rows]
        (line,) = ax1.plot(xs, [r.mean_abs_error for r in rows], marker="o", label=label)
        ax2.plot(
            xs,
            [math.nan if r.recovery is None else r.recovery for r in rows],
            marker="o",
            color=line.get_color(),
            label=label,
        )
    if open_loop_error is not None:
        ax1.axhline(open_loop_error, color="#999999", linestyle="--", label="no feedback")
    ax1.set(
        xscale="log",
        xlabel="loop length (minutes between corrections)",
        ylabel="mean |error| (minutes)",
        title="Error vs loop length",
    )
    ax2.set(
        xscale="log",
        xlabel="loop length (minutes between corrections)",
        ylabel="minutes to recover from the step",
        title="Recovery time (no point: never recovers)",
    )
    ticks = sorted({r.value for rows in rows_by_label.values() for r in rows})
    for ax in (ax1, ax2):
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.minorticks_off()
    ax1.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_gain(
    rows_by_label: dict[str, Sequence[SweepRow]], open_loop_error: float | None = None, ax: Any = None
) -> Any:
    """Mean error against the gain, one line per setting; where a line leaves the chart, the loop diverged."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.6))
    for label, rows in rows_by_label.items():
        ax.plot([r.value for r in rows], [r.mean_abs_error for r in rows], marker="o", label=label)
    if open_loop_error is not None:
        ax.axhline(open_loop_error, color="#999999", linestyle="--", label="no feedback")
        ax.set_ylim(0, open_loop_error * 2.0)
    ax.set(
        xlabel="gain (share of the observed error corrected)",
        ylabel="mean |error| (minutes)",
        title="Correcting harder is not always better",
    )
    ax.legend(fontsize=8)
    return ax


# -- the lab (SVG) ----------------------------------------------------------------------------------
DEFAULTS = {"period": 10, "gain": 0.5, "latency": 5.0, "ramp": 0.02, "feedback": True, "compensate": False}


def plot_self_reinforcement(traces: Mapping[str, RouterTrace], *, window: int = 100) -> Any:
    """Two panels: the share of traffic to the better agent over time, per design; and each
    design's final estimate of both agents next to their true quality."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 3.8), gridspec_kw={"width_ratios": [1.5, 1]})
    if not traces:
        return fig
    world = next(iter(traces.values())).world
    a, b = world.agents
    for k, (design, tr) in enumerate(traces.items()):
        left.plot(
            range(1, len(tr.routed) + 1),
            tr.rolling_share(b, window),
            label=design,
            linewidth=2.4 - 0.5 * k,
            linestyle=("-", "--", "-", ":")[k % 4],
        )
    left.set_ylim(-0.03, 1.03)
    left.set_xlabel("query")
    left.set_ylabel(f"share of the last {window} queries to {b}")
    left.set_title(f"Where the traffic goes ({b} is the better agent)")
    left.legend(loc="center right", fontsize=8)
    names = list(traces)
    width = 0.38
    for k, agent in enumerate((a, b)):
        xs = [i + (k - 0.5) * width for i in range(len(names))]
        right.bar(
            xs,
            [traces[d].estimate(agent) for d in names],
            width,
            label=f"router's {agent}",
            color=PALETTE["primary"] if k else PALETTE["muted"],
        )
        right.axhline(
            world.quality[k], color=PALETTE["primary"] if k else PALETTE["muted"], linestyle="--", linewidth=1
        )
    right.set_xticks(range(len(names)), names, rotation=15, fontsize=8)
    right.set_ylim(0, 1)
    right.set_ylabel("estimated quality (dashed: true)")
    right.set_title("What the router believes")
    right.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig


def trace_chart(
    open_loop: LoopTrace, closed: LoopTrace | None, *, width: int = 680, height: int = 280
) -> str:
    """SVG: tracking error over time without and with feedback; the step marked."""
    series = [Series("no feedback", open_loop.times, open_loop.tracking, "#999999", width=2.2)]
    if closed is not None:
        series.append(Series("observed error (noisy)", closed.times, closed.error, "#b8d3ea", width=1.0))
        series.append(Series(closed.label, closed.times, closed.tracking, PALETTE["primary"], width=2.0))
    markers = (
        [Marker(open_loop.drift.step_at, None, PALETTE["bad"], "road closes")]
        if open_loop.drift.step_at is not None
        else []
    )
    return line_chart(
        series,
        markers=markers,
        ylim=(-15.0, 15.0),
        width=width,
        height=height,
        legend="lower right",
        title="Error of the estimate (minutes late), same world, same noise",
        xlabel="time (simulated minutes)",
        ylabel="estimate error (min)",
    )


class FeedbackLab(SvgLab):
    """Execute → observe → compare → correct, against a drifting world."""

    title = "Feedback loop lab — loop length, gain and latency"

    def __init__(self, *, seed: int = 0, horizon: int = 240, auto: bool = True) -> None:
        self.seed, self.horizon = seed, horizon
        self.period = lab_slider("loop length (min)", DEFAULTS["period"], 1, 60, integer=True)
        self.gain = lab_slider("gain", DEFAULTS["gain"], 0.05, 2.0, 0.05)
        self.latency = lab_slider("latency (min)", DEFAULTS["latency"], 0.0, 30.0, 1.0)
        self.ramp = lab_slider("drift (min/min)", DEFAULTS["ramp"], 0.0, 0.1, 0.005, readout_format=".3f")
        self.feedback = widgets.Checkbox(value=DEFAULTS["feedback"], description="feedback on")
        self.compensate = widgets.Checkbox(value=DEFAULTS["compensate"], description="compensate for latency")
        self.reset_button = widgets.Button(
            description="Reset", icon="undo", layout=widgets.Layout(width="110px")
        )
        self.reset_button.on_click(lambda _b: self.reset())
        self.open_loop: LoopTrace | None = None
        self.closed: LoopTrace | None = None
        self._held = False
        super().__init__(
            [self.period, self.gain, self.latency, self.ramp, self.feedback, self.compensate], auto=auto
        )

    def reset(self) -> None:
        """Back to the default settings (one redraw)."""
        with self.hold():
            for name, value in DEFAULTS.items():
                getattr(self, name).value = value
        self.update()

    def hold(self) -> _Hold:
        return _Hold(self)

    def extra_buttons(self) -> list[widgets.Widget]:
        return [self.reset_button]

    def update(self) -> None:
        if self._held:
            return
        super().update()

    def render(self) -> tuple[str, str]:
        drift = Drift(ramp=self.ramp.value)
        self.open_loop = run_loop(drift, None, horizon=self.horizon, seed=self.seed)
        self.closed = None
        if self.feedback.value:
            loop = Loop(
                period=self.period.value,
                gain=self.gain.value,
                latency=self.latency.value,
                compensate=self.compensate.value,
            )
            self.closed = run_loop(drift, loop, horizon=self.horizon, seed=self.seed)
        text = self.open_loop.summary()
        if self.closed is not None:
            text += "\n" + self.closed.summary()
        return trace_chart(self.open_loop, self.closed), text


class _Hold:
    """Context manager: change several controls with a single redraw at the end."""

    def __init__(self, lab: FeedbackLab) -> None:
        self.lab = lab

    def __enter__(self) -> None:
        self.lab._held = True

    def __exit__(self, *exc: object) -> None:
        self.lab._held = False


def router_chart(
    traces: Sequence[RouterTrace], *, window: int = 100, width: int = 680, height: int = 260
) -> str:
    """SVG: the share of the last ``window`` queries routed to the second agent, per trace."""
    colors = (PALETTE["muted"], PALETTE["primary"], PALETTE["accent"], PALETTE["secondary"])
    series = []
    for k, tr in enumerate(traces):
        b = tr.world.agents[1]
        ys = tr.rolling_share(b, window)
        series.append(Series(tr.design, list(range(1, len(ys) + 1)), ys, colors[k % 4], width=2.2 - 0.4 * k))
    return line_chart(
        series,
        ylim=(-0.02, 1.02),
        width=width,
        height=height,
        legend="center right",
        title=f"Share of the last {window} queries sent to the second agent",
        xlabel="query",
        ylabel="share",
    )


class RouterLab(SvgLab):
    """A router retrained on accepted answers, beside one design that keeps it honest."""

    title = "Router lab — a loop that learns from its own outputs"

    def __init__(self, *, n: int = 2000, seed: int = 11, auto: bool = True) -> None:
        self.n, self.seed = n, seed
        style = {"description_width": "initial"}
        self.quality_b = lab_slider("B really right", 0.80, 0.5, 0.95, 0.01, readout_format=".2f")
        self.rubber_stamp = lab_slider("wrong answers accepted", 0.3, 0.0, 0.9, 0.05, readout_format=".2f")
        self.design = widgets.Dropdown(
            options=[d for d in ROUTER_DESIGNS if d != "own outputs"],
            value="explore",
            description="beside it",
            style=style,
        )
        self.share = lab_slider("explore / held-out share", 0.1, 0.0, 0.5, 0.01, readout_format=".2f")
        self.traces: list[RouterTrace] = []
        super().__init__([self.quality_b, self.rubber_stamp, self.design, self.share], auto=auto)

    def render(self) -> tuple[str, str]:
        world = RouterWorld(quality=(0.62, self.quality_b.value), rubber_stamp=self.rubber_stamp.value)
        common = {"n": self.n, "seed": self.seed, "explore": self.share.value, "holdout": self.share.value}
        self.traces = [
            route_and_learn("own outputs", world, **common),
            route_and_learn(self.design.value, world, **common),
        ]
        text = "\n".join(tr.summary(last=min(1000, self.n)) for tr in self.traces)
        return router_chart(self.traces), text
