r"""Notebook 04 (transport): what a buffering proxy and an idle timeout do to an SSE run, drawn.

The simulation is the library's (:mod:`agentproto.orchestration.proxy`: frames, heartbeats,
:func:`~agentproto.orchestration.proxy.simulate_proxy`); this module draws its
:class:`~agentproto.orchestration.proxy.ProxyRun`\ s (:func:`plot_proxy_runs`) and puts
sliders on it (:class:`ProxyBufferingLab`). The raw-bytes tap the notebook uses is the adapter
:class:`agentproto.agui.client_tap.TapTransport`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from agentproto.course.lab_frame import figure_png
from agentproto.course.plots import PALETTE
from agentproto.course.widgets import lab_slider
from agentproto.orchestration.proxy import ProxyRun, schedule_frames, simulate_proxy, with_heartbeats

__all__ = ["plot_proxy_runs", "ProxyBufferingLab"]


def _png(fig: Figure) -> bytes:
    data = figure_png(fig)
    plt.close(fig)
    return data


def _cumulative(times: Iterable[float | None], horizon: float) -> tuple[list[float], list[int]]:
    xs, ys, n = [0.0], [0], 0
    for t in sorted(t for t in times if t is not None):
        n += 1
        xs.append(t)
        ys.append(n)
    xs.append(horizon)
    ys.append(n)
    return xs, ys


def plot_proxy_runs(runs: Mapping[str, ProxyRun], title: str = "") -> Figure:
    """One panel per scenario: events produced by the agent vs events visible in the browser,
    heartbeats as ticks, and the moment an idle timeout cut the connection."""
    horizon = max(max(f.t for f in r.frames) for r in runs.values()) * 1.04 + 0.5
    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 1.9 * len(runs) + 0.6), sharex=True, squeeze=False)
    for ax, (name, run) in zip(axes[:, 0], runs.items()):
        produced = [f.t for f in run.frames if f.kind == "event"]
        seen = [d for f, d in zip(run.frames, run.delivered) if f.kind == "event"]
        ax.step(
            *_cumulative(produced, horizon),
            where="post",
            color=PALETTE["muted"],
            linestyle="--",
            label="produced by the agent",
        )
        ax.step(
            *_cumulative(seen, horizon),
            where="post",
            color=PALETTE["primary"],
            linewidth=2,
            label="visible in the browser",
        )
        beats = [f.t for f in run.frames if f.kind == "comment"]
        if beats:
            ax.plot(
                beats,
                [0.6] * len(beats),
                "|",
                color=PALETTE["good"],
                markersize=14,
                markeredgewidth=2,
                label="heartbeat comment",
            )
        if run.cut_at is not None:
            ax.axvline(run.cut_at, color=PALETTE["bad"], linewidth=2)
            ax.text(
                run.cut_at,
                run.events_total * 0.55,
                "  idle timeout:\n  connection cut",
                color=PALETTE["bad"],
                fontsize=8,
                va="center",
            )
        ax.set_ylim(0, run.events_total * 1.1 + 1)
        ax.set_ylabel("events")
        ax.set_title(
            f"{name} — {run.events_delivered}/{run.events_total} events, {run.batches} burst(s)",
            fontsize=9,
            loc="left",
        )
        ax.legend(loc="upper left", fontsize=7)
    axes[-1, 0].set_xlabel("virtual time since the request (s)")
    axes[-1, 0].set_xlim(0, horizon)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


class ProxyBufferingLab:
    """Sliders over :func:`simulate_proxy` for one run's events, with the plot and a summary.

    Controls (set ``.value`` from code, as a learner would drag them): ``buffering``
    (``"proxy buffers"`` / ``"X-Accel-Buffering: no"``), ``buffer_kb``, ``heartbeat`` (seconds,
    0 = off), ``idle_timeout`` (seconds) and ``tool_latency`` (seconds the slow tool takes).
    """

    MODES = ("proxy buffers", "X-Accel-Buffering: no")

    def __init__(
        self,
        events: Sequence[Mapping[str, Any]],
        *,
        buffer_kb: int = 4,
        heartbeat_s: float = 0.0,
        idle_timeout_s: int = 60,
        tool_latency_s: float = 75.0,
    ) -> None:
        self.events = [dict(e) for e in events]
        self.buffering = widgets.ToggleButtons(options=list(self.MODES), value=self.MODES[0])
        self.buffer_kb = lab_slider("proxy buffer (KB)", buffer_kb, 1, 16, integer=True)
        self.heartbeat = lab_slider("heartbeat every (s, 0=off)", heartbeat_s, 0, 60, 5)
        self.idle_timeout = lab_slider("idle timeout (s)", idle_timeout_s, 10, 120, 5, integer=True)
        self.tool_latency = lab_slider("slow tool takes (s)", tool_latency_s, 0, 120, 5)
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.run: ProxyRun | None = None
        for control in (self.buffering, self.buffer_kb, self.heartbeat, self.idle_timeout, self.tool_latency):
            control.observe(lambda _c: self.redraw(), names="value")
        self.redraw()

    def simulate(self) -> ProxyRun:
        frames = schedule_frames(self.events, tool_s=self.tool_latency.value)
        frames = with_heartbeats(frames, self.heartbeat.value or None)
        buffered = self.buffering.value == self.MODES[0]
        return simulate_proxy(
            frames,
            buffer_bytes=self.buffer_kb.value * 1024 if buffered else None,
            idle_timeout_s=float(self.idle_timeout.value),
        )

    def redraw(self) -> None:
        self.run = self.simulate()
        self.summary.value = f"<pre>{html.escape(self.run.summary())}</pre>"
        self.plot.value = _png(plot_proxy_runs({self.buffering.value: self.run}))

    def widget(self) -> widgets.VBox:
        return widgets.VBox(
            [
                self.buffering,
                widgets.HBox([self.buffer_kb, self.heartbeat]),
                widgets.HBox([self.idle_timeout, self.tool_latency]),
                self.summary,
                self.plot,
            ]
        )

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())
