"""Notebook 13's pictures and lab: who ran when, who waited how long, and starvation.

The scheduler is :mod:`agentproto.orchestration.scheduler` (it returns a
:class:`~agentproto.orchestration.scheduler.ScheduleResult`); this module draws it.
:func:`plot_gantt`, :func:`plot_policy_comparison` and :func:`plot_starvation` are the notebook's
static matplotlib figures. :class:`SchedulingLab` draws SVG (:mod:`agentproto.course.charts`) so
that a redraw costs the simulation (~30 ms for three policies) plus about a millisecond of drawing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import ipywidgets as widgets

from agentproto.course.charts import BarSeries, GanttBar, bar_chart, gantt_chart
from agentproto.course.plots import PALETTE
from agentproto.course.svg import SvgLab
from agentproto.course.widgets import lab_slider
from agentproto.orchestration.scheduler import (
    POLICIES,
    PRIORITY_AGING,
    TRAVEL_DESK,
    ArrivalRatePoint,
    Policy,
    ScheduleResult,
    compare_policies,
    poisson_workload,
)

__all__ = [
    "SchedulingLab",
    "waiting_chart",
    "gantt_svg",
    "priority_colors",
    "plot_gantt",
    "plot_policy_comparison",
    "plot_starvation",
]


# -- static figures (matplotlib) ------------------------------------------------------------------
def priority_colors() -> dict[int, str]:
    """Bar colour per priority level (1 = muted grey … 3 = urgent red), shared by every chart."""
    return {
        1: PALETTE["muted"],
        2: PALETTE["primary"],
        3: PALETTE["bad"],
        4: PALETTE["accent"],
        5: PALETTE["secondary"],
    }


def plot_gantt(
    result: ScheduleResult, ax: Any = None, *, title: str | None = None, label_tasks: bool | None = None
) -> Any:
    """Who ran when: one row per agent, bars coloured by priority, preemptions marked ✕.

    Bars are grouped per (agent, priority) into one ``broken_barh`` call each, so a Gantt of
    hundreds of bars still draws quickly. Returns the axes.
    """
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(9, 0.9 + 0.6 * len(result.agents)))
    colors = priority_colors()
    rows = {name: i for i, name in enumerate(result.agents)}
    groups: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for seg in result.segments:
        groups.setdefault((seg.agent, seg.priority), []).append((seg.start, seg.end - seg.start))
    seen: set[int] = set()
    for (agent, prio), bars in sorted(groups.items()):
        ax.broken_barh(
            bars,
            (rows[agent] - 0.35, 0.7),
            facecolors=colors.get(prio, "#333333"),
            edgecolor="white",
            linewidth=0.5,
            label=None if prio in seen else f"priority {prio}",
        )
        seen.add(prio)
    if label_tasks is None:
        label_tasks = len(result.segments) <= 12
    if label_tasks:
        for seg in result.segments:
            ax.text(
                (seg.start + seg.end) / 2,
                rows[seg.agent],
                seg.task_id,
                ha="center",
                va="center",
                fontsize=8,
                color="white",
                clip_on=True,
            )
    if result.preemptions:
        ax.scatter(
            [p.time for p in result.preemptions],
            [rows[p.agent] + 0.42 for p in result.preemptions],
            marker="x",
            color="black",
            s=30,
            zorder=3,
            label="preemption",
        )
    ax.set_yticks(range(len(result.agents)), list(result.agents))
    ax.set_ylim(-0.6, len(result.agents) - 0.3)
    ax.invert_yaxis()
    ax.set_xlabel("virtual time (s)")
    ax.set_title(title if title is not None else f"Who ran when — {result.policy.name}", loc="left")
    ax.legend(
        loc="lower right",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
        ncols=len(seen) + 1,
        borderaxespad=0.2,
        handlelength=1.2,
        columnspacing=1.0,
    )
    return ax


def plot_policy_comparison(
    results: Mapping[str, ScheduleResult], ax: Any = None, *, show_max: bool = True
) -> Any:
    """Grouped bars of mean waiting time per priority level, one group per policy.

    With ``show_max`` a black tick above each bar marks the worst wait of that level — the
    number that reveals starvation, which a mean hides.
    """
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    colors = priority_colors()
    names = list(results)
    prios = sorted({s.priority for r in results.values() for s in r.by_priority()}, reverse=True)
    width = 0.8 / max(1, len(prios))
    tick_x: list[float] = []
    tick_y: list[float] = []
    for j, prio in enumerate(prios):
        means = []
        xs = [i + (j - (len(prios) - 1) / 2) * width for i in range(len(names))]
        for x, name in zip(xs, names):
            s = {st.priority: st for st in results[name].by_priority()}.get(prio)
            means.append(0.0 if s is None else s.mean_wait)
            if s is not None:
                tick_x.append(x)
                tick_y.append(s.max_wait)
        ax.bar(xs, means, width, color=colors.get(prio, "#333333"), label=f"priority {prio}")
    if show_max and tick_x:
        ax.scatter(tick_x, tick_y, marker="_", s=120, color="black", linewidths=2, label="worst wait")
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("waiting time (s)")
    ax.set_title("Mean wait per priority" + (" (tick = worst)" if show_max else ""))
    ax.legend(fontsize=8)
    return ax


def plot_starvation(points: Sequence[ArrivalRatePoint], ax: Any = None, *, priority: int = 1) -> Any:
    """Worst waiting time of one priority level against arrival rate, one line per policy."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    styles = [PALETTE["muted"], PALETTE["bad"], PALETTE["good"], PALETTE["primary"], PALETTE["accent"]]
    names = list(dict.fromkeys(p.policy for p in points))
    for color, name in zip(styles * 2, names):
        mine = [p for p in points if p.policy == name]
        ax.plot(
            [p.rate for p in mine],
            [p.max_wait.get(priority, 0.0) for p in mine],
            marker="o",
            color=color,
            label=name,
        )
    ax.set_xlabel("arrival rate (requests/s)")
    ax.set_ylabel(f"worst wait of priority {priority} (s)")
    ax.set_title(f"Starvation: how long priority-{priority} work can wait")
    ax.legend(fontsize=8)
    return ax


