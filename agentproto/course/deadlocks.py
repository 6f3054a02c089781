"""Notebook 18's pictures: wait-for graphs, the step widget, and the strategy sweeps.

The simulation is :mod:`agentproto.orchestration.deadlock` (and the graph algorithms
:mod:`agentproto.orchestration.waitgraph`); both return data. This module draws it:

* :func:`plot_wait_for_graph` — a plan or graph with matplotlib: hidden dependencies dashed, a
  cycle in red, nodes coloured by A2A task state;
* :func:`plot_sweep` and :func:`plot_timeout_ttl_tradeoff` — the strategy sweep and the TTL
  trade-off of the ``timeout`` strategy;
* :class:`DeadlockExplorer` — runs :func:`~agentproto.orchestration.deadlock.simulate` for the
  chosen plan and strategy and steps through the recorded
  :class:`~agentproto.orchestration.deadlock.DeadlockFrame` objects with the course's
  :class:`~agentproto.course.Stepper`. Each frame is drawn as a small hand-written SVG
  (:func:`frame_svg`, no matplotlib round trip), so stepping redraws in a few milliseconds.

Drive the explorer from code exactly as a learner would::

    ex = DeadlockExplorer({"travel": plan})
    ex.strategy.value = "timeout"
    ex.stepper.next_button.click()
    ex.summary.value          # the run's outcome in one line
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets

from agentproto.a2a.states import TaskState
from agentproto.course.plots import PALETTE, STATE_COLORS
from agentproto.course.widgets import Stepper
from agentproto.orchestration.deadlock import (
    DeadlockFrame,
    DeadlockRun,
    Strategy,
    SweepResult,
    TimeoutPolicy,
    simulate,
)
from agentproto.orchestration.waitgraph import WaitPlan, format_cycle, wait_for_graph

__all__ = [
    "DeadlockExplorer",
    "frame_svg",
    "circle_layout",
    "plot_wait_for_graph",
    "plot_sweep",
    "plot_timeout_ttl_tradeoff",
]


# -- matplotlib pictures --------------------------------------------------------------------------
_STYLE = {
    Strategy.NONE: dict(color="#999999", marker="o", linestyle="-"),
    Strategy.TIMEOUT: dict(color="#E69F00", marker="s", linestyle="--"),
    Strategy.DETECTION: dict(color="#0072B2", marker="^", linestyle="-"),
    Strategy.ESCALATION: dict(color="#009E73", marker="D", linestyle=":"),
}


def _percent(values: Sequence[float | None]) -> list[float]:
    return [math.nan if v is None else 100 * v for v in values]


def plot_sweep(result: SweepResult, fig: Any = None) -> Any:
    """Three panels against dependency density: deadlock frequency, time to recovery (``none``
    drawn at the horizon: it never recovers), and the share of tasks completed."""
    import matplotlib.pyplot as plt

    fig = fig or plt.figure(figsize=(12, 3.8))
    axes = fig.subplots(1, 3)
    for s in Strategy:
        xs, freq = result.series(s, "deadlock_frequency")
        if not xs:
            continue
        _, rec = result.series(s, "mean_recovery")
        _, never = result.series(s, "unrecovered")
        _, done = result.series(s, "completion")
        style = _STYLE[s]
        axes[0].plot(xs, _percent(freq), label=s.value, **style)
        shown = [result.horizon if (n or 0) >= 0.999 else r for r, n in zip(rec, never)]
        axes[1].plot(xs, [math.nan if v is None else v for v in shown], label=s.value, **style)
        axes[2].plot(xs, _percent(done), label=s.value, **style)
    xs, cyc = result.series(result.points[0].strategy, "cyclic_plans")
    axes[0].plot(xs, _percent(cyc), color="black", linewidth=0.8, label="plans with a cycle")
    axes[0].set(
        title="Deadlocks that actually happen",
        xlabel="dependency density (P[edge])",
        ylabel="runs with a deadlock (%)",
        ylim=(-3, 103),
    )
    axes[1].set(
        title="Time to recovery",
        xlabel="dependency density (P[edge])",
        ylabel="mean seconds from cycle to recovery",
        yscale="symlog",
    )
    axes[1].text(
        0.03,
        0.8,
        f"none: never recovers (cut off at {result.horizon:g} s)",
        fontsize=8,
        color="#555555",
        transform=axes[1].transAxes,
    )
    axes[2].set(
        title="Work that gets done",
        xlabel="dependency density (P[edge])",
        ylabel="tasks completed (%)",
        ylim=(-3, 103),
    )
    axes[2].legend(*axes[0].get_legend_handles_labels(), fontsize=8, loc="lower left")
    fig.tight_layout()
    return fig


def plot_timeout_ttl_tradeoff(rows: Sequence[Mapping[str, float]], ax: Any = None) -> Any:
    """The ``timeout`` strategy's TTL trade-off (rows of
    :func:`~agentproto.orchestration.deadlock.ttl_tradeoff`): spurious exits and recovery time
    against the TTL, on two y axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.6))
    ttl = [r["ttl"] for r in rows]
    ax.plot(
        ttl,
        [r["spurious_exits"] for r in rows],
        marker="o",
        color="#D55E00",
        label="healthy waits killed (per run)",
    )
    ax.set(xlabel="TTL (s)", ylabel="spurious exits per run", title="The TTL trade-off")
    twin = ax.twinx()
    twin.plot(
        ttl,
        [r["mean_recovery"] for r in rows],
        marker="s",
        color="#0072B2",
        label="time to break a real deadlock (s)",
    )
    twin.set_ylabel("mean recovery time (s)")
    twin.grid(False)
    lines = ax.get_lines() + twin.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], loc="center right", fontsize=8)
    return ax


