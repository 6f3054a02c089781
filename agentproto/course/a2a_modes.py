"""Notebook 11, ways to wait: the four modes as a table, a plot, a widget — and measured live.

The model itself is protocol knowledge and lives in the library
(:mod:`agentproto.a2a.modes`: :func:`~agentproto.a2a.modes.agent_schedule`,
:func:`~agentproto.a2a.modes.model_modes`, :class:`~agentproto.a2a.modes.ModeResult`); this
module shows it and measures it.

==============================  ==================================================================
:func:`summary_table`           the headline numbers of a list of ``ModeResult`` as text
:func:`plot_modes`              when each mode knew what, and every update it saw
:class:`ModeExplorer`           sliders (poll interval, latency, agent step) → table and plot
:func:`measure_modes`           the four modes against a real A2A server, on wall time; push
                                lands in a :class:`~agentproto.a2a.push.WebhookRecorder`
:func:`pushes_for`,             what a webhook recorder received for one task, and whether the
:func:`push_settled`            task's settling status has arrived
:func:`compact_labels`          ``working ×3, itinerary +chunk 2 …`` for one-line summaries
:func:`wait_until`              poll a condition instead of sleeping a guessed time
==============================  ==================================================================
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import groupby
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from agentproto.a2a.agents import TravelDeskAgent
from agentproto.a2a.client import SyncA2AClient
from agentproto.a2a.modes import MODES, ModeResult, agent_schedule, model_modes
from agentproto.a2a.push import WebhookRecorder
from agentproto.a2a.states import INTERRUPTED_STATES, TERMINAL_STATES, TaskState
from agentproto.a2a.types import Message, StreamResponse, Task, TaskPushNotificationConfig
from agentproto.course.lab_frame import figure_png
from agentproto.course.plots import PALETTE
from agentproto.course.widgets import lab_slider

__all__ = [
    "summary_table",
    "plot_modes",
    "ModeExplorer",
    "measure_modes",
    "pushes_for",
    "push_settled",
    "compact_labels",
    "wait_until",
]


def summary_table(results: Sequence[ModeResult], *, unit: str = "ms") -> str:
    """The headline numbers of :func:`model_modes` / :func:`measure_modes` as text."""
    scale = {"ms": 1.0, "s": 1000.0}[unit]

    def t(v: float | None) -> str:
        return (
            "never"
            if v is None
            else (f"{v / scale:,.0f} {unit}" if unit == "ms" else f"{v / scale:.2f} {unit}")
        )

    lines = [
        f"{'mode':<10} {'first update':>13} {'settled seen':>13} {'requests':>9} "
        f"{'POSTs':>6} {'updates seen':>13}"
    ]
    for r in results:
        lines.append(
            f"{r.mode:<10} {t(r.first_update_ms):>13} {t(r.done_ms):>13} "
            f"{r.requests:>9} {r.posts:>6} {len(r.seen):>6} of {r.total:<4}"
        )
    return "\n".join(lines)


_MODE_COLORS = {
    "blocking": PALETTE["muted"],
    "polling": PALETTE["secondary"],
    "streaming": PALETTE["primary"],
    "push": PALETTE["good"],
}


def plot_modes(
    results: Sequence[ModeResult], *, title: str = "", unit: str = "s", time_label: str = "virtual time"
) -> Figure:
    """Two panels: when each mode first showed progress and knew the result (with the
    requests it cost), and a dot for every update the client actually saw."""
    scale = {"ms": 1.0, "s": 1000.0}[unit]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [1, 1.5]})
    names = [r.mode for r in results]
    y = range(len(results))
    horizon = max((r.done_ms or 0) for r in results) / scale * 1.08 + 1e-9
    left.barh(
        [i + 0.18 for i in y],
        [(r.first_update_ms or 0) / scale for r in results],
        height=0.36,
        color=PALETTE["primary"],
        label="first update",
    )
    left.barh(
        [i - 0.18 for i in y],
        [(r.done_ms or 0) / scale for r in results],
        height=0.36,
        color=PALETTE["muted"],
        label="result known",
    )
    for i, r in enumerate(results):
        cost = f"{r.requests} req" + (f" + {r.posts} POSTs" if r.posts else "")
        left.text((r.done_ms or 0) / scale + horizon * 0.01, i - 0.18, cost, va="center", fontsize=8)
    left.set_yticks(list(y), names)
    left.invert_yaxis()
    left.set_xlim(0, horizon * 1.35)
    left.set_xlabel(f"{time_label} after sending ({unit})")
    left.set_title("How soon does the client know?")
    left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8)
    for i, r in enumerate(results):
        xs = [t / scale for t, _ in r.seen]
        right.scatter(xs, [i] * len(xs), s=28, color=_MODE_COLORS.get(r.mode, "black"), zorder=3)
        right.text(horizon * 1.01, i, f"{len(r.seen)}/{r.total}", va="center", fontsize=8)
    right.set_yticks(list(y), names)
    right.invert_yaxis()
    right.set_xlim(0, horizon * 1.1)
    right.set_xlabel(f"{time_label} ({unit})")
    right.set_title("Every update the client saw (seen/produced)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


class ModeExplorer:
    """Sliders for the poll interval, the network latency and the agent's step time; the
    four modes recomputed on the travel desk's real schedule, as a table and a plot."""

    TEXT = "Plan my trip to Sanya from 2026-04-08 to 2026-04-12"

    def __init__(self, *, poll_s: float = 1.0, latency_ms: float = 50.0, step_s: float = 2.0) -> None:
        self.poll = lab_slider("poll every (s)", poll_s, 0.25, 5.0, 0.25)
        self.latency = lab_slider("latency one way (ms)", latency_ms, 0.0, 500.0, 10.0)
        self.step = lab_slider("agent step (s)", step_s, 0.5, 5.0, 0.5)
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.results: list[ModeResult] = []
        for control in (self.poll, self.latency, self.step):
            control.observe(lambda _c: self.redraw(), names="value")
        self.redraw()

    def redraw(self) -> None:
        schedule = agent_schedule(TravelDeskAgent(step_ms=int(self.step.value * 1000)), self.TEXT)
        self.results = model_modes(schedule, poll_ms=self.poll.value * 1000, latency_ms=self.latency.value)
        self.summary.value = "<pre>" + html.escape(summary_table(self.results, unit="s")) + "</pre>"
        fig = plot_modes(self.results)
        self.plot.value = figure_png(fig)
        plt.close(fig)

    def result(self, mode: str) -> ModeResult:
        return next(r for r in self.results if r.mode == mode)

    def widget(self) -> widgets.VBox:
        return widgets.VBox([widgets.HBox([self.poll, self.latency, self.step]), self.summary, self.plot])

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        import IPython.display

        show: Any = IPython.display.display  # untyped upstream
        show(self.widget())


