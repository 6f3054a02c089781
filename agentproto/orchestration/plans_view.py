"""Notebook 15's lab: draw a disrupted world, watch the path through the plan book, compare rates.

The path is drawn with networkx + matplotlib (:func:`~agentproto.orchestration.plans.draw_plan_graph`),
which is slow (~100 ms), but a plan book has only a handful of distinct paths: each picture is
rendered once and cached by the path it shows. The success-rate chart is SVG.
"""

from __future__ import annotations

import base64
import random

import ipywidgets as widgets
from matplotlib.figure import Figure

from agentproto.course.lab import figure_png
from agentproto.orchestration.plans import (
    PlanBook, PlanRun, TripWorld, analytic_success, draw_plan_graph, load_trip_plans, run_plan, success_rate,
)
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.plots import PALETTE

__all__ = ["PlansLab"]

SOLD_OUT_GRID = [i / 20 for i in range(21)]


class PlansLab(SvgLab):
    """Left: the path one random world forces through the plan book. Right: success rate of the
    static plan and the event-driven book against the sold-out probability (exact curves) with
    simulated points for the current setting.

    Controls: ``sold_out``, ``hotel_full``, ``peak`` (probabilities) and ``world`` (which random
    world to draw — the same number always draws the same world).
    """

    title = "Plan-switching lab — one world, and the odds over many"

    def __init__(self, book: PlanBook | None = None, *, trials: int = 200, auto: bool = True) -> None:
        self.book = book or load_trip_plans()
        self.trials = trials
        self._pictures: dict[tuple, str] = {}
        style = {"description_width": "initial"}

        def prob(desc: str, value: float, top: float = 1.0) -> widgets.FloatSlider:
            return widgets.FloatSlider(value=value, min=0.0, max=top, step=0.05, description=desc,
                                       continuous_update=False, readout_format=".2f", style=style)

        self.sold_out = prob("P(flight sold out)", 0.5)
        self.hotel_full = prob("P(hotel full, per try)", 0.1, 0.9)
        self.peak = prob("P(holiday peak)", 0.2)
        self.world = widgets.IntSlider(value=1, min=1, max=50, description="world #",
                                       continuous_update=False, style=style)
        super().__init__([self.sold_out, self.hotel_full, self.peak, self.world], auto=auto)

    def path_picture(self, run: PlanRun) -> str:
        """An ``<img>`` of the plan graph with ``run``'s path, rendered once per distinct path."""
        key = tuple((t.source, t.event, t.target) for t in run.transitions) + (run.state.value,)
        if key not in self._pictures:
            fig = Figure(figsize=(6.4, 3.6))
            draw_plan_graph(self.book, run, fig.add_subplot(1, 1, 1))
            fig.subplots_adjust(left=0.01, right=0.99, top=0.9, bottom=0.01)
            data = base64.b64encode(figure_png(fig, dpi=80)).decode()
            self._pictures[key] = f"<img width='512' src='data:image/png;base64,{data}'/>"
        return self._pictures[key]

    def render(self) -> tuple[str, str]:
        q, h, peak = self.sold_out.value, self.hotel_full.value, self.peak.value
        world = TripWorld.random(random.Random(self.world.value), sold_out=q, hotel_full=h, peak=peak)
        run = run_plan(self.book, world, seed=self.world.value, approve=lambda _h, _p: True)
        static_run = run_plan(self.book.static(), world, seed=self.world.value)
        exact_static = [analytic_success(x, hotel_full=h, peak=peak, static=True) for x in SOLD_OUT_GRID]
        exact_dynamic = [analytic_success(x, hotel_full=h, peak=peak) for x in SOLD_OUT_GRID]
        sim_static = success_rate(self.book.static(), sold_out=q, hotel_full=h, peak=peak, trials=self.trials)
        sim_dynamic = success_rate(self.book, sold_out=q, hotel_full=h, peak=peak, trials=self.trials)
        chart = line_chart(
            [Series("static plan (exact)", SOLD_OUT_GRID, exact_static, PALETTE["bad"]),
             Series("event-driven (exact)", SOLD_OUT_GRID, exact_dynamic, PALETTE["good"])],
            markers=[Marker(q, sim_static, PALETTE["bad"], f"static, {self.trials} worlds"),
                     Marker(q, sim_dynamic, PALETTE["good"], f"event-driven, {self.trials} worlds")],
            xlim=(0.0, 1.0), ylim=(0.0, 1.0), width=400, height=290, legend="upper right",
            title="Success rate", xlabel="P(a given flight is sold out)", ylabel="trips arranged")
        svg = f"<div style='display:flex;gap:8px;flex-wrap:wrap;align-items:center'>{self.path_picture(run)}{chart}</div>"
        flight = run.details.get("flight")
        got = f" (flight from {flight['city']}, day {flight['day']:+d})" if flight else ""
        i = round(q * 20)
        return svg, (f"world #{self.world.value}: event-driven {' → '.join(run.path)} → {run.state.short}{got}; "
                     f"static → {static_run.state.short}\n"
                     f"reason: {run.reason}\n"
                     f"success over {self.trials} worlds at P(sold out)={q:.2f}: static {sim_static:.0%}, "
                     f"event-driven {sim_dynamic:.0%} (exact {exact_static[i]:.0%} / {exact_dynamic[i]:.0%})")