def circle_layout(names: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Tasks on a circle, the first at the top, clockwise."""
    n = max(1, len(names))
    return {
        name: (math.sin(2 * math.pi * i / n), math.cos(2 * math.pi * i / n)) for i, name in enumerate(names)
    }


def plot_wait_for_graph(
    plan_or_graph: WaitPlan | Mapping[str, Iterable[str]],
    *,
    cycle: Sequence[str] = (),
    states: Mapping[str, TaskState] | None = None,
    ax: Any = None,
    title: str = "Wait-for graph (A → B: A waits for B)",
) -> Any:
    """Draw a wait-for graph: hidden dependencies dashed, a cycle in red, nodes coloured by state."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    if isinstance(plan_or_graph, WaitPlan):
        plan = plan_or_graph
        names = list(plan.tasks)
        declared = {(a, b) for a, b in plan.edges(include_hidden=False)}
        edges = plan.edges()
    else:
        g = wait_for_graph(plan_or_graph)
        names, declared, plan = list(g), {(a, b) for a in g for b in g[a]}, None
        edges = sorted(declared)
    if ax is None:
        _, ax = plt.subplots(figsize=(5, 4))
    pos = circle_layout(names)
    on_cycle = {(cycle[k], cycle[(k + 1) % len(cycle)]) for k in range(len(cycle))} if cycle else set()
    for a, b in edges:
        red = (a, b) in on_cycle
        ax.add_patch(
            FancyArrowPatch(
                pos[a],
                pos[b],
                arrowstyle="-|>",
                mutation_scale=14,
                shrinkA=22,
                shrinkB=22,
                connectionstyle="arc3,rad=0.15",
                linewidth=2.2 if red else 1.2,
                linestyle="-" if (a, b) in declared else "--",
                color=PALETTE["bad"] if red else "#555555",
            )
        )
        if plan is not None and (a, b) in plan.needs:
            # the midpoint of matplotlib's arc3 curve: half the control point's offset from the chord
            dx, dy = pos[b][0] - pos[a][0], pos[b][1] - pos[a][1]
            mx = (pos[a][0] + pos[b][0]) / 2 + 0.5 * 0.15 * dy
            my = (pos[a][1] + pos[b][1]) / 2 - 0.5 * 0.15 * dx
            ax.text(
                mx,
                my,
                plan.needs[(a, b)],
                fontsize=7,
                ha="center",
                va="center",
                color="#333333",
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8),
            )
    for name in names:
        state = (states or {}).get(name, TaskState.SUBMITTED)
        ax.scatter(
            *pos[name],
            s=1500,
            color=STATE_COLORS.get(state.short, PALETTE["muted"]),
            zorder=3,
            edgecolors=PALETTE["bad"] if name in cycle else "white",
            linewidths=2,
        )
        ax.text(
            *pos[name],
            name,
            ha="center",
            va="center",
            fontsize=7 if len(name) > 6 else 8,
            color="white",
            zorder=4,
            fontweight="bold",
        )
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title)
    return ax


