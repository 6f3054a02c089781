"""Notebook 15's pictures and lab: the plan book as a graph, the path a run took, the odds.

The runner and the odds are :mod:`agentproto.orchestration.plans` (they return data, and
:func:`~agentproto.orchestration.plans.plan_edges` is the book as plain edges); this module draws
them. :func:`draw_plan_graph` uses networkx + matplotlib, which is slow (~100 ms), but a plan
book has only a handful of distinct paths: :class:`PlansLab` renders each picture once and caches
it by the path it shows. The lab's success-rate chart is SVG.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Mapping, Sequence
from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

from agentproto.a2a.states import TaskState
from agentproto.course.lab_frame import figure_png
from agentproto.course.plots import PALETTE
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.widgets import lab_slider
from agentproto.orchestration.plans import (
    PLAN_ENDS,
    PlanBook,
    PlanRun,
    TripWorld,
    analytic_success,
    load_trip_plans,
    plan_edges,
    run_plan,
    success_rate,
)

__all__ = ["PlansLab", "plan_graph", "draw_plan_graph", "plot_success_rates", "SOLD_OUT_GRID"]


# -- static figures (networkx + matplotlib) -------------------------------------------------------
def plan_graph(book: PlanBook) -> Any:
    """A ``networkx.MultiDiGraph`` of :func:`~agentproto.orchestration.plans.plan_edges`: plans
    (``kind="plan"``, with their ``title``) and end states (``kind="end"``) as nodes, one edge
    per :class:`~agentproto.orchestration.plans.PlanEdge` with its ``event`` and ``action``."""
    import networkx as nx

    g = nx.MultiDiGraph()
    for name, plan in book.plans.items():
        g.add_node(name, kind="plan", title=plan.title)
    for end in PLAN_ENDS.values():
        g.add_node(end, kind="end")
    for edge in plan_edges(book):
        g.add_edge(edge.source, edge.target, event=edge.event, action=edge.action)
    return g


def _layout(book: PlanBook) -> dict[str, tuple[float, float]]:
    """Plans left to right (start first) on top; end states underneath."""
    order = [book.start] + [p for p in book.plans if p != book.start]
    pos = {name: (2.0 * i, 1.0) for i, name in enumerate(order)}
    right = 2.0 * max(1, len(order) - 1)
    pos.update({"FAILED": (0.0, -0.5), "COMPLETED": (right / 2, -0.5), "ASK HUMAN": (right, -0.5)})
    return pos


def draw_plan_graph(
    book: PlanBook, run: PlanRun | None = None, ax: Any = None, *, title: str | None = None
) -> Any:
    """Draw :func:`plan_graph`; with ``run``, the path it took is thick and coloured.

    Retries and switches to the same plan are listed above their plan instead of drawn as
    loops; the implicit "other event → FAILED" edges are drawn only when a run took one.
    """
    import networkx as nx

    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(9, 4.4))
    g = plan_graph(book)
    pos = _layout(book)
    taken: set[tuple[str, str, str]] = set()  # (source, target node, event)
    visited = {book.start}
    if run is not None:
        for tr in run.transitions:
            dst = tr.target if tr.target in book.plans else PLAN_ENDS.get(tr.target, tr.target)
            taken.add((tr.source, dst, tr.event if tr.action != "unhandled" else "other event"))
            visited.add(dst)
        if run.state is TaskState.COMPLETED:
            taken.add((run.path[-1], "COMPLETED", "all steps done"))
            visited.add("COMPLETED")
    end_colors = {"COMPLETED": PALETTE["good"], "FAILED": PALETTE["bad"], "ASK HUMAN": PALETTE["secondary"]}
    colors = [
        (end_colors.get(n, PALETTE["sky"])) if (run is None or n in visited) else "#e3e3e3" for n in g.nodes
    ]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_size=1300, node_color=colors, edgecolors="black")
    nx.draw_networkx_labels(
        g, pos, {n: n.replace(" ", "\n") for n in g.nodes}, ax=ax, font_size=7, font_weight="bold"
    )
    notes: dict[str, list[str]] = {}
    edge_labels: dict[tuple[str, str], list[str]] = {}
    groups: dict[tuple[bool, bool], list[tuple[str, str]]] = {}  # (on path, unhandled) → edges
    for u, v, data in g.edges(data=True):
        event = data["event"].removesuffix(" (ask)")
        on_path = (u, v, event) in taken
        if u == v:
            notes.setdefault(u, []).append(
                data["event"] if data["action"] == "retry" else f"{data['event']} (restart)"
            )
            continue
        unhandled = data["action"] == "unhandled"
        if unhandled and not on_path:
            continue
        groups.setdefault((on_path, unhandled), []).append((u, v))
        edge_labels.setdefault((u, v), []).append(data["event"])
    for (on_path, unhandled), edges in sorted(groups.items()):
        nx.draw_networkx_edges(
            g,
            pos,
            edgelist=edges,
            ax=ax,
            node_size=1300,
            arrowsize=14,
            width=3.0 if on_path else 1.0,
            edge_color=PALETTE["primary"] if on_path else "#9a9a9a",
            connectionstyle="arc3,rad=0.12",
            style="dotted" if unhandled else "solid",
        )
    nx.draw_networkx_edge_labels(
        g,
        pos,
        edge_labels={k: "\n".join(v) for k, v in edge_labels.items()},
        ax=ax,
        font_size=7,
        connectionstyle="arc3,rad=0.12",
        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8},
    )
    for name, plan in book.plans.items():
        x, y = pos[name]
        ax.text(x, y + 0.28, plan.title, ha="center", fontsize=8)
        for i, note in enumerate(notes.get(name, [])):
            ax.text(x, y + 0.44 + 0.14 * i, "↻ " + note, ha="center", fontsize=7, color="#555555")
    ax.set_xlim(-0.9, max(x for x, _ in pos.values()) + 0.9)
    ax.set_ylim(-0.85, 1.55 + 0.14 * max((len(v) for v in notes.values()), default=0))
    ax.axis("off")
    if title is None:
        title = "Plan book" if run is None else f"Path taken: {' → '.join(run.path)} → {run.state.short}"
    ax.set_title(title)
    return ax


def plot_success_rates(
    rates: Sequence[float],
    sweep: Mapping[str, Sequence[float]],
    ax: Any = None,
    *,
    model: Mapping[str, Any] | None = None,
) -> Any:
    """Success rate vs disruption rate: simulated points, and with ``model`` (keyword arguments
    of :func:`analytic_success`, e.g. ``{"hotel_full": 0.1}``) the exact curves."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    colors = {"static plan": PALETTE["bad"], "event-driven plans": PALETTE["good"]}
    if model is not None:
        grid = [i / 100 for i in range(101)]
        for name, static in (("static plan", True), ("event-driven plans", False)):
            ax.plot(
                grid,
                [analytic_success(q, static=static, **model) for q in grid],
                "-",
                color=colors[name],
                alpha=0.6,
                label=f"{name} (exact)",
            )
    for name, values in sweep.items():
        ax.plot(rates, values, "o", color=colors.get(name), label=f"{name} (simulated)")
    ax.set_xlabel("probability that a given flight is sold out")
    ax.set_ylabel("trips successfully arranged (fraction)")
    ax.set_ylim(0, 1.02)
    ax.set_title("Static plan vs event-driven plans under random disruptions")
    ax.legend(fontsize=8)
    return ax


