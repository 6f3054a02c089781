"""Notebook 19's pictures and lab: what asking a human costs, and how long the human's queue gets.

The models are :mod:`agentproto.orchestration.hitl` (they return data); this module draws them.
:func:`plot_cost_curve` and :func:`plot_review_load` are the notebook's static matplotlib
figures. :class:`HitlLab` has sliders for the threshold, the cost of an error, the minutes a
review takes and how overconfident the agent is; its chart shows error cost, human cost and
their total against the threshold (the numbers of :func:`plot_cost_curve`, drawn as SVG by
:func:`cost_chart` so a redraw takes milliseconds); the summary names the sweet spot. **Jump to
sweet spot** moves the threshold slider there. From code::

    lab = HitlLab()
    lab.cost_per_error.value = 100
    lab.sweet_button.click()
    lab.threshold.value, lab.summary_text
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets

from agentproto.course.plots import PALETTE
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.widgets import lab_slider
from agentproto.orchestration.hitl import CostCurve, CostModel, QueueStats, cost_curve, sample_confidences

__all__ = ["HitlLab", "cost_chart", "plot_cost_curve", "plot_review_load"]


# -- static figures (matplotlib) ------------------------------------------------------------------
def plot_cost_curve(
    curve: CostCurve,
    ax: Any = None,
    *,
    threshold: float | None = None,
    title: str = "The cost of asking, per 1,000 actions",
) -> Any:
    """Error cost, human cost and their total against the threshold; the sweet spot marked."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 4))
    x = curve.thresholds
    ax.plot(x, curve.error_cost, color=PALETTE["bad"], label="errors slipping through")
    ax.plot(x, curve.human_cost, color=PALETTE["primary"], label="human minutes")
    ax.plot(x, curve.total, color="black", linewidth=2.2, label="total")
    best_t, best = curve.sweet_spot()
    ax.scatter(
        [best_t], [best], color=PALETTE["good"], zorder=5, s=60, label=f"sweet spot: ask below {best_t:.2f}"
    )
    if threshold is not None:
        row = curve.at(threshold)
        ax.axvline(
            row["threshold"],
            color=PALETTE["secondary"],
            linestyle="--",
            label=f"your threshold {row['threshold']:.2f}",
        )
    ax.set(
        xlabel="confidence threshold (ask a human below it)",
        ylabel="cost per 1,000 actions ($)",
        title=title,
        xlim=(0, 1),
    )
    ax.legend(fontsize=8, loc="best")
    return ax


