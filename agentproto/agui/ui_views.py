"""Notebook views for AG-UI over the wire (notebooks 04, 06, 07 and 08).

The protocol lives in the rest of :mod:`agentproto.agui`; this module holds what a *front end*
and a *teaching notebook* put around it, each small enough to read in one sitting:

=================================  ===============================================================
piece                              what it shows
=================================  ===============================================================
:class:`TapTransport`              an httpx transport that records the raw bytes of every
                                   response and can drop a connection after *n* events —
                                   the raw SSE wire, and a real disconnect for the client to
                                   recover from (notebook 04)
:func:`schedule_frames`,           a sans-I/O model of a buffering reverse proxy and an
:func:`simulate_proxy`,            idle-timeout hop between the agent and the browser:
:class:`ProxyBufferingLab`         batched delivery, heartbeats, ``X-Accel-Buffering: no``
:class:`ApprovalCard`              the approval UI for a tool-call interrupt: Approve,
                                   Approve with edits, Deny, Cancel — real resumes (notebook 06)
:func:`audit_trail`                proposed arguments → decision → result, read from the store
:class:`ComponentRegistry`         the front end's tool-name → component mapping, driven by
                                   ``TOOL_CALL_*`` events (notebook 07)
:func:`validate_ui_intent`,        ``CUSTOM`` events carrying UI intent, checked against an
:class:`IntentRenderer`            allow-list of components and JSON Schemas for their props
:func:`sequence_from_store`,       a sequence diagram drawn from a thread's real event log
:func:`plot_sequence`              (notebook 08)
:func:`text_table`                 a fixed-width table for notebook output
=================================  ===============================================================

Widgets keep references to their controls (``card.approve_button``, ``lab.heartbeat``) so tests
and notebooks drive them from code exactly as a click would. Plots inside widgets are rendered
to PNG bytes in a ``widgets.Image`` (see CONTRIBUTING, "Gotchas").

Nothing here talks to a network by itself: the card and the registry take an AG-UI client (or
just events), the proxy model takes frames and returns deliveries.
"""

from __future__ import annotations

import html
import io
import json
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import ipywidgets as widgets
import jsonschema
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from agentproto.agui.sse import KEEP_ALIVE, encode_sse
from agentproto.course.plots import PALETTE

__all__ = [
    # wire
    "Capture", "TapTransport",
    # proxy buffering model
    "Frame", "ProxyRun", "schedule_frames", "with_heartbeats", "simulate_proxy",
    "plot_proxy_runs", "ProxyBufferingLab",
    # approvals and audit
    "ApprovalCard", "AuditRow", "audit_trail",
    # generative UI boundary
    "ToolComponent", "OrderComponent", "RefundComponent", "FallbackComponent",
    "ComponentRegistry",
    "UI_INTENT_EVENT", "UI_COMPONENTS", "UIIntent", "UIIntentError", "IntentEnvelopeError",
    "UnknownComponentError", "UnsafeContentError", "IntentPropsError", "IntentTooLargeError",
    "validate_ui_intent", "IntentRenderer",
    # sequence diagrams
    "LANES", "Arrow", "sequence_from_log", "sequence_from_store", "plot_sequence",
    # output
    "text_table",
]


def _png(fig: Figure, dpi: int = 80) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    plt.close(fig)
    return buffer.getvalue()


