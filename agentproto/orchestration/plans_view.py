"""Notebook 15's lab: draw a disrupted world, watch the path through the plan book, compare rates."""

from __future__ import annotations

import random

import ipywidgets as widgets
from matplotlib.figure import Figure

from agentproto.orchestration.lab_view import Lab
from agentproto.orchestration.plans import (
    PlanBook, TripWorld, analytic_success, draw_plan_graph, load_trip_plans, run_plan, success_rate,
)

__all__ = ["PlansLab"]


class PlansLab(Lab):
    """Left: the path one random world forces through the plan book. Right: success rate of the
    static plan and the event-driven book against the sold-out probability (exact curves) with a
    simulated point for the current setting.

    Controls: ``sold_out``, ``hotel_full``, ``peak`` (probabilities) and ``world`` (which random
    world to draw — the same number always draws the same world).
    """

    title = "Plan-switching lab — one world, and the odds over many"

    def __init__(self, book: PlanBook | None = None, *, trials: int = 200, auto: bool = True) -> None:
        self.book = book or load_trip_plans()
        self.trials = trials
        style = {"description_width": "initial"}

        def prob(desc: str, value: float, top: float = 1.0) -> widgets.FloatSlider:
            return widgets.FloatSlider(value=value, min=0.0, max=top, step=0.05, description=desc,
                                       continuous_update=False, readout_format=".2f", style=style)

        self.sold_out = prob("P(flight sold out)", 0.5)
        self.hotel_full = prob("P(hotel full, per try)", 0.1, 0.9)
        self.peak = prob("P(holiday peak)", 0.2)
        self.world = widgets.IntSlider(value=1, min=1, max=50, description="world #",
                                       continuous_update=False, style=style)
        super().__init__([self.sold_out, self.hotel_full, self.peak, self.world], figsize=(12.0, 4.4),
                         auto=auto)

    def draw(self, fig: Figure) -> str:
        q, h, peak = self.sold_out.value, self.hotel_full.value, self.peak.value
        world = TripWorld.random(random.Random(self.world.value), sold_out=q, hotel_full=h, peak=peak)
        run = run_plan(self.book, world, seed=self.world.value, approve=lambda _h, _p: True)
        static_run = run_plan(self.book.static(), world, seed=self.world.value)
        grid = fig.add_gridspec(1, 2, width_ratios=[1.35, 1.0])
        draw_plan_graph(self.book, run, fig.add_subplot(grid[0, 0]))
        ax = fig.add_subplot(grid[0, 1])
        from agentproto.teaching.plots import PALETTE

        qs = [i / 20 for i in range(21)]
        exact_static = [analytic_success(x, hotel_full=h, peak=peak, static=True) for x in qs]
        exact_dynamic = [analytic_success(x, hotel_full=h, peak=peak) for x in qs]
        ax.plot(qs, exact_static, color=PALETTE["bad"], label="static plan (exact)")
        ax.plot(qs, exact_dynamic, color=PALETTE["good"], label="event-driven (exact)")
        sim_static = success_rate(self.book.static(), sold_out=q, hotel_full=h, peak=peak, trials=self.trials)
        sim_dynamic = success_rate(self.book, sold_out=q, hotel_full=h, peak=peak, trials=self.trials)
        ax.plot([q], [sim_static], "o", color=PALETTE["bad"], label=f"simulated ({self.trials} worlds)")
        ax.plot([q], [sim_dynamic], "o", color=PALETTE["good"])
        ax.set_xlabel("P(a given flight is sold out)")
        ax.set_ylabel("trips arranged (fraction)")
        ax.set_ylim(0, 1.02)
        ax.set_title("Success rate")
        ax.legend(fontsize=8, loc="lower left")
        fig.subplots_adjust(left=0.01, right=0.98, top=0.9, bottom=0.12, wspace=0.12)
        flight = run.details.get("flight")
        got = f" (flight from {flight['city']}, day {flight['day']:+d})" if flight else ""
        return (f"world #{self.world.value}: event-driven {' → '.join(run.path)} → {run.state.short}{got}; "
                f"static → {static_run.state.short}\n"
                f"reason: {run.reason}\n"
                f"success over {self.trials} worlds at P(sold out)={q:.2f}: static {sim_static:.0%}, "
                f"event-driven {sim_dynamic:.0%} (exact {exact_static[round(q * 20)]:.0%} / "
                f"{exact_dynamic[round(q * 20)]:.0%})")