# -- the step widget (SVG) --------------------------------------------------------------------------
_W, _H, _R = 380, 300, 27


def _point(pos: tuple[float, float]) -> tuple[float, float]:
    return _W / 2 + pos[0] * 125, _H / 2 - 8 - pos[1] * 110


def _edge_path(a: tuple[float, float], b: tuple[float, float]) -> tuple[str, float, float]:
    """A gently curved edge from circle ``a`` to circle ``b`` (so a→b and b→a do not overlap)."""
    (x1, y1), (x2, y2) = a, b
    dx, dy = x2 - x1, y2 - y1
    dist = math.hypot(dx, dy) or 1.0
    ux, uy = dx / dist, dy / dist
    nx_, ny_ = -uy, ux  # left normal
    bend = 16.0
    sx, sy = x1 + ux * _R + nx_ * 6, y1 + uy * _R + ny_ * 6
    ex, ey = x2 - ux * (_R + 3) + nx_ * 6, y2 - uy * (_R + 3) + ny_ * 6
    cx, cy = (x1 + x2) / 2 + nx_ * bend, (y1 + y2) / 2 + ny_ * bend
    return f"M{sx:.1f},{sy:.1f} Q{cx:.1f},{cy:.1f} {ex:.1f},{ey:.1f}", cx, cy


