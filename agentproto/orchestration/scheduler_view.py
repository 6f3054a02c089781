"""Notebook 13's lab: arrival rate and class priorities in, waiting times and a Gantt chart out."""

from __future__ import annotations

import ipywidgets as widgets
from matplotlib.figure import Figure

from agentproto.orchestration.lab_view import Lab
from agentproto.orchestration.scheduler import (
    POLICIES, TRAVEL_DESK, compare_policies, plot_gantt, plot_policy_comparison, poisson_workload,
)

__all__ = ["SchedulingLab"]


class SchedulingLab(Lab):
    """Compare FIFO, priority and priority + aging on one seeded travel-desk workload.

    Controls: ``rate`` (requests/s), one priority slider per request class in ``priority``
    (keyed by class name), ``gantt_policy`` (which policy the Gantt chart shows). The summary
    lists waiting times per priority level for every policy.
    """

    title = "Scheduling lab — same requests, three policies"

    def __init__(self, *, rate: float = 0.25, duration: float = 300.0, window: float = 90.0,
                 seed: int = 7, auto: bool = True) -> None:
        self.duration, self.window, self.seed = duration, window, seed
        style = {"description_width": "initial"}
        self.rate = widgets.FloatSlider(value=rate, min=0.05, max=0.45, step=0.01,
                                        description="arrivals / s", continuous_update=False,
                                        readout_format=".2f", style=style)
        self.priority = {
            cls.name: widgets.IntSlider(value=cls.priority, min=1, max=5, description=f"{cls.name} priority",
                                        continuous_update=False, style=style)
            for cls in TRAVEL_DESK
        }
        self.gantt_policy = widgets.Dropdown(options=[p.name for p in POLICIES], value=POLICIES[1].name,
                                             description="Gantt of")
        super().__init__([self.rate, *self.priority.values(), self.gantt_policy],
                         figsize=(11.0, 3.8), auto=auto)

    def draw(self, fig: Figure) -> str:
        prios = {name: s.value for name, s in self.priority.items()}
        specs = poisson_workload(self.rate.value, self.duration, seed=self.seed, priorities=prios)
        results = compare_policies(specs, until=self.duration)
        grid = fig.add_gridspec(1, 2, width_ratios=[1.0, 1.9])
        plot_policy_comparison(results, fig.add_subplot(grid[0, 0]))
        gantt = fig.add_subplot(grid[0, 1])
        shown = results[self.gantt_policy.value]
        plot_gantt(shown, gantt, title=f"First {self.window:g} s under {shown.policy.name}",
                   label_tasks=False)
        gantt.set_xlim(0, self.window)
        fig.subplots_adjust(left=0.07, right=0.98, top=0.9, bottom=0.14, wspace=0.28)
        head = (f"{len(specs)} sub-tasks from requests at {self.rate.value:.2f}/s over "
                f"{self.duration:g} s; priorities " + ", ".join(f"{k}={v}" for k, v in prios.items()))
        return head + "\n" + "\n".join(r.summary() for r in results.values())
