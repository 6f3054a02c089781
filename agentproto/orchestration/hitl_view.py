"""Notebook 19's lab: move the confidence threshold and watch what asking a human costs.

:class:`HitlLab` has sliders for the threshold, the cost of an error, the minutes a review takes
and how overconfident the agent is; the chart shows error cost, human cost and their total
against the threshold (the same numbers as :func:`~agentproto.orchestration.hitl.plot_cost_curve`,
drawn as SVG so a redraw takes milliseconds); the summary names the sweet spot. **Jump to sweet
spot** moves the threshold slider there. From code::

    lab = HitlLab()
    lab.cost_per_error.value = 100
    lab.sweet_button.click()
    lab.threshold.value, lab.summary_text
"""

from __future__ import annotations

import ipywidgets as widgets

from agentproto.orchestration.hitl import CostCurve, CostModel, cost_curve, sample_confidences
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.plots import PALETTE

__all__ = ["HitlLab", "cost_chart"]


def cost_chart(curve: CostCurve, threshold: float | None = None, *, width: int = 640, height: int = 280) -> str:
    """SVG: error cost, human cost and total against the threshold; sweet spot and threshold marked."""
    x = curve.thresholds
    best_t, best = curve.sweet_spot()
    markers = [Marker(best_t, best, PALETTE["good"], f"sweet spot: ask below {best_t:.2f}")]
    if threshold is not None:
        markers.append(Marker(curve.at(threshold)["threshold"], None, PALETTE["secondary"],
                              f"your threshold {threshold:.2f}"))
    return line_chart(
        [Series("errors slipping through", x, curve.error_cost, PALETTE["bad"]),
         Series("human minutes", x, curve.human_cost, PALETTE["primary"]),
         Series("total", x, curve.total, "#000000", width=2.6)],
        markers=markers, xlim=(0.0, 1.0), width=width, height=height, legend="upper left",
        title="The cost of asking, per 1,000 actions",
        xlabel="confidence threshold (ask a human below it)", ylabel="cost per 1,000 actions ($)")


class HitlLab(SvgLab):
    """Errors slipping through vs human minutes, as the confidence threshold moves."""

    title = "When should a human step in? — the cost of asking"

    def __init__(self, *, n_actions: int = 2000, seed: int = 0, auto: bool = True) -> None:
        self.confidences = sample_confidences(n_actions, seed=seed)
        style = {"description_width": "initial"}
        self.threshold = widgets.FloatSlider(value=0.7, min=0.0, max=1.0, step=0.01, description="threshold",
                                             continuous_update=False, readout_format=".2f", style=style)
        self.cost_per_error = widgets.FloatSlider(value=30.0, min=1.0, max=300.0, step=1.0,
                                                  description="$ per error", continuous_update=False, style=style)
        self.minutes_per_review = widgets.FloatSlider(value=5.0, min=0.5, max=20.0, step=0.5,
                                                      description="minutes per review", continuous_update=False,
                                                      style=style)
        self.temperature = widgets.FloatSlider(value=1.0, min=0.5, max=3.0, step=0.1,
                                               description="overconfidence T", continuous_update=False,
                                               style=style)
        self.sweet_button = widgets.Button(description="Jump to sweet spot", icon="bullseye",
                                           layout=widgets.Layout(width="170px"))
        self.sweet_button.on_click(lambda _b: self.jump_to_sweet_spot())
        self.curve: CostCurve | None = None
        self._key: tuple[float, ...] | None = None
        super().__init__([self.threshold, self.cost_per_error, self.minutes_per_review, self.temperature],
                         auto=auto)

    def model(self) -> CostModel:
        return CostModel(cost_per_error=self.cost_per_error.value, minutes_per_review=self.minutes_per_review.value)

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
        closed = f"; closed form for a calibrated agent: {model.break_even_confidence():.2f}" \
            if self.temperature.value == 1.0 else ""
        text = (f"threshold {row['threshold']:.2f}: {row['escalated']:.0%} of actions go to a human "
                f"({row['minutes']:,.0f} human minutes), {row['errors']:.1f} errors slip through — "
                f"total ${row['total']:,.0f} per 1,000 actions\n"
                f"sweet spot: ask below {best_t:.2f} → ${best:,.0f} per 1,000 actions{closed}")
        return cost_chart(self.curve, self.threshold.value), text