def frame_svg(plan: WaitPlan, frame: DeadlockFrame) -> str:
    """The wait-for graph right after ``frame``: declared dependencies grey, undiscovered hidden
    ones faint and dashed, current waits orange, a deadlock cycle red, defaults green dotted;
    nodes coloured by A2A task state."""
    pos = {n: _point(p) for n, p in circle_layout(plan.tasks).items()}
    waits = set(frame.waits)
    cyc = frame.cycle
    on_cycle = {(cyc[k], cyc[(k + 1) % len(cyc)]) for k in range(len(cyc))} if cyc else set()
    defaults = set(frame.defaults)
    declared = set(plan.edges(include_hidden=False))
    colors = {
        "plain": "#9a9a9a",
        "hidden": "#c8c8c8",
        "wait": PALETTE["secondary"],
        "cycle": PALETTE["bad"],
        "default": PALETTE["good"],
    }
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" viewBox="0 0 {_W} {_H}" '
        'font-family="sans-serif">',
        "<defs>",
    ]
    for key, col in colors.items():
        parts.append(
            f'<marker id="dl-{key}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{col}"/></marker>'
        )
    parts.append("</defs>")
    for a, b in plan.edges():
        if (a, b) in on_cycle:
            kind, width, dash = "cycle", 3.2, ""
        elif (a, b) in defaults:
            kind, width, dash = "default", 2.0, ' stroke-dasharray="2,4"'
        elif (a, b) in waits:
            kind, width, dash = "wait", 2.6, ""
        elif (a, b) in declared:
            kind, width, dash = "plain", 1.3, ""
        else:
            kind, width, dash = "hidden", 1.2, ' stroke-dasharray="5,4"'
        d, cx, cy = _edge_path(pos[a], pos[b])
        parts.append(
            f'<path d="{d}" fill="none" stroke="{colors[kind]}" stroke-width="{width}"{dash} '
            f'marker-end="url(#dl-{kind})"/>'
        )
        label = "default" if kind == "default" else plan.needs.get((a, b), "")
        if label and kind != "hidden":
            parts.append(
                f'<text x="{cx:.1f}" y="{cy:.1f}" font-size="9" text-anchor="middle" '
                f'fill="{colors[kind] if kind != "plain" else "#555"}">{html.escape(label)}</text>'
            )
    for name in plan.tasks:
        x, y = pos[name]
        state = frame.states.get(name, TaskState.SUBMITTED)
        fill = STATE_COLORS.get(state.short, PALETTE["muted"])
        ring = PALETTE["bad"] if name in cyc else "white"
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_R}" fill="{fill}" stroke="{ring}" stroke-width="3"/>'
        )
        parts.append(
            f'<text x="{x:.1f}" y="{y + 3:.1f}" font-size="10" font-weight="bold" fill="white" '
            f'text-anchor="middle">{html.escape(name)}</text>'
        )
        waiting = any(w[0] == name for w in waits) and state not in (TaskState.INPUT_REQUIRED,)
        tag = state.short + (" · waiting" if waiting else "")
        parts.append(
            f'<text x="{x:.1f}" y="{y + _R + 12:.1f}" font-size="9" fill="#333" '
            f'text-anchor="middle">{html.escape(tag)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


_LEGEND = (
    "<div style='font-size:11px;color:#444'>edges: "
    f"<span style='color:#9a9a9a'>━ dependency</span> · <span style='color:#b5b5b5'>┅ not yet "
    f"discovered</span> · "
    f"<span style='color:{PALETTE['secondary']}'>━ waiting now</span> · "
    f"<span style='color:{PALETTE['bad']}'>━ deadlock cycle</span> · "
    f"<span style='color:{PALETTE['good']}'>┈ replaced by a default</span>; nodes coloured by A2A task "
    f"state</div>"
)


class DeadlockExplorer:
    """Pick a plan and a strategy; step through the run and watch the wait-for graph.

    Controls: ``plan`` (Dropdown of plan names), ``strategy`` (ToggleButtons of
    :class:`~agentproto.orchestration.deadlock.Strategy` values) and the stepper's
    ``prev_button`` / ``next_button`` / ``reset_button`` / ``slider``. ``summary`` (HTML) shows
    the run's outcome; ``run`` is the current :class:`~agentproto.orchestration.deadlock.DeadlockRun`.
    """

    title = "Deadlock explorer"

    def __init__(
        self,
        plans: Mapping[str, WaitPlan],
        *,
        strategy: Strategy | str = Strategy.NONE,
        timeout: TimeoutPolicy | None = None,
        human_delay: float = 120.0,
    ) -> None:
        if not plans:
            raise ValueError("give the explorer at least one plan")
        self.plans = dict(plans)
        self.timeout, self.human_delay = timeout, human_delay
        self.plan = widgets.Dropdown(options=list(self.plans), description="plan")
        self.strategy = widgets.ToggleButtons(
            options=[s.value for s in Strategy],
            value=Strategy(strategy).value,
            description="strategy",
            style={"button_width": "150px"},
        )
        self.summary = widgets.HTML()
        self.run: DeadlockRun | None = None
        self.stepper: Stepper = self._make_stepper()
        self._box = widgets.VBox()
        self._layout()
        self.plan.observe(lambda _c: self.rerun(), names="value")
        self.strategy.observe(lambda _c: self.rerun(), names="value")

    # -- model ---------------------------------------------------------------------------
    def _make_stepper(self) -> Stepper:
        plan = self.plans[self.plan.value]
        self.run = simulate(plan, self.strategy.value, timeout=self.timeout, human_delay=self.human_delay)
        self.summary.value = f"<b>Outcome</b> — {html.escape(self.run.summary())}"
        return Stepper(
            self.run.frames, lambda i, f: self.render(plan, f), title=f"{plan.name} · {self.strategy.value}"
        )

    def render(self, plan: WaitPlan, frame: DeadlockFrame) -> str:
        """HTML for one frame: what happened, the graph, the legend."""
        what = html.escape(frame.message)
        if frame.cycle:
            what += f" <span style='color:{PALETTE['bad']}'>[{html.escape(format_cycle(frame.cycle))}]</span>"
        caption = f"<div><code>t = {frame.time:g} s</code> · <b>{html.escape(frame.task)}</b>: {what}</div>"
        return caption + frame_svg(plan, frame) + _LEGEND

    def rerun(self) -> None:
        """Re-simulate after a control changed and start again at step 1."""
        self.stepper = self._make_stepper()
        self._layout()

    # -- display -----------------------------------------------------------------------------
    def _layout(self) -> None:
        header = widgets.HTML(f"<b>{html.escape(self.title)}</b>")
        self._box.children = [
            header,
            widgets.HBox([self.plan]),
            self.strategy,
            self.stepper.widget(),
            self.summary,
        ]

    def widget(self) -> widgets.VBox:
        return self._box

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = self._box._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"{type(self).__name__}: {self.title}"
        return bundle

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.title}>"