# -- the lab ----------------------------------------------------------------------------------------
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
        self._pictures: dict[tuple[object, ...], str] = {}

        def prob(desc: str, value: float, top: float = 1.0) -> widgets.FloatSlider:
            return lab_slider(desc, value, 0.0, top, 0.05, readout_format=".2f")

        self.sold_out = prob("P(flight sold out)", 0.5)
        self.hotel_full = prob("P(hotel full, per try)", 0.1, 0.9)
        self.peak = prob("P(holiday peak)", 0.2)
        self.world = lab_slider("world #", 1, 1, 50, integer=True)
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
            [
                Series("static plan (exact)", SOLD_OUT_GRID, exact_static, PALETTE["bad"]),
                Series("event-driven (exact)", SOLD_OUT_GRID, exact_dynamic, PALETTE["good"]),
            ],
            markers=[
                Marker(q, sim_static, PALETTE["bad"], f"static, {self.trials} worlds"),
                Marker(q, sim_dynamic, PALETTE["good"], f"event-driven, {self.trials} worlds"),
            ],
            xlim=(0.0, 1.0),
            ylim=(0.0, 1.0),
            width=400,
            height=290,
            legend="upper right",
            title="Success rate",
            xlabel="P(a given flight is sold out)",
            ylabel="trips arranged",
        )
        svg = (
            f"<div style='display:flex;gap:8px;flex-wrap:wrap;align-items:center'>"
            f"{self.path_picture(run)}{chart}</div>"
        )
        flight = run.details.get("flight")
        got = f" (flight from {flight['city']}, day {flight['day']:+d})" if flight else ""
        i = round(q * 20)
        return svg, (
            f"world #{self.world.value}: event-driven {' → '.join(run.path)} → "
            f"{run.state.short}{got}; "
            f"static → {static_run.state.short}\n"
            f"reason: {run.reason}\n"
            f"success over {self.trials} worlds at P(sold out)={q:.2f}: static {sim_static:.0%}, "
            f"event-driven {sim_dynamic:.0%} (exact {exact_static[i]:.0%} / {exact_dynamic[i]:.0%})"
        )
