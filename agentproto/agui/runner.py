"""Drive one agent run: from a validated input to a recorded, well-formed event stream.

The HTTP server is a thin adapter; everything a run needs between "the input was accepted" and
"the last event was recorded" lives here, without I/O of its own (the store is injected, time
and ids come from the context), so the same code runs under uvicorn, in a test and in a notebook
cell.

Theory of operation
-------------------
An *agent* is any callable ``agent(ctx) -> Iterable[Event]``: a generator that yields AG-UI
events for one run. It reads what it needs from its :class:`RunContext` — the input, the
resume plan (:func:`~agentproto.agui.interrupts.validate_resume`), the thread's state and
messages *as of the last event it yielded*, the clock and the id factory.

:class:`RunDriver` pulls the agent's events one at a time and, for each:

1. stamps ``timestamp`` from the injected clock if the agent left it out;
2. checks it with the core verifier — an agent bug never reaches a client as a broken stream:
   the offending event is replaced by ``RUN_ERROR`` (code ``AGENT_PROTOCOL_VIOLATION``);
3. applies it to the thread view (the core state reducer), so ``ctx.state``/``ctx.messages``
   are current when the agent builds its snapshots;
4. appends it to the run's event log in the store, and on the terminal event records the
   outcome, the new pending interrupts, the thread's state and messages.

Everything the spec wants of a producer's ending is enforced here (spec 1.1
``events/lifecycle``): an agent that raises becomes ``RUN_ERROR`` (code ``AGENT_ERROR``); one
that stops without a terminal event becomes ``RUN_ERROR`` (``AGENT_INCOMPLETE``); a run told to
stop (:meth:`RunDriver.cancel`) closes whatever is open — steps, messages, tool calls — and
finishes with ``outcome: {type: "cancelled"}``. Cancellation is cooperative at event
granularity: it takes effect before the agent's next event.

Warnings about the input (:data:`INPUT_WARNINGS_EVENT`): the server hands the driver what it
dropped or ignored on the way in — resume entries naming no open interrupt, a ``cancelled``
entry's payload, an uninterpretable or newer ``protocolVersion``, stripped unknown members —
and the driver puts them in one ``CUSTOM`` event right after the agent's ``RUN_STARTED``.

A resumed run that fails puts its interrupts back to pending, so the person can answer again;
the tools' idempotency keys make a retried action safe. A cancelled resumed run keeps them
settled: the person answered, then chose to stop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentproto.agui import events as ev
from agentproto.agui.interrupts import ResumePlan, pending_interrupts
from agentproto.agui.state import StateReducer
from agentproto.agui.verify import Verifier
from agentproto.clock import Clock

__all__ = ["AGUIAgent", "RunContext", "RunDriver", "replay_events", "OUTCOME_STATUS", "INPUT_WARNINGS_EVENT"]


class AGUIAgent(Protocol):
    """Anything that turns a run context into a stream of AG-UI events."""

    def __call__(self, ctx: RunContext) -> Iterable[ev.BaseEvent]: ...


#: The ``CUSTOM`` event that tells the client what the producer dropped or ignored from its input
#: and ran without. Spec 1.1 asks the producer to "surface a warning" for an unrecognised resume
#: entry (``basic/patterns/interrupt-resume``, "Resuming") and to warn about an uninterpretable
#: or newer ``protocolVersion`` (``basic/versioning``, "Version negotiation"), but defines no
#: warning event; ``CUSTOM`` is the protocol's extension point, a consumer that does not know the
#: name "MUST ignore the event", and invented names SHOULD carry a vendor prefix
#: (``events/passthrough``, "CUSTOM") — hence ``agentproto.``, like ``agentproto.resume_replayed``.
#: ``value``: ``{"warnings": [{"code", "message", "path"[, "interruptId"]}]}``.
INPUT_WARNINGS_EVENT = "agentproto.input_warnings"

#: Run record status for each way a run can end.
OUTCOME_STATUS = {"success": "success", "interrupt": "interrupt", "cancelled": "cancelled"}

#: START type → (END type, the id field that pairs them). The things a cancelled run must close.
_OPENERS: dict[str, tuple[type[ev.BaseEvent], str]] = {
    "TEXT_MESSAGE_START": (ev.TextMessageEndEvent, "message_id"),
    "TOOL_CALL_START": (ev.ToolCallEndEvent, "tool_call_id"),
    "REASONING_MESSAGE_START": (ev.ReasoningMessageEndEvent, "message_id"),
    "REASONING_START": (ev.ReasoningEndEvent, "message_id"),
    "STEP_STARTED": (ev.StepFinishedEvent, "step_name"),
}
_CLOSERS = {end.model_fields["type"].default.value: (start, key) for start, (end, key) in _OPENERS.items()}


@dataclass
class RunContext:
    """What an agent sees of the run it is producing."""

    input: ev.RunAgentInput
    plan: ResumePlan
    clock: Clock
    ids: Callable[[], str]
    _view: StateReducer = field(repr=False, default_factory=StateReducer)
    _cancel: threading.Event = field(repr=False, default_factory=threading.Event)

    @classmethod
    def start(
        cls,
        run_input: ev.RunAgentInput,
        plan: ResumePlan,
        *,
        clock: Clock,
        ids: Callable[[], str],
        state: Any = None,
        messages: Iterable[dict[str, Any]] = (),
    ) -> RunContext:
        """A context for a run that begins from the thread's ``state`` and ``messages``."""
        return cls(
            input=run_input,
            plan=plan,
            clock=clock,
            ids=ids,
            _view=StateReducer(state=state, messages=list(messages)),
        )

    @property
    def thread_id(self) -> str:
        return self.input.thread_id

    @property
    def run_id(self) -> str:
        return self.input.run_id

    @property
    def state(self) -> Any:
        """The thread's state, including every change this run has emitted so far."""
        return self._view.state

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The thread's messages (wire shape), including this run's so far."""
        return self._view.export_messages()

    @property
    def cancel_requested(self) -> bool:
        """True once someone asked the run to stop (the driver acts on it by itself)."""
        return self._cancel.is_set()

    def now_ms(self) -> int:
        return self.clock.now_ms()


class RunDriver:
    """Iterate an agent's run, recording it and guaranteeing a well-formed ending.

    ``store`` may be None (a notebook that only wants the events). ``kind`` is the run record's
    kind (``new`` or ``resume``); the store's run row must already exist when a store is given.
    ``input_warnings`` (wire dicts ``{code, message, path}``) go out in one
    :data:`INPUT_WARNINGS_EVENT` right after ``RUN_STARTED``. ``thread_key`` is the thread's
    key in ``store`` when it differs from ``ctx.thread_id`` (default: the same).
    """

    def __init__(
        self,
        agent: AGUIAgent,
        ctx: RunContext,
        store: Any = None,
        *,
        kind: str = "new",
        input_warnings: Iterable[dict[str, Any]] = (),
        thread_key: str | None = None,
    ) -> None:
        self.agent = agent
        #: The thread's key in ``store`` (the server keeps thread ids per owner); events carry
        #: the client's ``ctx.thread_id`` whatever it is.
        self.thread_key = thread_key or ctx.thread_id
        self.input_warnings = list(input_warnings)
        self.ctx = ctx
        self.store = store
        self.kind = kind
        #: The messages the run began with: at its end only these may be dropped from the
        #: thread (by a MESSAGES_SNAPSHOT), not what another run on the thread added meanwhile.
        self._base_ids = [str(m["id"]) for m in ctx.messages]
        self.status: str = "running"
        self._verifier = Verifier()
        self._open: list[tuple[str, Any]] = []  # (START type, id) in opening order
        self._started = False

    # -- control --------------------------------------------------------------------------

    def cancel(self) -> None:
        """Ask the run to stop; it ends with the ``cancelled`` outcome before its next event."""
        self.ctx._cancel.set()

    @property
    def finished(self) -> bool:
        return self.status != "running"

    # -- the loop ---------------------------------------------------------------------------

    def __iter__(self) -> Iterator[ev.BaseEvent]:
        source = iter(self.agent(self.ctx))
        try:
            while not self.finished:
                if self.ctx.cancel_requested:
                    close = getattr(source, "close", None)
                    if close is not None:
                        close()
                    yield from self._cancel_events()
                    return
                try:
                    event = next(source)
                except StopIteration:
                    yield from self._emit(
                        ev.RunErrorEvent(
                            message="The agent stopped without finishing the run", code="AGENT_INCOMPLETE"
                        )
                    )
                    return
                except Exception as exc:  # an agent bug must still end the stream properly
                    yield from self._emit(
                        ev.RunErrorEvent(
                            message=f"The agent failed: {type(exc).__name__}: {exc}", code="AGENT_ERROR"
                        )
                    )
                    return
                yield from self._emit(event)
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()

    def run_to_end(self) -> list[ev.BaseEvent]:
        """Drive the run to completion and return its events (handy in tests and notebooks).
        The driver itself keeps none: a server's run holds no list of what it emitted (the
        store records each event)."""
        return list(self)

    # -- one event --------------------------------------------------------------------------

    def _emit(self, event: ev.BaseEvent) -> Iterator[ev.BaseEvent]:
        if event.timestamp is None:
            event = event.model_copy(update={"timestamp": self.ctx.clock.now_ms()})
        try:
            self._verifier.feed(event)
        except Exception as exc:  # the agent broke the lifecycle: fail the run, not the stream
            if isinstance(event, ev.RunErrorEvent):
                raise
            yield from self._emit(
                ev.RunErrorEvent(
                    message=f"The agent emitted an invalid event: {exc}", code="AGENT_PROTOCOL_VIOLATION"
                )
            )
            return
        self._track(event)
        self.ctx._view.apply(event)
        if self.store is not None:
            self.store.append_event(self.thread_key, self.ctx.run_id, ev.dump_event(event))
        if isinstance(event, ev.RunStartedEvent):
            self._started = True
        elif isinstance(event, (ev.RunFinishedEvent, ev.RunErrorEvent)):
            self._record_end(event)
        yield event
        if isinstance(event, ev.RunStartedEvent) and self.input_warnings:
            warnings, self.input_warnings = self.input_warnings, []
            yield from self._emit(input_warnings_event(warnings))

    def _track(self, event: ev.BaseEvent) -> None:
        kind = event.type.value
        if kind in _OPENERS:
            self._open.append((kind, getattr(event, _OPENERS[kind][1])))
        elif kind in _CLOSERS:
            start, key = _CLOSERS[kind]
            item = (start, getattr(event, key))
            if item in self._open:
                self._open.remove(item)

    def _cancel_events(self) -> Iterator[ev.BaseEvent]:
        if not self._started:
            yield from self._emit(
                ev.RunStartedEvent(
                    thread_id=self.ctx.thread_id, run_id=self.ctx.run_id, protocol_version=ev.PROTOCOL_VERSION
                )
            )
        # Close what is open, innermost first, before the cancelled RUN_FINISHED
        # (spec 1.1 events/lifecycle, "Cancelled runs").
        for start, key in reversed(list(self._open)):
            end_cls, field_name = _OPENERS[start]
            yield from self._emit(end_cls(**{field_name: key}))
        yield from self._emit(
            ev.RunFinishedEvent(
                thread_id=self.ctx.thread_id, run_id=self.ctx.run_id, outcome={"type": "cancelled"}
            )
        )

    def _record_end(self, event: ev.BaseEvent) -> None:
        thread_id, run_id = self.thread_key, self.ctx.run_id
        if isinstance(event, ev.RunErrorEvent):
            self.status = "error"
        elif isinstance(event, ev.RunFinishedEvent):
            outcome = event.outcome.type if event.outcome is not None else "success"
            self.status = OUTCOME_STATUS[outcome]
        store = self.store
        if store is None:
            return
        with store.transaction():
            store.save_state(thread_id, self.ctx.state)
            store.save_messages(thread_id, self.ctx.messages, base=self._base_ids)
            if isinstance(event, ev.RunErrorEvent):
                store.finish_run(
                    thread_id,
                    run_id,
                    status="error",
                    error={k: v for k, v in (("message", event.message), ("code", event.code)) if v},
                )
                if self.kind == "resume":
                    store.reopen_interrupts(thread_id, run_id)
                return
            wire = ev.dump_event(event)
            interrupts = pending_interrupts(wire)
            if interrupts:
                store.add_interrupts(thread_id, run_id, interrupts)
            store.finish_run(
                thread_id,
                run_id,
                status=self.status,
                outcome=wire.get("outcome") or {"type": "success"},
                result=wire.get("result"),
            )


def input_warnings_event(
    warnings: Iterable[dict[str, Any]], *, timestamp: int | None = None
) -> ev.CustomEvent:
    """The :data:`INPUT_WARNINGS_EVENT` carrying ``warnings`` (``{code, message, path}`` dicts)."""
    stamp = {} if timestamp is None else {"timestamp": timestamp}
    return ev.CustomEvent(name=INPUT_WARNINGS_EVENT, value={"warnings": list(warnings)}, **stamp)


def replay_events(
    thread_id: str,
    run_id: str,
    original: Any,
    snapshot: Any,
    *,
    timestamp: int | None = None,
    input_warnings: Iterable[dict[str, Any]] = (),
) -> list[ev.BaseEvent]:
    """The run that answers a replayed resume from the record instead of acting again.

    ``original`` is the :class:`~agentproto.agui._threadstore.RunRecord` of the run that first carried the
    same answers; ``snapshot`` the thread as stored. The replay restates the thread with
    snapshots (never by re-sending the original's events — restated history uses snapshots,
    spec 1.1 ``events/lifecycle``) and ends with the original's outcome and result. A
    ``CUSTOM`` event (name ``agentproto.resume_replayed``) says which run it repeats; any
    ``input_warnings`` follow it in an :data:`INPUT_WARNINGS_EVENT`.
    """
    stamp = {} if timestamp is None else {"timestamp": timestamp}
    finished: dict[str, Any] = {"thread_id": thread_id, "run_id": run_id, **stamp}
    if original.outcome is not None and original.outcome.get("type") != "success":
        finished["outcome"] = original.outcome
    if original.result is not None:
        finished["result"] = original.result
    events: list[ev.BaseEvent] = [
        ev.RunStartedEvent(thread_id=thread_id, run_id=run_id, protocol_version=ev.PROTOCOL_VERSION, **stamp),
        ev.CustomEvent(
            name="agentproto.resume_replayed",
            value={"originalRunId": original.run_id, "status": original.status},
            **stamp,
        ),
    ]
    warnings = list(input_warnings)
    if warnings:
        events.append(input_warnings_event(warnings, timestamp=timestamp))
    events += [
        ev.StateSnapshotEvent(snapshot=snapshot.state, **stamp),
        ev.MessagesSnapshotEvent(messages=snapshot.messages, **stamp),
        ev.RunFinishedEvent(**finished),
    ]
    return events