def text_table(rows: Iterable[Sequence[Any]], headers: Sequence[str]) -> str:
    """Rows as a fixed-width text table (stable under nbval, readable in a terminal)."""
    body = [[str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in body]
    return "\n".join(lines)


# ==========================================================================================
# The wire: a transport that taps (and can cut) the connection
# ==========================================================================================


@dataclass
class Capture:
    """One HTTP exchange as the transport saw it: the request body and the raw response bytes."""

    method: str
    path: str
    request_json: Any = None
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes = b""
    frames_delivered: int = 0
    dropped: bool = False

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")


class _TappedStream(httpx.AsyncByteStream):
    """Forwards a response body frame by frame, recording it; optionally cuts it short."""

    def __init__(self, inner: httpx.AsyncByteStream, capture: Capture,
                 drop_after: int | None) -> None:
        self._inner = inner
        self._capture = capture
        self._drop_after = drop_after

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._drop_after is None:
            async for chunk in self._inner:
                self._capture.raw += chunk
                yield chunk
            return
        if self._drop_after == 0:
            await self._drop()
        buffer = b""
        async for chunk in self._inner:
            buffer += chunk
            while b"\n\n" in buffer:
                frame, buffer = buffer.split(b"\n\n", 1)
                frame += b"\n\n"
                self._capture.raw += frame
                if frame.startswith(b"data:"):
                    self._capture.frames_delivered += 1
                yield frame
                if self._capture.frames_delivered >= self._drop_after:
                    await self._drop()
        if buffer:  # an unterminated last frame passes through as it came
            self._capture.raw += buffer
            yield buffer

    async def _drop(self) -> None:
        self._capture.dropped = True
        await self._inner.aclose()  # the TCP connection really goes away
        raise httpx.ReadError(
            f"connection dropped after {self._drop_after} events (TapTransport)")

    async def aclose(self) -> None:
        await self._inner.aclose()


class TapTransport(httpx.AsyncBaseTransport):
    """An httpx transport over the real network stack that records every exchange.

    ``captures`` holds one :class:`Capture` per request: the JSON body sent, the status, the
    response headers and the raw response bytes exactly as they crossed the socket — the SSE
    framing a browser sees. :meth:`drop_next` makes the next event stream break after *n*
    ``data`` frames (the socket is closed, the client gets ``httpx.ReadError``), which is how
    notebook 04 shows a real disconnect without a flaky network::

        tap = TapTransport()
        client = AGUIClient(url, http=httpx.AsyncClient(transport=tap))
    """

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport()
        self.captures: list[Capture] = []
        self._drop_next: int | None = None

    def drop_next(self, after_events: int) -> None:
        """Cut the next ``text/event-stream`` response after ``after_events`` events."""
        if after_events < 0:
            raise ValueError("after_events must be >= 0")
        self._drop_next = after_events

    @property
    def last(self) -> Capture:
        """The most recent exchange."""
        return self.captures[-1]

    @property
    def streams(self) -> list[Capture]:
        """The exchanges whose response was an event stream, oldest first."""
        return [c for c in self.captures
                if c.headers.get("content-type", "").startswith("text/event-stream")]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body: Any = None
        try:
            content = request.content
        except httpx.RequestNotRead:  # a streamed upload: not recorded
            content = b""
        if content:
            try:
                body = json.loads(content)
            except ValueError:
                body = content.decode("utf-8", errors="replace")
        capture = Capture(request.method, request.url.path, body)
        self.captures.append(capture)
        response = await self._inner.handle_async_request(request)
        capture.status = response.status_code
        capture.headers = {k.lower(): v for k, v in response.headers.items()}
        drop = None
        if capture.headers.get("content-type", "").startswith("text/event-stream"):
            drop, self._drop_next = self._drop_next, None
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(status_code=response.status_code, headers=response.headers,
                              stream=_TappedStream(response.stream, capture, drop),
                              extensions=response.extensions, request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()


# ==========================================================================================
# A buffering proxy and an idle-timeout hop, simulated in virtual time
# ==========================================================================================


@dataclass(frozen=True)
class Frame:
    """One SSE frame the agent server writes: when (virtual seconds), how big, what it is."""

    t: float
    nbytes: int
    label: str
    kind: str = "event"  #: ``event`` (a ``data:`` frame) or ``comment`` (a heartbeat)


def schedule_frames(events: Sequence[Mapping[str, Any]], *, gap_s: float = 0.05,
                    tool_s: float = 0.0) -> list[Frame]:
    """Give a run's events virtual send times: ``gap_s`` apart, and each ``TOOL_CALL_RESULT``
    ``tool_s`` after the event before it (the tool's latency). Sizes are the events' real SSE
    frame sizes (:func:`~agentproto.agui.sse.encode_sse`)."""
    frames, t = [], 0.0
    for i, event in enumerate(events):
        if i:
            t += tool_s if event.get("type") == "TOOL_CALL_RESULT" else gap_s
        frames.append(Frame(round(t, 6), len(encode_sse(dict(event))), str(event.get("type"))))
    return frames


def with_heartbeats(frames: Sequence[Frame], heartbeat_s: float | None) -> list[Frame]:
    """Add a ``: keep-alive`` comment whenever the stream has been idle for ``heartbeat_s``
    (what the agentproto server does; ``None`` or 0 adds none)."""
    if not heartbeat_s:
        return list(frames)
    out: list[Frame] = []
    last = 0.0
    for frame in frames:
        t = last + heartbeat_s
        while t < frame.t:
            out.append(Frame(round(t, 6), len(KEEP_ALIVE), ": keep-alive", "comment"))
            t += heartbeat_s
        out.append(frame)
        last = frame.t
    return out


@dataclass
class ProxyRun:
    """What the browser received: per frame, the virtual time it arrived (None: never)."""

    frames: list[Frame]
    delivered: list[float | None]
    flushes: list[float]
    cut_at: float | None = None
    buffer_bytes: int | None = None
    idle_timeout_s: float | None = None

    @property
    def events_total(self) -> int:
        return sum(1 for f in self.frames if f.kind == "event")

    @property
    def events_delivered(self) -> int:
        return sum(1 for f, d in zip(self.frames, self.delivered)
                   if f.kind == "event" and d is not None)

    @property
    def first_event_at(self) -> float | None:
        times = [d for f, d in zip(self.frames, self.delivered)
                 if f.kind == "event" and d is not None]
        return min(times) if times else None

    @property
    def complete(self) -> bool:
        """True when every event arrived — including the terminal one."""
        return self.events_delivered == self.events_total

    @property
    def batches(self) -> int:
        """How many separate deliveries (bursts) reached the browser."""
        return len(self.flushes)

    def summary(self) -> str:
        first = "never" if self.first_event_at is None else f"{self.first_event_at:.2f} s"
        cut = "no" if self.cut_at is None else f"yes, at {self.cut_at:.1f} s (run truncated)"
        return (f"{self.events_delivered}/{self.events_total} events delivered in "
                f"{self.batches} burst(s); first event visible at {first}; "
                f"connection cut: {cut}")


def simulate_proxy(frames: Sequence[Frame], *, buffer_bytes: int | None = 4096,
                   idle_timeout_s: float | None = 60.0) -> ProxyRun:
    """Play ``frames`` through ``agent → proxy → idle-timeout hop → browser``.

    * The **proxy** buffers the response (``buffer_bytes``: it passes bytes on only when that
      much has piled up, or when the upstream response ends) — nginx's default for proxied
      responses. ``buffer_bytes=None`` is what ``X-Accel-Buffering: no`` asks for: every frame
      is passed on as it arrives.
    * The **idle-timeout hop** (a load balancer, a CDN) closes the connection when no byte
      has crossed it for ``idle_timeout_s``. Frames after the cut never reach the browser —
      although the agent produced them: a disconnect is not a cancel.

    Pure function of its inputs; times are virtual seconds from the request.
    """
    frames = list(frames)
    delivered: list[float | None] = [None] * len(frames)
    flushes: list[float] = []
    pending: list[int] = []
    pending_bytes = 0
    for i, frame in enumerate(frames):
        if buffer_bytes is None:
            delivered[i] = frame.t
            flushes.append(frame.t)
            continue
        pending.append(i)
        pending_bytes += frame.nbytes
        if pending_bytes >= buffer_bytes:
            for j in pending:
                delivered[j] = frame.t
            flushes.append(frame.t)
            pending, pending_bytes = [], 0
    if pending:  # the upstream response ended: the proxy flushes what it holds
        end = frames[-1].t
        for j in pending:
            delivered[j] = end
        flushes.append(end)

    cut_at = None
    if idle_timeout_s is not None:
        last = 0.0
        for t in sorted(set(flushes)):
            if t - last > idle_timeout_s:
                cut_at = last + idle_timeout_s
                break
            last = t
        if cut_at is not None:
            delivered = [d if d is not None and d <= cut_at else None for d in delivered]
            flushes = [t for t in flushes if t <= cut_at]
    return ProxyRun(frames, delivered, sorted(set(flushes)), cut_at, buffer_bytes,
                    idle_timeout_s)


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
    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 1.9 * len(runs) + 0.6), sharex=True,
                             squeeze=False)
    for ax, (name, run) in zip(axes[:, 0], runs.items()):
        produced = [f.t for f in run.frames if f.kind == "event"]
        seen = [d for f, d in zip(run.frames, run.delivered) if f.kind == "event"]
        ax.step(*_cumulative(produced, horizon), where="post", color=PALETTE["muted"],
                linestyle="--", label="produced by the agent")
        ax.step(*_cumulative(seen, horizon), where="post", color=PALETTE["primary"],
                linewidth=2, label="visible in the browser")
        beats = [f.t for f in run.frames if f.kind == "comment"]
        if beats:
            ax.plot(beats, [0.6] * len(beats), "|", color=PALETTE["good"], markersize=14,
                    markeredgewidth=2, label="heartbeat comment")
        if run.cut_at is not None:
            ax.axvline(run.cut_at, color=PALETTE["bad"], linewidth=2)
            ax.text(run.cut_at, run.events_total * 0.55, "  idle timeout:\n  connection cut",
                    color=PALETTE["bad"], fontsize=8, va="center")
        ax.set_ylim(0, run.events_total * 1.1 + 1)
        ax.set_ylabel("events")
        ax.set_title(f"{name} — {run.events_delivered}/{run.events_total} events, "
                     f"{run.batches} burst(s)", fontsize=9, loc="left")
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

    def __init__(self, events: Sequence[Mapping[str, Any]], *, buffer_kb: int = 4,
                 heartbeat_s: float = 0.0, idle_timeout_s: int = 60,
                 tool_latency_s: float = 75.0) -> None:
        self.events = [dict(e) for e in events]
        style = {"description_width": "initial"}
        self.buffering = widgets.ToggleButtons(options=list(self.MODES), value=self.MODES[0])
        self.buffer_kb = widgets.IntSlider(value=buffer_kb, min=1, max=16,
                                           description="proxy buffer (KB)",
                                           continuous_update=False, style=style)
        self.heartbeat = widgets.FloatSlider(value=heartbeat_s, min=0, max=60, step=5,
                                             description="heartbeat every (s, 0=off)",
                                             continuous_update=False, style=style)
        self.idle_timeout = widgets.IntSlider(value=idle_timeout_s, min=10, max=120, step=5,
                                              description="idle timeout (s)",
                                              continuous_update=False, style=style)
        self.tool_latency = widgets.FloatSlider(value=tool_latency_s, min=0, max=120, step=5,
                                                description="slow tool takes (s)",
                                                continuous_update=False, style=style)
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.run: ProxyRun | None = None
        for control in (self.buffering, self.buffer_kb, self.heartbeat, self.idle_timeout,
                        self.tool_latency):
            control.observe(lambda _c: self.redraw(), names="value")
        self.redraw()

    def simulate(self) -> ProxyRun:
        frames = schedule_frames(self.events, tool_s=self.tool_latency.value)
        frames = with_heartbeats(frames, self.heartbeat.value or None)
        buffered = self.buffering.value == self.MODES[0]
        return simulate_proxy(frames,
                              buffer_bytes=self.buffer_kb.value * 1024 if buffered else None,
                              idle_timeout_s=float(self.idle_timeout.value))

    def redraw(self) -> None:
        self.run = self.simulate()
        self.summary.value = f"<pre>{html.escape(self.run.summary())}</pre>"
        self.plot.value = _png(plot_proxy_runs({self.buffering.value: self.run}))

    def widget(self) -> widgets.VBox:
        return widgets.VBox([self.buffering,
                             widgets.HBox([self.buffer_kb, self.heartbeat]),
                             widgets.HBox([self.idle_timeout, self.tool_latency]),
                             self.summary, self.plot])

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())