def pushes_for(recorder: WebhookRecorder, task_id: str) -> list[tuple[float, StreamResponse]]:
    """``(time.monotonic(), StreamResponse)`` of every notification a
    :class:`~agentproto.a2a.push.WebhookRecorder` accepted for ``task_id``, in arrival order."""
    out = []
    for push in list(recorder.received):
        event = push.event
        if _task_of(event) == task_id:
            out.append((push.at, event))
    return out


def push_settled(recorder: WebhookRecorder, task_id: str) -> bool:
    """Has a terminal or interrupted status for ``task_id`` reached the webhook?"""
    return any(
        e.status_update is not None and _settles(e.status_update.status.state)
        for _, e in pushes_for(recorder, task_id)
    )


def _task_of(event: StreamResponse) -> str:
    if event.task is not None:
        return event.task.id
    inner = event.status_update or event.artifact_update
    return inner.task_id if inner is not None else ""


def _settles(state: TaskState) -> bool:
    return state in TERMINAL_STATES or state in INTERRUPTED_STATES


def _event_label(event: StreamResponse) -> str:
    if event.task is not None:
        return "Task: " + event.task.status.state.short
    if event.status_update is not None:
        return event.status_update.status.state.short
    if event.artifact_update is not None:
        u = event.artifact_update
        return u.artifact.artifact_id + (" +chunk" if u.append else "")
    return "message"


