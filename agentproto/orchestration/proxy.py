"""A buffering reverse proxy and an idle-timeout hop between an SSE agent and a browser, simulated.

An AG-UI stream crosses more than one hop: a reverse proxy (nginx, a platform's ingress) that
may *buffer* the response, and a load balancer or CDN that closes a connection on which no
byte has moved for a while. Both are invisible to the agent and the client and both break
streaming: buffering turns a live stream into late bursts, an idle timeout cuts a run during a
slow tool call — and a disconnect is not a cancel, so the agent carries on producing events
nobody receives.

Theory of operation
-------------------
A pure simulation in virtual seconds, no sockets and no clock:

1. :func:`schedule_frames` gives a run's events send times and their real SSE frame sizes
   (:func:`~agentproto.agui.sse.encode_sse`), with a tool latency before each
   ``TOOL_CALL_RESULT``;
2. :func:`with_heartbeats` adds ``: keep-alive`` comment frames into idle gaps, as the
   agentproto server does;
3. :func:`simulate_proxy` plays the frames through ``agent → proxy → idle-timeout hop →
   browser`` and returns a :class:`ProxyRun`: when each frame reached the browser (or that it
   never did), the delivery bursts, and where the connection was cut.

The course draws it (:mod:`agentproto.course.agui_transport`); tests read the data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentproto.agui.events import BaseEvent
from agentproto.agui.sse import encode_sse
from agentproto.sse import KEEP_ALIVE

__all__ = ["ProxyFrame", "ProxyRun", "schedule_frames", "with_heartbeats", "simulate_proxy"]


@dataclass(frozen=True)
class ProxyFrame:
    """One SSE frame the agent server writes: when (virtual seconds), how big, what it is."""

    t: float
    nbytes: int
    label: str
    kind: str = "event"  #: ``event`` (a ``data:`` frame) or ``comment`` (a heartbeat)


def schedule_frames(
    events: Sequence[BaseEvent | Mapping[str, Any]], *, gap_s: float = 0.05, tool_s: float = 0.0
) -> list[ProxyFrame]:
    """Give a run's events (models or wire dicts) virtual send times: ``gap_s`` apart, and
    each ``TOOL_CALL_RESULT`` ``tool_s`` after the event before it (the tool's latency).
    Sizes are the events' real SSE frame sizes (:func:`~agentproto.agui.sse.encode_sse`).
    Negative times raise ``ValueError``."""
    if gap_s < 0 or tool_s < 0:
        raise ValueError("gap_s and tool_s are durations and cannot be negative")
    frames: list[ProxyFrame] = []
    t = 0.0
    for i, event in enumerate(events):
        data = event if isinstance(event, BaseEvent) else dict(event)
        kind = event.type.value if isinstance(event, BaseEvent) else str(event.get("type"))
        if i:
            t += tool_s if kind == "TOOL_CALL_RESULT" else gap_s
        frames.append(ProxyFrame(round(t, 6), len(encode_sse(data)), kind))
    return frames


def with_heartbeats(frames: Sequence[ProxyFrame], heartbeat_s: float | None) -> list[ProxyFrame]:
    """Add a ``: keep-alive`` comment whenever the stream has been idle for ``heartbeat_s``
    (what the agentproto server does; ``None`` or 0 adds none, a negative interval raises
    ``ValueError``)."""
    if heartbeat_s is not None and heartbeat_s < 0:
        raise ValueError("heartbeat_s cannot be negative (use None or 0 for no heartbeats)")
    if not heartbeat_s:
        return list(frames)
    out: list[ProxyFrame] = []
    last = 0.0
    for frame in frames:
        t = last + heartbeat_s
        while t < frame.t:
            out.append(ProxyFrame(round(t, 6), len(KEEP_ALIVE), ": keep-alive", "comment"))
            t += heartbeat_s
        out.append(frame)
        last = frame.t
    return out


@dataclass
class ProxyRun:
    """What the browser received: per frame, the virtual time it arrived (None: never)."""

    frames: list[ProxyFrame]
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
        return sum(1 for f, d in zip(self.frames, self.delivered) if f.kind == "event" and d is not None)

    @property
    def first_event_at(self) -> float | None:
        times = [d for f, d in zip(self.frames, self.delivered) if f.kind == "event" and d is not None]
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
        return (
            f"{self.events_delivered}/{self.events_total} events delivered in "
            f"{self.batches} burst(s); first event visible at {first}; "
            f"connection cut: {cut}"
        )


def simulate_proxy(
    frames: Sequence[ProxyFrame], *, buffer_bytes: int | None = 4096, idle_timeout_s: float | None = 60.0
) -> ProxyRun:
    """Play ``frames`` through ``agent → proxy → idle-timeout hop → browser``.

    * The **proxy** buffers the response (``buffer_bytes``: it passes bytes on only when that
      much has piled up, or when the upstream response ends) — nginx's default for proxied
      responses. ``buffer_bytes=None`` is what ``X-Accel-Buffering: no`` asks for: every frame
      is passed on as it arrives.
    * The **idle-timeout hop** (a load balancer, a CDN) closes the connection when no byte
      has crossed it for ``idle_timeout_s``. Frames after the cut never reach the browser —
      although the agent produced them: a disconnect is not a cancel.

    Pure function of its inputs; times are virtual seconds from the request. A buffer or a
    timeout that is not positive would mean nothing and raises ``ValueError``.
    """
    if buffer_bytes is not None and buffer_bytes <= 0:
        raise ValueError("buffer_bytes must be positive (None means no buffering)")
    if idle_timeout_s is not None and idle_timeout_s <= 0:
        raise ValueError("idle_timeout_s must be positive (None means no idle timeout)")
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
    return ProxyRun(frames, delivered, sorted(set(flushes)), cut_at, buffer_bytes, idle_timeout_s)