# ==========================================================================================
# Approvals: the card, and the audit trail it leaves
# ==========================================================================================


def _proposed_args(messages: Sequence[Mapping[str, Any]], tool_call_id: str | None
                   ) -> dict[str, Any] | None:
    """The arguments of tool call ``tool_call_id`` as the thread's messages recorded them."""
    for message in messages:
        for call in message.get("toolCalls") or []:
            if call.get("id") == tool_call_id:
                try:
                    args = json.loads(call["function"]["arguments"])
                except (KeyError, TypeError, ValueError):
                    return None
                return args if isinstance(args, dict) else None
    return None


def _escape_json(value: Any) -> str:
    return html.escape(json.dumps(value, ensure_ascii=False, sort_keys=True))


class ApprovalCard:
    """The approval UI for one pending tool-call interrupt, wired to a real AG-UI client.

    ``client`` is a :class:`~agentproto.agui.client.SyncAGUIClient` (anything with
    ``thread()``, ``approve()``, ``deny()`` and ``cancel()``): widget callbacks cannot
    ``await``. The proposed arguments are read from the thread's messages — the
    ``TOOL_CALL_ARGS`` the interrupted run streamed, found by the interrupt's ``toolCallId``
    — and one input field is shown per argument. The buttons send real resumes:

    * **Approve** → ``resolved {approved: true}``
    * **Approve with edits** → ``resolved {approved: true, editedArgs: {changed fields}}``
    * **Deny** → ``resolved {approved: false}`` (a denial is a payload, not a status)
    * **Cancel** → ``cancelled`` without payload (abandon the question)

    The draft in the fields is local UI state: nothing leaves the browser until a button is
    pressed. After a decision the buttons are disabled; ``result`` holds the resumed run's
    :class:`~agentproto.agui.client.RunResult` and ``error`` any refusal.
    """

    def __init__(self, client: Any, thread_id: str,
                 interrupt: Mapping[str, Any] | None = None) -> None:
        self.client = client
        self.thread_id = thread_id
        view = client.thread(thread_id)
        if interrupt is None:
            if not view.pending_interrupts:
                raise ValueError(f"thread {thread_id} has no pending interrupt to approve")
            interrupt = view.pending_interrupts[0]
        self.interrupt = dict(interrupt)
        self.proposed = (_proposed_args(view.messages, self.interrupt.get("toolCallId"))
                         or dict((self.interrupt.get("metadata") or {}).get("proposedArgs") or {}))
        self.fields: dict[str, widgets.Widget] = {}
        for name, value in self.proposed.items():
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                continue
            control = (widgets.IntText(value=value, description=name) if isinstance(value, int)
                       else widgets.Text(value=value, description=name))
            self.fields[name] = control
        self.header = widgets.HTML(self._header_html())
        self.approve_button = widgets.Button(description="Approve", button_style="success",
                                             icon="check")
        self.edit_button = widgets.Button(description="Approve with edits",
                                          button_style="warning", icon="pencil")
        self.deny_button = widgets.Button(description="Deny", button_style="danger",
                                          icon="times")
        self.cancel_button = widgets.Button(description="Cancel (abandon)", icon="ban")
        self.status = widgets.HTML("<i>waiting for your decision</i>")
        self.result: Any = None
        self.error: BaseException | None = None
        self.sent: list[str] = []
        self.approve_button.on_click(lambda _b: self._decide("approve"))
        self.edit_button.on_click(lambda _b: self._decide("edit"))
        self.deny_button.on_click(lambda _b: self._decide("deny"))
        self.cancel_button.on_click(lambda _b: self._decide("cancel"))

    @property
    def buttons(self) -> list[widgets.Button]:
        return [self.approve_button, self.edit_button, self.deny_button, self.cancel_button]

    def _header_html(self) -> str:
        i = self.interrupt
        rows = "".join(f"<tr><td><code>{html.escape(str(k))}</code></td>"
                       f"<td><code>{_escape_json(v)}</code></td></tr>"
                       for k, v in self.proposed.items())
        return (f"<div><b>{html.escape(str(i.get('message', 'Approval needed')))}</b><br>"
                f"<small>interrupt <code>{html.escape(str(i.get('id')))}</code> · tool call "
                f"<code>{html.escape(str(i.get('toolCallId')))}</code> · expires "
                f"{html.escape(str(i.get('expiresAt', 'never')))}</small>"
                f"<table><tr><th>proposed argument</th><th>value</th></tr>{rows}</table></div>")

    def edits(self) -> dict[str, Any]:
        """The fields the reviewer changed (the ``editedArgs`` an edited approval sends)."""
        return {name: control.value for name, control in self.fields.items()
                if control.value != self.proposed.get(name)}

    def _decide(self, decision: str) -> None:
        interrupt_id = self.interrupt["id"]
        try:
            if decision == "approve":
                self.result = self.client.approve(self.thread_id, interrupt_id)
            elif decision == "edit":
                self.result = self.client.approve(self.thread_id, interrupt_id,
                                                  edited_args=self.edits())
            elif decision == "deny":
                self.result = self.client.deny(self.thread_id, interrupt_id)
            else:
                self.result = self.client.cancel(self.thread_id, interrupt_id)
        except Exception as exc:  # a refusal is shown on the card, not raised into the UI loop
            self.error = exc
            self.status.value = (f"<span style='color:{PALETTE['bad']}'>✗ "
                                 f"{html.escape(type(exc).__name__)}: {html.escape(str(exc))}"
                                 f"</span>")
            return
        self.sent.append(decision)
        self.error = None
        for button in self.buttons:
            button.disabled = True
        text = html.escape(self.result.text or "")
        self.status.value = (f"<b>{html.escape(decision)}</b> sent → run "
                             f"<code>{html.escape(self.result.run_id)}</code> ended "
                             f"<b>{html.escape(self.result.outcome)}</b><br>{text}")

    def widget(self) -> widgets.VBox:
        return widgets.VBox(
            [self.header, *self.fields.values(), widgets.HBox(self.buttons), self.status],
            layout=widgets.Layout(border="1px solid #999", padding="6px", max_width="640px"))

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())


