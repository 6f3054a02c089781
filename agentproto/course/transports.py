"""Notebook 01's pictures and widget: one agent run, four transports.

The model is :mod:`agentproto.orchestration.transports` (it returns
:class:`~agentproto.orchestration.transports.TransportResult` objects); this module shows them.
:func:`summary_table` prints the headline numbers, :func:`plot_comparison` draws two panels —
time to first visible progress with request counts, and a timeline of which capabilities each
transport let the UI show — and :class:`TransportExplorer` wraps both with sliders for the poll
interval and the model latency. Tests drive it by setting the sliders' ``.value``.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

from agentproto.course.lab_frame import figure_png
from agentproto.course.plots import PALETTE
from agentproto.course.widgets import lab_slider
from agentproto.orchestration.transports import CAPABILITIES, TransportResult, compare

__all__ = ["plot_comparison", "summary_table", "TransportExplorer"]

_CAP_COLORS = [PALETTE["primary"], PALETTE["secondary"], PALETTE["good"], PALETTE["accent"], PALETTE["bad"]]


def summary_table(results: list[TransportResult]) -> str:
    """A fixed-width text table of the headline numbers."""
    lines = [f"{'transport':<13} {'first progress':>15} {'requests':>9}  can show"]
    for r in results:
        first = "never" if r.first_progress is None else f"{r.first_progress:.2f} s"
        shows = ", ".join(c for c in CAPABILITIES if r.shown_at[c] is not None) or "—"
        lines.append(f"{r.transport:<13} {first:>15} {r.requests:>9}  {shows}")
    return "\n".join(lines)


def plot_comparison(results: list[TransportResult], title: str = "", fig: Figure | None = None) -> Figure:
    """Two panels: headline numbers, and what the UI can show over (virtual) time.

    Without ``fig`` the figure is a new pyplot figure (for a notebook cell and ``plt.show()``);
    a widget passes its own :class:`~matplotlib.figure.Figure`, so nothing leaks into pyplot.
    """
    if fig is None:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(11, 3.8))
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.6]})
    names = [r.transport for r in results]
    firsts = [r.first_progress or 0.0 for r in results]
    bars = left.barh(names, firsts, color=PALETTE["primary"])
    for bar, r in zip(bars, results):
        left.text(
            bar.get_width() + 0.05,
            bar.get_y() + bar.get_height() / 2,
            f"{r.requests} req",
            va="center",
            fontsize=9,
        )
    left.invert_yaxis()
    left.set_xlabel("time to first visible progress (virtual s)")
    left.set_title("How soon does the user see anything?")
    horizon = max(r.finished_at for r in results) * 1.05 + 0.1
    left.set_xlim(0, horizon)

    lane_h = 0.8 / len(CAPABILITIES)
    labelled: set[str] = set()  # one legend entry per capability, on the first transport that shows it
    for row, r in enumerate(results):
        for k, cap in enumerate(CAPABILITIES):
            start = r.shown_at[cap]
            if start is None:
                continue
            y = row - 0.4 + k * lane_h
            right.broken_barh(
                [(start, horizon - start)],
                (y, lane_h * 0.9),
                color=_CAP_COLORS[k],
                label=None if cap in labelled else cap,
            )
            labelled.add(cap)
    right.set_yticks(range(len(results)), names)
    right.invert_yaxis()
    right.set_xlim(0, horizon)
    right.set_xlabel("virtual time (s)")
    right.set_title("What the UI can show, from when")
    right.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


class TransportExplorer:
    """Sliders for poll interval and model latency, a summary and the comparison plot."""

    def __init__(self, poll_interval: float = 2.0, model_latency: float = 1.5) -> None:
        self.poll = lab_slider("poll every (s)", poll_interval, 0.25, 5.0, 0.25)
        self.latency = lab_slider("model latency (s)", model_latency, 0.0, 5.0, 0.25)
        self.summary = widgets.HTML()
        # The figure is rendered to PNG bytes in an Image widget (not an Output widget), so it
        # behaves the same in JupyterLab, under nbval and in tests. It is a private Figure, never
        # a pyplot one, so nothing leaks into the notebook's inline output.
        self.plot = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.figure = Figure(figsize=(11, 3.8))
        self.results: list[TransportResult] = []
        self.poll.observe(lambda _c: self.redraw(), names="value")
        self.latency.observe(lambda _c: self.redraw(), names="value")
        self.redraw()

    def redraw(self) -> None:
        self.results = compare(poll_interval=self.poll.value, model_latency=self.latency.value)
        self.summary.value = "<pre>" + summary_table(self.results) + "</pre>"
        self.figure.clear()
        plot_comparison(self.results, fig=self.figure)
        self.plot.value = figure_png(self.figure, dpi=80)

    def result(self, transport: str) -> TransportResult:
        return next(r for r in self.results if r.transport == transport)

    def widget(self) -> widgets.VBox:
        return widgets.VBox([widgets.HBox([self.poll, self.latency]), self.summary, self.plot])

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython import display as ipython_display

        show: Any = ipython_display.display  # IPython ships no type hints
        show(self.widget())
