"""Notebook 18's step widget: watch a wait-for graph evolve under each deadlock strategy.

:class:`DeadlockExplorer` runs :func:`~agentproto.orchestration.deadlock.simulate` for the chosen
plan and strategy and steps through the recorded :class:`~agentproto.orchestration.deadlock.Frame`
objects with the course's :class:`~agentproto.course.Stepper`. Each frame is drawn as a small
hand-written SVG (no matplotlib round trip), so stepping redraws in a few milliseconds.

Drive it from code exactly as a learner would::

    ex = DeadlockExplorer({"travel": plan})
    ex.strategy.value = "timeout"
    ex.stepper.next_button.click()
    ex.summary.value          # the run's outcome in one line
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets

from agentproto.a2a.states import TaskState
from agentproto.orchestration.deadlock import (
    Frame, Plan, RunResult, Strategy, TimeoutPolicy, circle_layout, format_cycle, simulate,
)
from agentproto.course.plots import PALETTE, STATE_COLORS
from agentproto.course.widgets import Stepper

__all__ = ["DeadlockExplorer", "frame_svg"]

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


def frame_svg(plan: Plan, frame: Frame) -> str:
    """The wait-for graph right after ``frame``: declared dependencies grey, undiscovered hidden
    ones faint and dashed, current waits orange, a deadlock cycle red, defaults green dotted;
    nodes coloured by A2A task state."""
    pos = {n: _point(p) for n, p in circle_layout(plan.tasks).items()}
    waits = set(frame.waits)
    cyc = frame.cycle
    on_cycle = {(cyc[k], cyc[(k + 1) % len(cyc)]) for k in range(len(cyc))} if cyc else set()
    defaults = set(frame.defaults)
    declared = set(plan.edges(include_hidden=False))
    colors = {"plain": "#9a9a9a", "hidden": "#c8c8c8", "wait": PALETTE["secondary"], "cycle": PALETTE["bad"],
              "default": PALETTE["good"]}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" viewBox="0 0 {_W} {_H}" '
             'font-family="sans-serif">', "<defs>"]
    for key, col in colors.items():
        parts.append(f'<marker id="dl-{key}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                     f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{col}"/></marker>')
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
        parts.append(f'<path d="{d}" fill="none" stroke="{colors[kind]}" stroke-width="{width}"{dash} '
                     f'marker-end="url(#dl-{kind})"/>')
        label = "default" if kind == "default" else plan.needs.get((a, b), "")
        if label and kind != "hidden":
            parts.append(f'<text x="{cx:.1f}" y="{cy:.1f}" font-size="9" text-anchor="middle" '
                         f'fill="{colors[kind] if kind != "plain" else "#555"}">{html.escape(label)}</text>')
    for name in plan.tasks:
        x, y = pos[name]
        state = frame.states.get(name, TaskState.SUBMITTED)
        fill = STATE_COLORS.get(state.short, PALETTE["muted"])
        ring = PALETTE["bad"] if name in cyc else "white"
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_R}" fill="{fill}" stroke="{ring}" stroke-width="3"/>')
        parts.append(f'<text x="{x:.1f}" y="{y + 3:.1f}" font-size="10" font-weight="bold" fill="white" '
                     f'text-anchor="middle">{html.escape(name)}</text>')
        waiting = any(w[0] == name for w in waits) and state not in (TaskState.INPUT_REQUIRED,)
        tag = state.short + (" · waiting" if waiting else "")
        parts.append(f'<text x="{x:.1f}" y="{y + _R + 12:.1f}" font-size="9" fill="#333" '
                     f'text-anchor="middle">{html.escape(tag)}</text>')
    parts.append("</svg>")
    return "".join(parts)


_LEGEND = (
    "<div style='font-size:11px;color:#444'>edges: "
    f"<span style='color:#9a9a9a'>━ dependency</span> · <span style='color:#b5b5b5'>┅ not yet discovered</span> · "
    f"<span style='color:{PALETTE['secondary']}'>━ waiting now</span> · "
    f"<span style='color:{PALETTE['bad']}'>━ deadlock cycle</span> · "
    f"<span style='color:{PALETTE['good']}'>┈ replaced by a default</span>; nodes coloured by A2A task state</div>"
)


class DeadlockExplorer:
    """Pick a plan and a strategy; step through the run and watch the wait-for graph.

    Controls: ``plan`` (Dropdown of plan names), ``strategy`` (ToggleButtons of
    :class:`~agentproto.orchestration.deadlock.Strategy` values) and the stepper's
    ``prev_button`` / ``next_button`` / ``reset_button`` / ``slider``. ``summary`` (HTML) shows
    the run's outcome; ``run`` is the current :class:`~agentproto.orchestration.deadlock.RunResult`.
    """

    title = "Deadlock explorer"

    def __init__(self, plans: Mapping[str, Plan], *, strategy: Strategy | str = Strategy.NONE,
                 timeout: TimeoutPolicy | None = None, human_delay: float = 120.0) -> None:
        if not plans:
            raise ValueError("give the explorer at least one plan")
        self.plans = dict(plans)
        self.timeout, self.human_delay = timeout, human_delay
        self.plan = widgets.Dropdown(options=list(self.plans), description="plan")
        self.strategy = widgets.ToggleButtons(options=[s.value for s in Strategy], value=Strategy(strategy).value,
                                              description="strategy", style={"button_width": "150px"})
        self.summary = widgets.HTML()
        self.run: RunResult | None = None
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
        return Stepper(self.run.frames, lambda i, f: self.render(plan, f), title=f"{plan.name} · {self.strategy.value}")

    def render(self, plan: Plan, frame: Frame) -> str:
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
        self._box.children = [header, widgets.HBox([self.plan]), self.strategy, self.stepper.widget(), self.summary]

    def widget(self) -> widgets.VBox:
        return self._box

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = self._box._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"{type(self).__name__}: {self.title}"
        return bundle

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.title}>"