@dataclass(frozen=True)
class AuditRow:
    """The three parts of a human-approved tool call, each from the record."""

    interrupt_id: str
    tool_call_id: str | None
    tool: str | None
    proposed: Any  #: part 1 — the arguments the agent streamed (``TOOL_CALL_ARGS``)
    interrupted_run: str
    status: str  #: ``pending`` | ``resolved`` | ``cancelled``
    decision: Any  #: part 2 — the resume entry that settled it (status + payload)
    decided_by: str | None
    result: Any  #: part 3 — the ``TOOL_CALL_RESULT`` content on the same ``toolCallId``


def audit_trail(store: Any, thread_id: str) -> list[AuditRow]:
    """Proposed args → decision → result for every interrupt of a thread, from the store.

    Part 1 comes from the interrupted run's event log (the ``TOOL_CALL_ARGS`` deltas for the
    interrupt's ``toolCallId``), part 2 from the interrupt ledger (the entry that settled it,
    and which run carried it), part 3 from that run's event log (the ``TOOL_CALL_RESULT`` on
    the original ``toolCallId``). Nothing is reconstructed from the client.
    """
    rows = []
    for record in store.thread_record(thread_id).interrupts:
        tool_call_id = record.interrupt.get("toolCallId")
        tool, args = None, ""
        for event in store.events(thread_id, record.run_id):
            if event.get("toolCallId") != tool_call_id:
                continue
            if event["type"] == "TOOL_CALL_START":
                tool = event.get("toolCallName")
            elif event["type"] == "TOOL_CALL_ARGS":
                args += event.get("delta", "")
        try:
            proposed: Any = json.loads(args) if args else None
        except ValueError:
            proposed = args
        result = None
        if record.settled_by:
            for event in store.events(thread_id, record.settled_by):
                if event["type"] == "TOOL_CALL_RESULT" and event.get("toolCallId") == tool_call_id:
                    try:
                        result = json.loads(event["content"])
                    except (TypeError, ValueError):
                        result = event["content"]
        decision = None
        if record.decision is not None:
            decision = {k: record.decision[k] for k in ("status", "payload")
                        if k in record.decision}
        rows.append(AuditRow(record.id, tool_call_id, tool, proposed, record.run_id,
                             record.status, decision, record.settled_by, result))
    return rows