# -- the lab (SVG) ----------------------------------------------------------------------------------
def waiting_chart(results: dict[str, ScheduleResult], *, width: int = 380, height: int = 290) -> str:
    """SVG: mean wait per priority level and policy, with a tick at the worst wait."""
    colors = priority_colors()
    names = list(results)
    stats = {name: {s.priority: s for s in r.by_priority()} for name, r in results.items()}
    prios = sorted({p for st in stats.values() for p in st}, reverse=True)
    series = [
        BarSeries(
            f"priority {p}",
            [stats[n][p].mean_wait if p in stats[n] else 0.0 for n in names],
            colors.get(p, "#333333"),
        )
        for p in prios
    ]
    ticks = [
        (i, j, stats[n][p].max_wait)
        for i, n in enumerate(names)
        for j, p in enumerate(prios)
        if p in stats[n]
    ]
    return bar_chart(
        names,
        series,
        ticks=ticks,
        tick_label="worst wait",
        width=width,
        height=height,
        title="Mean wait per priority (tick = worst)",
        ylabel="waiting time (s)",
    )


def gantt_svg(result: ScheduleResult, window: float, *, width: int = 520, height: int = 290) -> str:
    """SVG Gantt chart of the first ``window`` seconds, preemptions marked ✕."""
    colors = priority_colors()
    bars = [GanttBar(s.agent, s.start, s.end, colors.get(s.priority, "#333333")) for s in result.segments]
    prios = sorted({s.priority for s in result.segments}, reverse=True)
    return gantt_chart(
        list(result.agents),
        bars,
        xlim=(0.0, window),
        crosses=[(p.agent, p.time) for p in result.preemptions],
        legend=[(f"priority {p}", colors.get(p, "#333333")) for p in prios],
        width=width,
        height=height,
        title=f"First {window:g} s under {result.policy.name}",
        xlabel="virtual time (s)",
    )


class SchedulingLab(SvgLab):
    """Compare FIFO, priority and priority + aging on one seeded travel-desk workload.

    Controls: ``rate`` (requests/s), one priority slider per request class in ``priority``
    (keyed by class name), ``ceiling`` (the aging policy's ceiling: aging never lifts a task above
    it) and ``gantt_policy`` (which policy the Gantt chart shows). The summary lists waiting times
    per priority level for every policy. The ceiling is absolute, so it only means what it says
    for the priorities it was chosen for: move a class above it and aging no longer reorders that
    class (the notebook shows such a case).
    """

    title = "Scheduling lab — same requests, three policies"

    def __init__(
        self,
        *,
        rate: float = 0.25,
        duration: float = 300.0,
        window: float = 90.0,
        seed: int = 7,
        auto: bool = True,
    ) -> None:
        self.duration, self.window, self.seed = duration, window, seed
        self.rate = lab_slider("arrivals / s", rate, 0.05, 0.45, 0.01, readout_format=".2f")
        self.priority = {
            cls.name: lab_slider(f"{cls.name} priority", cls.priority, 1, 5, integer=True)
            for cls in TRAVEL_DESK
        }
        self.ceiling = lab_slider(
            "aging ceiling", PRIORITY_AGING.ceiling, 1.5, 5.5, 0.5, readout_format=".1f"
        )
        self.gantt_policy = widgets.Dropdown(
            options=[p.name for p in POLICIES], value=POLICIES[1].name, description="Gantt of"
        )
        super().__init__([self.rate, *self.priority.values(), self.ceiling, self.gantt_policy], auto=auto)

    def policies(self) -> tuple[Policy, ...]:
        """FIFO, priority, and priority + aging with the ceiling the slider sets."""
        aging = replace(PRIORITY_AGING, ceiling=self.ceiling.value)
        return tuple(aging if p is PRIORITY_AGING else p for p in POLICIES)

    def render(self) -> tuple[str, str]:
        prios = {name: s.value for name, s in self.priority.items()}
        specs = poisson_workload(self.rate.value, self.duration, seed=self.seed, priorities=prios)
        results = compare_policies(specs, self.policies(), until=self.duration)
        svg = (
            f"<div style='display:flex;gap:8px;flex-wrap:wrap'>{waiting_chart(results)}"
            f"{gantt_svg(results[self.gantt_policy.value], self.window)}</div>"
        )
        head = (
            f"{len(specs)} sub-tasks from requests at {self.rate.value:.2f}/s over "
            f"{self.duration:g} s; priorities "
            + ", ".join(f"{k}={v}" for k, v in prios.items())
            + f"; aging ceiling {self.ceiling.value:g}"
        )
        return svg, head + "\n" + "\n".join(r.summary() for r in results.values())
