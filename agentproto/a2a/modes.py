"""The four ways a client waits for a task's result, as a model on virtual time (sans I/O).

A2A gives a client four ways to learn what a task did (spec §3.2.2, §3.1.2, §3.1.7): a
**blocking** ``SendMessage``, **polling** ``GetTask``, **streaming** (SSE) and **push**
(webhooks). They are four views of one sequence of updates — the agent's. This module makes
that sentence computable:

* :func:`agent_schedule` reads a sans-I/O agent's updates (the same async generator the server
  drives) on *virtual* time: its ``Wait(ms)`` updates advance a counter, nothing sleeps, no
  event loop runs;
* :func:`model_modes` says, for that schedule, a poll interval and a one-way network latency,
  when each mode first shows progress, when it knows the result, how many requests (and webhook
  POSTs) it costs and which updates it never sees.

Everything here is data (:class:`ScheduledUpdate`, :class:`ModeResult`); the plots and the
slider widget are in :mod:`agentproto.course.a2a_modes`, and the same four modes measured on a
real loopback server — same :class:`ModeResult` — in
:func:`agentproto.course.a2a_modes.measure_modes`.

>>> from agentproto.a2a.agents import TravelDeskAgent
>>> schedule = agent_schedule(TravelDeskAgent(step_ms=2000),
...                           "Plan my trip to Sanya from 2026-04-08 to 2026-04-12")
>>> schedule[0].label, schedule[-1].at_ms
('working: Reading your request…', 8000)
>>> {r.mode: r.requests for r in model_modes(schedule, poll_ms=1000)}
{'blocking': 1, 'polling': 9, 'streaming': 1, 'push': 1}
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from agentproto.a2a.agents import ArtifactChunk, Reply, RequestContext, Status, Update, Wait
from agentproto.a2a.states import INTERRUPTED_STATES, TERMINAL_STATES
from agentproto.a2a.types import user_message

__all__ = ["MODES", "ScheduledUpdate", "agent_schedule", "ModeResult", "model_modes", "ScheduledAgent"]

#: The four ways to wait for a task's result (spec §3.2.2, §3.1.2, §3.1.7).
MODES = ("blocking", "polling", "streaming", "push")


class ScheduledAgent(Protocol):
    """What :func:`agent_schedule` needs of an agent: its ``run`` generator."""

    def run(self, ctx: RequestContext) -> AsyncIterator[Update]: ...


@dataclass(frozen=True)
class ScheduledUpdate:
    """One update an agent produces, at ``at_ms`` of virtual time after the task started."""

    at_ms: int
    kind: str  #: ``status``, ``artifact`` or ``message``
    label: str  #: e.g. ``working: Searching flights…`` or ``itinerary +chunk 2``
    update: Update | None = field(repr=False, default=None)

    @property
    def settles(self) -> bool:
        """Does the task stop here (a direct message, or a terminal or interrupted state)?"""
        if self.kind == "message":
            return True
        return isinstance(self.update, Status) and (
            self.update.state in TERMINAL_STATES or self.update.state in INTERRUPTED_STATES
        )


def agent_schedule(agent: ScheduledAgent, text: str, *, message_id: str = "msg-1") -> list[ScheduledUpdate]:
    """Run a sans-I/O agent on ``text`` and list its updates on virtual time.

    The agent's ``Wait(ms)`` updates advance the virtual clock; nothing sleeps. This is the
    same generator the server drives, read directly — so the schedule is exactly what the agent
    would produce, minus the network. Raises ``TypeError`` for an agent that awaits real I/O
    (it has no schedule without a server) and ``ValueError`` for one that waits until canceled.
    """
    ctx = RequestContext(message=user_message(text, message_id=message_id), context_id="ctx-1")
    gen = agent.run(ctx)
    now = 0
    out: list[ScheduledUpdate] = []
    chunks: dict[str, int] = {}
    while True:
        update = _next_without_loop(gen)
        if update is None:
            return out
        if isinstance(update, Wait):
            if update.ms is None:
                raise ValueError("the agent waits until it is canceled: no finite schedule")
            now += update.ms
        elif isinstance(update, Status):
            words = "".join(p.text or "" for p in update.parts)
            out.append(
                ScheduledUpdate(now, "status", update.state.short + (f": {words}" if words else ""), update)
            )
        elif isinstance(update, ArtifactChunk):
            chunks[update.artifact_id] = chunks.get(update.artifact_id, 0) + 1
            n = chunks[update.artifact_id]
            label = update.artifact_id + (
                f" +chunk {n}" if update.append else (" chunk 1" if not update.last_chunk else "")
            )
            out.append(ScheduledUpdate(now, "artifact", label, update))
        elif isinstance(update, Reply):
            out.append(ScheduledUpdate(now, "message", "direct message", update))


def _next_without_loop(gen: AsyncIterator[Update]) -> Update | None:
    """The next item of an async generator that never really awaits (no event loop needed);
    ``None`` when it is exhausted."""
    step = gen.__anext__()
    try:
        step.send(None)  # type: ignore[attr-defined]  # a coroutine, driven by hand
    except StopIteration as done:
        value: Update = done.value
        return value
    except StopAsyncIteration:
        return None
    close = getattr(step, "close", None)
    if close is not None:
        close()
    raise TypeError("the agent awaited real I/O; agent_schedule needs a sans-I/O agent")


@dataclass
class ModeResult:
    """What a client waiting in one ``mode`` saw: when, how often, and at what cost.

    Times are milliseconds after the client sent the message (virtual in :func:`model_modes`,
    wall-clock when measured on a server). ``requests`` are HTTP requests the client made;
    ``posts`` are webhook POSTs the server made to the client (push only).
    """

    mode: str
    requests: int
    posts: int
    first_update_ms: float | None
    done_ms: float | None
    seen: list[tuple[float, str]]
    total: int  #: updates the task produced (the initial Task snapshot included)

    @property
    def missed(self) -> int:
        """Updates the client never saw (each poll sees only the latest state)."""
        return max(self.total - len(self.seen), 0)


def model_modes(
    schedule: Sequence[ScheduledUpdate], *, poll_ms: float = 1000.0, latency_ms: float = 50.0
) -> list[ModeResult]:
    """Blocking, polling, streaming and push on one schedule, with a one-way network latency.

    The model (virtual time, the client sends at 0, the server receives at ``latency_ms``):

    * **blocking** — one request; the answer leaves when the task is terminal or interrupted
      (spec §3.2.2) and arrives ``latency_ms`` later; nothing is seen before;
    * **polling** — ``returnImmediately`` (the Task as created), then ``GetTask`` every
      ``poll_ms``; each answer shows the state *at the moment the server read it*, so updates
      between two polls are never seen;
    * **streaming** — one request; the Task, then every update, each ``latency_ms`` after it
      happens;
    * **push** — one request (with a webhook config); the server POSTs the Task and every
      update to the webhook: same timing as streaming, but no open connection — and one POST
      per update.
    """
    if poll_ms <= 0:
        raise ValueError("poll_ms must be positive")
    d = float(latency_ms)
    settle = next((s.at_ms for s in schedule if s.settles), schedule[-1].at_ms if schedule else 0)
    total = len(schedule) + 1
    first_progress = schedule[0].at_ms if schedule else 0
    results = [
        ModeResult(
            "blocking", 1, 0, 2 * d + settle, 2 * d + settle, [(2 * d + settle, "the settled Task")], total
        )
    ]
    # polling: the Task as created, then GetTask number k leaves at T = 2d + k·poll_ms, is read
    # by the server at T + d (= schedule time T, the agent having started at d) and answered
    # at T + 2d.
    seen: list[tuple[float, str]] = [(2 * d, "Task: submitted")]
    requests, k, last = 1, 0, -1
    first: float | None = None
    while True:
        k += 1
        requests += 1
        sent = 2 * d + k * poll_ms
        done = [s for s in schedule if s.at_ms <= sent]
        if done and len(done) - 1 != last:
            last = len(done) - 1
            seen.append((sent + 2 * d, "GetTask: " + done[-1].label))
            first = sent + 2 * d if first is None else first
        if sent >= settle:
            results.append(ModeResult("polling", requests, 0, first, sent + 2 * d, seen, total))
            break
    arrivals = [(2 * d, "Task: submitted")] + [(s.at_ms + 2 * d, s.label) for s in schedule]
    results.append(ModeResult("streaming", 1, 0, first_progress + 2 * d, settle + 2 * d, arrivals, total))
    results.append(
        ModeResult("push", 1, total, first_progress + 2 * d, settle + 2 * d, list(arrivals), total)
    )
    return results