# ==========================================================================================
# Generative UI: tool components driven by TOOL_CALL events
# ==========================================================================================


def _json_or_text(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


class ToolComponent:
    """The front-end component that draws one tool call; subclasses draw particular tools.

    *What state* a call is in is not decided here: :class:`ComponentRegistry` tracks it with
    the package's :class:`~agentproto.agui.teaching_views.ToolCallCards` (done only on
    ``TOOL_CALL_RESULT``; ``TOOL_CALL_END`` closes the arguments, it is not a result) and hands
    each component the current card. A component only decides *how it looks*. Everything it
    shows is HTML-escaped: arguments and results are untrusted data (spec 1.1
    ``events/tool-calls``, "Security Considerations").
    """

    title = "Tool call"

    def __init__(self, tool_call_id: str, name: str) -> None:
        self.tool_call_id = tool_call_id
        self.name = name
        self.card: Any = None  #: the latest ``teaching_views.ToolCard`` (status, args, result)
        self.view = widgets.HTML()
        self.box = widgets.VBox([self.view], layout=widgets.Layout(
            border="1px solid #bbb", padding="4px", margin="2px", max_width="640px"))

    @property
    def status(self) -> str:
        return self.card.status if self.card is not None else "receiving arguments"

    @property
    def args(self) -> Any:
        """The parsed arguments once complete (None while they stream: do not act on them)."""
        if self.card is None or self.card.status == "receiving arguments":
            return None
        return _json_or_text(self.card.arguments)

    @property
    def result(self) -> Any:
        return None if self.card is None else _json_or_text(self.card.result)

    @property
    def executed(self) -> bool | None:
        """False when the result says the tool was not run (a denial, a cancellation)."""
        result = self.result
        if result is None:
            return None
        return not (isinstance(result, dict) and result.get("executed") is False)

    def update(self, card: Any) -> None:
        self.card = card
        self.render()

    def body_html(self) -> str:
        text = "" if self.card is None else self.card.arguments
        return f"<pre>{html.escape(text)}</pre>"

    def render(self) -> None:
        color = {"done": PALETTE["good"], "awaiting approval": PALETTE["secondary"]}.get(
            self.status, PALETTE["primary"])
        self.view.value = (f"<b>{html.escape(self.title)}</b> <code>{html.escape(self.name)}</code>"
                           f" <span style='color:{color}'>● {html.escape(self.status)}</span>"
                           f"<br>{self.body_html()}")

    def text(self) -> str:
        """A plain one-line description (for printing in a notebook or a test)."""
        extra = " (not executed)" if self.executed is False else ""
        return f"[{self.title}] {self.name} {self.tool_call_id}: {self.status}{extra}"


def _money(cents: int, currency: str = "") -> str:
    return f"{cents // 100}.{cents % 100:02d}" + (f" {currency}" if currency else "")


class OrderComponent(ToolComponent):
    """``get_order`` → the order at a glance: customer, status, total."""

    title = "Order"

    def body_html(self) -> str:
        order = self.result
        if not isinstance(order, dict):
            args = self.args if isinstance(self.args, dict) else {}
            return f"looking up <code>{html.escape(str(args.get('orderId', '…')))}</code>…"
        if "orderId" not in order:  # an error result: show it as text
            return f"<pre>{html.escape(json.dumps(order, ensure_ascii=False)[:300])}</pre>"
        return (f"<code>{html.escape(str(order['orderId']))}</code> · "
                f"{html.escape(str(order.get('customer', '')))} · status "
                f"<b>{html.escape(str(order.get('status', '')))}</b> · total "
                f"{_money(int(order.get('totalCents', 0)))} "
                f"{html.escape(str(order.get('currency', '')))}")

    def text(self) -> str:
        order = self.result if isinstance(self.result, dict) else {}
        return super().text() + (f" order status={order['status']}" if "status" in order else "")


class RefundComponent(ToolComponent):
    """``refund_order`` → the proposed refund, then whether it ran."""

    title = "Refund"

    def body_html(self) -> str:
        args = self.args if isinstance(self.args, dict) else {}
        amount = args.get("amountCents")
        proposed = (f"refund <b>{_money(amount)}</b> on "
                    f"<code>{html.escape(str(args.get('orderId')))}</code>"
                    if isinstance(amount, int) else "arguments streaming…")
        result = self.result
        if isinstance(result, dict) and result.get("refundId"):
            return (proposed + f" → refunded {_money(int(result.get('amountCents', 0)))} as "
                    f"<code>{html.escape(str(result['refundId']))}</code>")
        if self.executed is False:
            return proposed + f" → not executed ({html.escape(str(result.get('reason')))})"
        if self.status == "awaiting approval":
            return proposed + " → waiting for a person to approve"
        return proposed


class FallbackComponent(ToolComponent):
    """Any tool the front end has no component for: its name and raw arguments, escaped —
    never an attempt to render what the agent sent as markup."""

    title = "Unknown tool"


class ComponentRegistry:
    """The front end's map from tool name to component, driven by AG-UI events.

    ``feed(event)`` takes events (wire dicts as ``RunResult.events`` or an ``on_event``
    callback give them, or models). Each event goes through the core
    :class:`~agentproto.agui.state.StateReducer` and the package's
    :class:`~agentproto.agui.teaching_views.ToolCallCards`, which say what state every call is
    in; the registry only picks the component: the one registered for the call's
    ``toolCallName``, or :class:`FallbackComponent`. The choice is the front end's — the agent
    names a tool, it never names a widget.
    """

    def __init__(self, components: Mapping[str, type[ToolComponent]] | None = None, *,
                 fallback: type[ToolComponent] = FallbackComponent) -> None:
        self.components: dict[str, type[ToolComponent]] = dict(
            components if components is not None
            else {"get_order": OrderComponent, "refund_order": RefundComponent})
        self.fallback = fallback
        self.cards: dict[str, ToolComponent] = {}
        self.container = widgets.VBox()
        self.reset()

    def register(self, tool_name: str, component: type[ToolComponent]) -> None:
        self.components[tool_name] = component

    def reset(self) -> None:
        """Forget every call (a new conversation)."""
        from agentproto.agui.state import StateReducer
        from agentproto.agui.teaching_views import ToolCallCards

        self.reducer = StateReducer()
        self.tracker = ToolCallCards(self.reducer)
        self.cards = {}
        self.container.children = ()

    def feed(self, event: Any) -> ToolComponent | None:
        """Advance the components with one event; return the one it touched, if any."""
        from agentproto.agui.events import parse_event

        model = parse_event(dict(event)).event if isinstance(event, Mapping) else event
        if model is None:  # an unknown event type: dropped, as the processing model says
            return None
        self.reducer.apply(model)
        self.tracker.feed(model)
        touched = getattr(model, "tool_call_id", None)
        added = False
        for tool_call_id, card in self.tracker.cards.items():
            component = self.cards.get(tool_call_id)
            if component is None:
                cls = self.components.get(card.name, self.fallback)
                component = self.cards[tool_call_id] = cls(tool_call_id, card.name)
                added = True
            if component.card != card:
                component.update(card)
        if added:
            self.container.children = tuple(c.box for c in self.cards.values())
        return self.cards.get(touched) if touched else None

    def feed_all(self, events: Iterable[Any]) -> ComponentRegistry:
        for event in events:
            self.feed(event)
        return self

    def describe(self) -> str:
        """One line per component, in the order the calls appeared."""
        return "\n".join(c.text() for c in self.cards.values()) or "(no tool calls)"

    def widget(self) -> widgets.VBox:
        return self.container

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())