def plot_review_load(stats: Sequence[QueueStats], ax: Any = None) -> Any:
    """Mean and 95th-percentile wait for a reviewer against the threshold, with the offered load
    (escalations × minutes per review, as a share of the reviewers' time; it can pass 100 %)."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 3.6))
    x = [s.threshold for s in stats]
    ax.plot(x, [s.mean_wait for s in stats], marker="o", color=PALETTE["primary"], label="mean wait")
    ax.plot(x, [s.p95_wait for s in stats], marker="s", color=PALETTE["bad"], label="95th percentile wait")
    ax.set(
        xlabel="confidence threshold (ask a human below it)",
        ylabel="minutes waiting for a human",
        title="One reviewer is a queue",
    )
    twin = ax.twinx()
    twin.plot(
        x,
        [100 * s.offered_load for s in stats],
        color=PALETTE["muted"],
        linestyle=":",
        label="offered load (%)",
    )
    twin.axhline(100, color=PALETTE["muted"], linewidth=0.6, label="100 %: the reviewer's capacity")
    twin.set_ylabel("offered load (% of one reviewer's time)")
    twin.grid(False)
    lines = ax.get_lines() + twin.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], loc="upper left", fontsize=8)
    return ax


# -- the lab (SVG) ----------------------------------------------------------------------------------
def cost_chart(
    curve: CostCurve, threshold: float | None = None, *, width: int = 640, height: int = 280
) -> str:
    """SVG: error cost, human cost and total against the threshold; sweet spot and threshold marked."""
    x = curve.thresholds
    best_t, best = curve.sweet_spot()
    markers = [Marker(best_t, best, PALETTE["good"], f"sweet spot: ask below {best_t:.2f}")]
    if threshold is not None:
        markers.append(
            Marker(
                curve.at(threshold)["threshold"],
                None,
                PALETTE["secondary"],
                f"your threshold {threshold:.2f}",
            )
        )
    return line_chart(
        [
            Series("errors slipping through", x, curve.error_cost, PALETTE["bad"]),
            Series("human minutes", x, curve.human_cost, PALETTE["primary"]),
            Series("total", x, curve.total, "#000000", width=2.6),
        ],
        markers=markers,
        xlim=(0.0, 1.0),
        width=width,
        height=height,
        legend="upper left",
        title="The cost of asking, per 1,000 actions",
        xlabel="confidence threshold (ask a human below it)",
        ylabel="cost per 1,000 actions ($)",
    )


class HitlLab(SvgLab):
    """Errors slipping through vs human minutes, as the confidence threshold moves."""

    title = "When should a human step in? — the cost of asking"

    def __init__(self, *, n_actions: int = 2000, seed: int = 0, auto: bool = True) -> None:
        self.confidences = sample_confidences(n_actions, seed=seed)
        self.threshold = lab_slider("threshold", 0.7, 0.0, 1.0, 0.01, readout_format=".2f")
        self.cost_per_error = lab_slider("$ per error", 30.0, 1.0, 300.0, 1.0)
        self.minutes_per_review = lab_slider("minutes per review", 5.0, 0.5, 20.0, 0.5)
        self.temperature = lab_slider("overconfidence T", 1.0, 0.5, 3.0, 0.1)
        self.sweet_button = widgets.Button(
            description="Jump to sweet spot", icon="bullseye", layout=widgets.Layout(width="170px")
        )
        self.sweet_button.on_click(lambda _b: self.jump_to_sweet_spot())
        self.curve: CostCurve | None = None
        self._key: tuple[float, ...] | None = None
        super().__init__(
            [self.threshold, self.cost_per_error, self.minutes_per_review, self.temperature], auto=auto
        )

    def model(self) -> CostModel:
        return CostModel(
            cost_per_error=self.cost_per_error.value, minutes_per_review=self.minutes_per_review.value
        )

    def jump_to_sweet_spot(self) -> None:
        """Set the threshold slider to the cheapest threshold (which redraws)."""
        assert self.curve is not None
        best, _ = self.curve.sweet_spot()
        if abs(self.threshold.value - best) < 1e-9:
            self.update()
        else:
            self.threshold.value = best

    def extra_buttons(self) -> list[widgets.Widget]:
        return [self.sweet_button]

    def render(self) -> tuple[str, str]:
        model = self.model()
        key = (model.cost_per_error, model.minutes_per_review, self.temperature.value)
        if key != self._key or self.curve is None:  # moving only the threshold reuses the curve
            self.curve = cost_curve(self.confidences, model, temperature=self.temperature.value)
            self._key = key
        row = self.curve.at(self.threshold.value)
        best_t, best = self.curve.sweet_spot()
        closed = (
            f"; closed form for a calibrated agent: {model.break_even_confidence():.2f}"
            if self.temperature.value == 1.0
            else ""
        )
        text = (
            f"threshold {row['threshold']:.2f}: {row['escalated']:.0%} of actions go to a human "
            f"({row['minutes']:,.0f} human minutes), {row['errors']:.1f} errors slip through — "
            f"total ${row['total']:,.0f} per 1,000 actions\n"
            f"sweet spot: ask below {best_t:.2f} → ${best:,.0f} per 1,000 actions{closed}"
        )
        return cost_chart(self.curve, self.threshold.value), text
