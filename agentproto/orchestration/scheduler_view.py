"""Notebook 13's lab: arrival rate and class priorities in, waiting times and a Gantt chart out.

Drawn as SVG (:mod:`agentproto.course.charts`) so that a redraw costs the
simulation (~30 ms for three policies) plus about a millisecond of drawing.
"""

from __future__ import annotations

import ipywidgets as widgets

from agentproto.course.charts import BarSeries, GanttBar, bar_chart, gantt_chart
from agentproto.orchestration.scheduler import (
    POLICIES, TRAVEL_DESK, ScheduleResult, compare_policies, poisson_workload, priority_colors,
)
from agentproto.course.svg import SvgLab

__all__ = ["SchedulingLab", "waiting_chart", "gantt_svg"]


def waiting_chart(results: dict[str, ScheduleResult], *, width: int = 380, height: int = 290) -> str:
    """SVG: mean wait per priority level and policy, with a tick at the worst wait."""
    colors = priority_colors()
    names = list(results)
    stats = {name: {s.priority: s for s in r.by_priority()} for name, r in results.items()}
    prios = sorted({p for st in stats.values() for p in st}, reverse=True)
    series = [BarSeries(f"priority {p}", [stats[n][p].mean_wait if p in stats[n] else 0.0 for n in names],
                        colors.get(p, "#333333")) for p in prios]
    ticks = [(i, j, stats[n][p].max_wait) for i, n in enumerate(names) for j, p in enumerate(prios)
             if p in stats[n]]
    return bar_chart(names, series, ticks=ticks, tick_label="worst wait", width=width, height=height,
                     title="Mean wait per priority (tick = worst)", ylabel="waiting time (s)")


def gantt_svg(result: ScheduleResult, window: float, *, width: int = 520, height: int = 290) -> str:
    """SVG Gantt chart of the first ``window`` seconds, preemptions marked ✕."""
    colors = priority_colors()
    bars = [GanttBar(s.agent, s.start, s.end, colors.get(s.priority, "#333333")) for s in result.segments]
    prios = sorted({s.priority for s in result.segments}, reverse=True)
    return gantt_chart(list(result.agents), bars, xlim=(0.0, window),
                       crosses=[(p.agent, p.time) for p in result.preemptions],
                       legend=[(f"priority {p}", colors.get(p, "#333333")) for p in prios],
                       width=width, height=height, title=f"First {window:g} s under {result.policy.name}",
                       xlabel="virtual time (s)")


class SchedulingLab(SvgLab):
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
        super().__init__([self.rate, *self.priority.values(), self.gantt_policy], auto=auto)

    def render(self) -> tuple[str, str]:
        prios = {name: s.value for name, s in self.priority.items()}
        specs = poisson_workload(self.rate.value, self.duration, seed=self.seed, priorities=prios)
        results = compare_policies(specs, until=self.duration)
        svg = (f"<div style='display:flex;gap:8px;flex-wrap:wrap'>{waiting_chart(results)}"
               f"{gantt_svg(results[self.gantt_policy.value], self.window)}</div>")
        head = (f"{len(specs)} sub-tasks from requests at {self.rate.value:.2f}/s over "
                f"{self.duration:g} s; priorities " + ", ".join(f"{k}={v}" for k, v in prios.items()))
        return svg, head + "\n" + "\n".join(r.summary() for r in results.values())