# ==========================================================================================
# Generative UI: CUSTOM events carrying UI intent, against an allow-list
# ==========================================================================================

#: The ``CUSTOM`` event name this front end listens to for UI intents. Prefixed, as the spec
#: asks of application names (spec 1.1 ``events/passthrough``: unprefixed names are reserved).
UI_INTENT_EVENT = "agentproto.ui_intent"

#: The allow-list: component name → JSON Schema of its props. Anything else is refused.
UI_COMPONENTS: dict[str, dict[str, Any]] = {
    "order_summary": {
        "type": "object",
        "properties": {"orderId": {"type": "string", "pattern": "^[A-Z][0-9]{4}$"},
                       "highlight": {"enum": ["status", "total", "refund"]}},
        "required": ["orderId"],
        "additionalProperties": False,
    },
    "progress": {
        "type": "object",
        "properties": {"label": {"type": "string", "maxLength": 80},
                       "percent": {"type": "number", "minimum": 0, "maximum": 100}},
        "required": ["label", "percent"],
        "additionalProperties": False,
    },
    "notice": {
        "type": "object",
        "properties": {"level": {"enum": ["info", "warning", "error"]},
                       "text": {"type": "string", "maxLength": 200}},
        "required": ["level", "text"],
        "additionalProperties": False,
    },
    "link_button": {
        "type": "object",
        "properties": {"label": {"type": "string", "maxLength": 40},
                       "href": {"type": "string",
                                "pattern": r"^https://shop\.example\.com/[A-Za-z0-9/_\-]*$"}},
        "required": ["label", "href"],
        "additionalProperties": False,
    },
}

_ENVELOPE_SCHEMA = {
    "type": "object",
    "properties": {"component": {"type": "string", "minLength": 1, "maxLength": 64},
                   "props": {"type": "object"},
                   "version": {"const": 1}},
    "required": ["component", "props"],
    "additionalProperties": False,
}

#: Content no prop may carry, whatever its schema says: markup that executes, script URLs,
#: inline event handlers. Defence in depth behind the schemas.
_UNSAFE = re.compile(
    r"<\s*/?\s*(script|iframe|object|embed|style|link|meta)\b|javascript\s*:|vbscript\s*:"
    r"|data\s*:\s*text/html|\bon[a-z]+\s*=", re.IGNORECASE)


class UIIntentError(ValueError):
    """A UI intent the front end refuses to render; ``rule`` says which check refused it."""

    rule = "intent.invalid"


class IntentEnvelopeError(UIIntentError):
    """The ``CUSTOM`` value is not ``{component, props[, version]}``."""

    rule = "intent.envelope"


class UnknownComponentError(UIIntentError):
    """The intent names a component that is not on the allow-list."""

    rule = "intent.unknown-component"


class UnsafeContentError(UIIntentError):
    """A prop carries markup, a script URL or an event handler."""

    rule = "intent.unsafe-content"


class IntentPropsError(UIIntentError):
    """The props do not match the component's JSON Schema."""

    rule = "intent.invalid-props"


class IntentTooLargeError(UIIntentError):
    """The intent is larger than the front end accepts."""

    rule = "intent.too-large"


@dataclass(frozen=True)
class UIIntent:
    """A validated intent: an allow-listed component and props that match its schema."""

    component: str
    props: dict[str, Any]


def _strings(value: Any, path: str = "") -> Iterable[tuple[str, str]]:
    if isinstance(value, str):
        yield path or "/", value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(k, f"{path}/{k}#key")
            yield from _strings(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}/{i}")