def measure_modes(
    base_url: str,
    text: str,
    *,
    recorder: WebhookRecorder | None = None,
    webhook_url: str = "",
    token: str = "",
    poll_interval_s: float = 0.05,
    timeout_s: float = 10.0,
    modes: Sequence[str] = MODES,
    warmup: bool = True,
) -> list[ModeResult]:
    """Run the four modes against a real A2A server and time what the client sees (wall ms).

    One fresh task per mode, the same ``text`` each time. ``push`` needs a
    :class:`~agentproto.a2a.push.WebhookRecorder` served at ``webhook_url`` (and a server that
    allows loopback webhooks); ``token`` goes in the push config's ``token`` field, which the kit
    sends as ``X-A2A-Notification-Token`` — the kit's and a2a-sdk's header; the spec's webhook
    credentials are ``authentication`` → ``Authorization`` (§4.3.3). Requests are counted by the
    client itself (:attr:`SyncA2AClient.requests_made`). With ``warmup`` each mode runs once
    untimed first, so one-off costs (the first SSE response, the server's first webhook
    connection) do not land on whichever mode happens to go first.
    """
    if warmup:
        measure_modes(
            base_url,
            text,
            recorder=recorder,
            webhook_url=webhook_url,
            token=token,
            poll_interval_s=poll_interval_s,
            timeout_s=timeout_s,
            modes=modes,
            warmup=False,
        )
    client = SyncA2AClient.discover(base_url)
    out: list[ModeResult] = []
    try:
        for mode in modes:
            before = client.requests_made
            t0 = time.monotonic()  # the clock WebhookRecorder stamps arrivals with
            if mode == "blocking":
                task = _task(client.send(text, timeout=timeout_s))
                done = _ms_since(t0)
                out.append(
                    ModeResult(
                        mode,
                        client.requests_made - before,
                        0,
                        done,
                        done,
                        [(done, "the settled Task")],
                        _produced(task),
                    )
                )
            elif mode == "polling":
                task = _task(client.send(text, return_immediately=True))
                seen = [(_ms_since(t0), "Task: " + task.status.state.short)]
                key, first = _poll_key(task), None
                while not _settles(task.status.state):
                    time.sleep(poll_interval_s)
                    task = client.get_task(task.id)
                    if _poll_key(task) != key:
                        key = _poll_key(task)
                        seen.append((_ms_since(t0), "GetTask: " + task.status.state.short))
                        first = seen[-1][0] if first is None else first
                    if _ms_since(t0) > timeout_s * 1000:
                        raise TimeoutError(f"polling: task {task.id} did not settle")
                out.append(
                    ModeResult(
                        mode, client.requests_made - before, 0, first, seen[-1][0], seen, _produced(task)
                    )
                )
            elif mode == "streaming":
                seen = []
                for event in client.stream(text, timeout=timeout_s):
                    seen.append((_ms_since(t0), _event_label(event)))
                first = seen[1][0] if len(seen) > 1 else None
                out.append(
                    ModeResult(mode, client.requests_made - before, 0, first, seen[-1][0], seen, len(seen))
                )
            elif mode == "push":
                if recorder is None or not webhook_url:
                    raise ValueError("push needs a WebhookRecorder and the URL it is served at")
                config = TaskPushNotificationConfig(url=webhook_url, token=token)
                task = _task(client.send(text, return_immediately=True, push=config))
                if not wait_until(partial(push_settled, recorder, task.id), timeout_s=timeout_s):
                    raise TimeoutError(f"push: task {task.id} did not settle in time")
                arrived = [((t - t0) * 1000, _event_label(e)) for t, e in pushes_for(recorder, task.id)]
                first = next((t for t, label in arrived if not label.startswith("Task")), None)
                out.append(
                    ModeResult(
                        mode,
                        client.requests_made - before,
                        len(arrived),
                        first,
                        arrived[-1][0],
                        arrived,
                        len(arrived),
                    )
                )
            else:
                raise ValueError(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
    finally:
        client.close()
    return out


def _task(answer: Task | Message) -> Task:
    if not isinstance(answer, Task):
        raise ValueError(
            "the agent answered with a direct Message: no task to wait for "
            "(measure_modes needs a message that starts a task)"
        )
    return answer


def _ms_since(t0: float) -> float:
    return (time.monotonic() - t0) * 1000


def _poll_key(task: Task) -> tuple[Any, ...]:
    return (task.status.state, task.status.timestamp, sum(len(a.parts) for a in task.artifacts))


def _produced(task: Task) -> int:
    """How many stream events a settled task produced, read off the task itself: its Task
    snapshot, one status update per agent message in the history, one artifact update per
    artifact part. (Exact for this kit's agents, whose status updates all carry a message and
    whose chunks carry one part each.)"""
    statuses = sum(1 for m in task.history if m.role.value == "ROLE_AGENT")
    return 1 + statuses + sum(len(a.parts) for a in task.artifacts)


def compact_labels(labels: Iterable[str]) -> str:
    """``["working", "working", "trip"]`` → ``"working ×2, trip"`` (runs of equal labels)."""
    parts = []
    for label, run in groupby(labels):
        n = len(list(run))
        parts.append(f"{label} ×{n}" if n > 1 else label)
    return ", ".join(parts)


def wait_until(condition: Callable[[], object], *, timeout_s: float = 5.0, interval_s: float = 0.01) -> bool:
    """Poll ``condition()`` until it is true or ``timeout_s`` passes; return the last value.

    For notebook cells that must wait for something happening on a server thread (webhook
    deliveries, a background run) without sleeping a fixed, guessed time.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval_s)