def validate_ui_intent(event: Mapping[str, Any], *,
                       components: Mapping[str, Mapping[str, Any]] = UI_COMPONENTS,
                       max_bytes: int = 2048) -> UIIntent:
    """Check one ``CUSTOM`` event's ``value`` as a UI intent; return it, or raise.

    Accepts a wire ``CUSTOM`` event or the bare value. Order of checks: size
    (:class:`IntentTooLargeError`), envelope (:class:`IntentEnvelopeError`), component on the
    allow-list (:class:`UnknownComponentError`), unsafe content anywhere in the props
    (:class:`UnsafeContentError`), props against the component's schema
    (:class:`IntentPropsError`). The protocol does not look inside ``CUSTOM`` values — the
    spec says to treat them as untrusted input — so this check is the front end's job.
    """
    value = event.get("value") if event.get("type") == "CUSTOM" else event
    size = len(json.dumps(value, ensure_ascii=False).encode())
    if size > max_bytes:
        raise IntentTooLargeError(f"UI intent is {size} bytes; this front end accepts at most "
                                  f"{max_bytes}")
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(_ENVELOPE_SCHEMA).iter_errors(value))
    if error is not None:
        raise IntentEnvelopeError(f"UI intent must be {{component, props}}: {error.message}")
    component = value["component"]
    if component not in components:
        raise UnknownComponentError(f"Component {component!r} is not on the allow-list "
                                    f"({', '.join(sorted(components))})")
    for where, text in _strings(value["props"]):
        found = _UNSAFE.search(text)
        if found:
            raise UnsafeContentError(f"Prop {where} of {component!r} carries unsafe content "
                                     f"{found.group(0)!r}")
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(components[component]).iter_errors(value["props"]))
    if error is not None:
        where = "/" + "/".join(str(p) for p in error.absolute_path)
        raise IntentPropsError(f"Props of {component!r} do not match its schema at {where}: "
                               f"{error.message}")
    return UIIntent(component, dict(value["props"]))


class IntentRenderer:
    """Renders allow-listed UI intents from ``CUSTOM`` events; refuses the rest, visibly.

    ``feed(event)``: a ``CUSTOM`` event named :data:`UI_INTENT_EVENT` is validated and either
    rendered (``accepted``) or recorded with its error (``refused``); other ``CUSTOM`` names are
    ignored without a warning (spec 1.1 ``events/passthrough``: a consumer that does not
    recognise a name ignores the event); other event types are not this renderer's business.
    """

    def __init__(self, components: Mapping[str, Mapping[str, Any]] = UI_COMPONENTS) -> None:
        self.components = components
        self.accepted: list[UIIntent] = []
        self.refused: list[tuple[Any, UIIntentError]] = []
        self.ignored: list[str] = []
        self.container = widgets.VBox()

    def feed(self, event: Mapping[str, Any]) -> UIIntent | UIIntentError | None:
        if event.get("type") != "CUSTOM":
            return None
        if event.get("name") != UI_INTENT_EVENT:
            self.ignored.append(str(event.get("name")))
            return None
        try:
            intent = validate_ui_intent(event, components=self.components)
        except UIIntentError as exc:
            self.refused.append((event.get("value"), exc))
            self._add(widgets.HTML(f"<span style='color:{PALETTE['bad']}'>refused "
                                   f"({html.escape(exc.rule)}): {html.escape(str(exc))}</span>"))
            return exc
        self.accepted.append(intent)
        self._add(self._render(intent))
        return intent

    def _add(self, view: widgets.Widget) -> None:
        self.container.children = (*self.container.children, view)

    @staticmethod
    def _render(intent: UIIntent) -> widgets.Widget:
        p = intent.props
        if intent.component == "progress":
            return widgets.FloatProgress(value=float(p["percent"]), min=0, max=100,
                                         description=p["label"][:20])
        if intent.component == "notice":
            color = {"info": PALETTE["primary"], "warning": PALETTE["secondary"],
                     "error": PALETTE["bad"]}[p["level"]]
            return widgets.HTML(f"<div style='border-left:4px solid {color};padding-left:6px'>"
                                f"{html.escape(p['text'])}</div>")
        if intent.component == "link_button":
            return widgets.HTML(f"<a href='{html.escape(p['href'], quote=True)}' target='_blank' "
                                f"rel='noopener'>{html.escape(p['label'])}</a>")
        return widgets.HTML(f"order <code>{html.escape(p['orderId'])}</code>"
                            + (f" (highlight: {html.escape(p['highlight'])})"
                               if "highlight" in p else ""))

    def widget(self) -> widgets.VBox:
        return self.container

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self.widget())


# ==========================================================================================
# Sequence diagrams from the event log
# ==========================================================================================

#: The participants, left to right.
LANES = ("User", "UI (client)", "Agent server", "MCP tools")
_LANE_X = {name: i for i, name in enumerate(LANES)}


@dataclass(frozen=True)
class Arrow:
    """One message in a sequence diagram."""

    src: str
    dst: str
    label: str
    kind: str = "event"  #: ``event`` | ``request`` | ``call`` | ``reply`` | ``human``
    run_id: str | None = None


def _did_call_tool(result_event: Mapping[str, Any]) -> bool:
    """A ``TOOL_CALL_RESULT`` the agent wrote without calling the tool says so in its content
    (``{"executed": false, …}``: a denial, a cancellation, a refused edit)."""
    content = _json_or_text(result_event.get("content"))
    return not (isinstance(content, dict) and content.get("executed") is False)


def sequence_from_log(runs: Sequence[tuple[str, str, Sequence[Mapping[str, Any]]]], *,
                      decisions: Mapping[str, str] | None = None,
                      steps: bool = False) -> list[Arrow]:
    """Arrows for a thread's runs, from their recorded events.

    ``runs`` is ``[(run_id, kind, events), …]`` in order (``kind``: ``new``/``resume``/
    ``replay``); ``decisions`` maps a resuming run's id to what the person chose. Streaming
    triads are collapsed to one arrow each (``TEXT_MESSAGE_* ×n``, ``TOOL_CALL_START/ARGS/END
    name``); each ``TOOL_CALL_RESULT`` that came from running the tool is preceded by the MCP
    ``tools/call`` and its reply. ``steps=True`` keeps ``STEP_*`` events.
    """
    decisions = dict(decisions or {})
    arrows: list[Arrow] = []
    names: dict[str, str] = {}
    for run_id, kind, events in runs:
        if kind == "new":
            arrows.append(Arrow("User", "UI (client)", "types a request", "human", run_id))
            arrows.append(Arrow("UI (client)", "Agent server", "POST /ag-ui/agent", "request",
                                run_id))
        else:
            label = decisions.get(run_id, "answers")
            if kind == "replay":
                label += " (again)"
            arrows.append(Arrow("User", "UI (client)", label, "human", run_id))
            arrows.append(Arrow("UI (client)", "Agent server", "POST /ag-ui/agent  resume=[…]",
                                "request", run_id))
        i = 0
        while i < len(events):
            event = events[i]
            kind_ = event["type"]
            if kind_ in ("TEXT_MESSAGE_START", "TOOL_CALL_START"):
                key = "messageId" if kind_ == "TEXT_MESSAGE_START" else "toolCallId"
                end = "TEXT_MESSAGE_END" if kind_ == "TEXT_MESSAGE_START" else "TOOL_CALL_END"
                j = i
                while j < len(events) and not (events[j]["type"] == end
                                               and events[j].get(key) == event.get(key)):
                    j += 1
                if kind_ == "TEXT_MESSAGE_START":
                    label = f"TEXT_MESSAGE_START/CONTENT×{j - i - 1}/END"
                else:
                    names[event["toolCallId"]] = event["toolCallName"]
                    label = f"TOOL_CALL_START/ARGS/END {event['toolCallName']}"
                arrows.append(Arrow("Agent server", "UI (client)", label, "event", run_id))
                i = j + 1
                continue
            if kind_ == "TOOL_CALL_RESULT":
                name = names.get(event.get("toolCallId", ""), "?")
                if _did_call_tool(event):
                    arrows.append(Arrow("Agent server", "MCP tools", f"tools/call {name}", "call",
                                        run_id))
                    arrows.append(Arrow("MCP tools", "Agent server", "CallToolResult", "reply",
                                        run_id))
                arrows.append(Arrow("Agent server", "UI (client)", f"TOOL_CALL_RESULT ({name})",
                                    "event", run_id))
            elif kind_ in ("STEP_STARTED", "STEP_FINISHED"):
                if steps:
                    arrows.append(Arrow("Agent server", "UI (client)",
                                        f"{kind_} {event.get('stepName')}", "event", run_id))
            elif kind_ == "RUN_FINISHED":
                outcome = (event.get("outcome") or {}).get("type", "success")
                arrows.append(Arrow("Agent server", "UI (client)", f"RUN_FINISHED ({outcome})",
                                    "event", run_id))
                if outcome == "interrupt":
                    arrows.append(Arrow("UI (client)", "User", "shows the approval card",
                                        "human", run_id))
            elif kind_ == "CUSTOM":
                arrows.append(Arrow("Agent server", "UI (client)", f"CUSTOM {event.get('name')}",
                                    "event", run_id))
            else:
                arrows.append(Arrow("Agent server", "UI (client)", kind_, "event", run_id))
            i += 1
    return arrows


def _decision_label(decision: Mapping[str, Any] | None) -> str:
    if not decision:
        return "answers"
    if decision.get("status") == "cancelled":
        return "cancels"
    payload = decision.get("payload") or {}
    if not payload.get("approved"):
        return "denies"
    return "approves with edits" if payload.get("editedArgs") else "approves"


def sequence_from_store(store: Any, thread_id: str, *, steps: bool = False) -> list[Arrow]:
    """:func:`sequence_from_log` over a thread as the server's store recorded it: its runs in
    order, each run's event log, and the decisions from the interrupt ledger."""
    ledger = store.thread_record(thread_id)
    decisions = {r.settled_by: _decision_label(r.decision) for r in ledger.interrupts
                 if r.settled_by}
    runs = []
    for record in store.runs(thread_id):
        if record.kind == "replay" and record.replay_of in decisions:
            decisions[record.run_id] = decisions[record.replay_of]
        runs.append((record.run_id, record.kind, store.events(thread_id, record.run_id)))
    return sequence_from_log(runs, decisions=decisions, steps=steps)


_ARROW_COLORS = {"event": PALETTE["primary"], "request": PALETTE["secondary"],
                 "call": PALETTE["accent"], "reply": PALETTE["accent"],
                 "human": PALETTE["good"]}


def plot_sequence(arrows: Sequence[Arrow], title: str = "") -> Figure:
    """Draw ``arrows`` as a sequence diagram: one lifeline per :data:`LANES` participant, time
    running down, a dashed rule between runs labelled with the run id."""
    n = len(arrows)
    fig, ax = plt.subplots(figsize=(10, 0.27 * n + 1.4))
    top, bottom = 0.6, -(n + 0.4)
    for name, x in _LANE_X.items():
        ax.plot([x, x], [bottom, top - 0.4], color=PALETTE["muted"], linewidth=1, zorder=0)
        ax.text(x, top, name, ha="center", va="bottom", fontsize=9, fontweight="bold",
                bbox={"boxstyle": "round", "facecolor": "#eeeeee", "edgecolor": "#999999"})
    current = None
    for row, arrow in enumerate(arrows):
        y = -row - 0.5
        if arrow.run_id != current:
            current = arrow.run_id
            ax.axhline(y + 0.45, color="#bbbbbb", linestyle="--", linewidth=0.8, zorder=0)
            ax.text(-0.45, y + 0.5, f"run {arrow.run_id}", fontsize=7, color="#555555",
                    va="bottom")
        x0, x1 = _LANE_X[arrow.src], _LANE_X[arrow.dst]
        color = _ARROW_COLORS.get(arrow.kind, PALETTE["primary"])
        ax.annotate("", xy=(x1, y), xytext=(x0, y),
                    arrowprops={"arrowstyle": "-|>", "color": color, "linewidth": 1.2,
                                "linestyle": "--" if arrow.kind == "reply" else "-"})
        ax.text((x0 + x1) / 2, y + 0.06, arrow.label, ha="center", va="bottom", fontsize=7,
                color="#222222")
    ax.set_xlim(-0.5, len(LANES) - 0.5)
    ax.set_ylim(bottom, top + 0.9)
    ax.axis("off")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig
