"""Widgets, simulations and plots for the AG-UI core notebooks (02 run anatomy, 03 event
catalogue, 05 shared state).

Nothing here is protocol logic: every event is produced by the package's own producers (the
demo :class:`~agentproto.demo.refund_agent.RefundAgent` under the run driver) and every verdict
comes from the package's consumer pipeline (:class:`~agentproto.agui.pipeline.Pipeline`,
:class:`~agentproto.agui.chunks.ChunkExpander`, :class:`~agentproto.agui.verify.Verifier`,
:class:`~agentproto.agui.state.StateReducer`). This module only *drives* them and draws what
they did, so the notebooks stay short.

Theory of operation
-------------------
* **Notebook 02.** :func:`refund_run` plays the course's refund scenario (order A1024) through
  the run driver with an injected clock and id factory; :func:`replay` feeds any event list
  through a real :class:`Pipeline`, one event at a time, and records a :class:`Frame` per event
  (the consumer's state, messages, pending interrupts, run-machine state and tool cards *after*
  it). :class:`RunStepper` steps through those frames. :class:`ToolCallCards` is the UI side of
  a tool call: a card that says *done* only when ``TOOL_CALL_RESULT`` arrives — or, in its
  deliberately wrong ``done_on="end"`` mode, already at ``TOOL_CALL_END``.
  :class:`StreamEditor` lets a learner delete, duplicate or move events and see the verdict.
* **Notebook 03.** :data:`CATEGORIES` groups the 31 event types; :func:`expand_side_by_side`
  shows chunk events next to what :class:`ChunkExpander` made of them; :class:`ChunkLab` does
  it for presets or the learner's own JSON lines.
* **Notebook 05.** :func:`order_state_stream` is a producer whose state evolves by JSON Patch
  (with a version counter in each event's ``metadata``); :func:`lossy_channel` drops and swaps
  deltas with a seeded probability; :func:`simulate_drift` applies what arrives with the
  package's :class:`StateReducer` — with or without the version guard that detects gaps and
  asks for a snapshot — and measures the drift from the producer's truth after every slot
  (the number of JSON Patch operations that would repair the consumer's copy).
  :class:`DriftLab` puts sliders on it; :func:`plot_drift` draws the static figure.

Everything is deterministic: ids come from :class:`~agentproto.clock.IdFactory`, time from
:class:`~agentproto.clock.FakeClock`, randomness from ``random.Random(seed)``.
"""

from __future__ import annotations

import html
import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets
import jsonpatch

from agentproto.agui.chunks import ChunkExpander
from agentproto.agui.errors import AGUIError, ResyncNeeded
from agentproto.agui.events import (
    PROTOCOL_VERSION,
    BaseEvent,
    EventParser,
    EventType,
    RunAgentInput,
    StateDeltaEvent,
    StateSnapshotEvent,
    dump_event,
    dump_model,
    event_to_json,
    parse_run_agent_input,
)
from agentproto.agui.pipeline import LintReport, Pipeline, lint_source
from agentproto.agui.state import DEFAULT_VERSION_KEY, StateReducer, apply_patch, copy_json
from agentproto.clock import Clock, FakeClock, IdFactory
from agentproto.course.svg import Marker, Series, SvgLab, line_chart
from agentproto.course.plots import PALETTE
from agentproto.course.trace import show_trace
from agentproto.course.widgets import Stepper

__all__ = [
    # shared
    "around_run", "verdict", "format_messages", "wire",
    # 02
    "REFUND_REQUEST", "refund_input", "refund_run", "resume_run", "Frame", "replay",
    "ToolCard", "ToolCallCards", "cards_html", "RunStepper", "StreamEditor",
    # 03
    "CATEGORIES", "category_of", "Expansion", "expand_side_by_side", "CHUNK_PRESETS", "ChunkLab",
    # 05
    "VERSION_KEY", "order_state_stream", "truth_states", "lossy_channel", "Delivery",
    "DriftRun", "simulate_drift", "drift", "plot_drift", "DriftLab",
]

E = EventType

# ============================================================================================
# Shared helpers
# ============================================================================================


def wire(event: Any) -> dict:
    """An event (model or dict) as its wire dict, ``timestamp`` dropped for stable display."""
    data = dict(event) if isinstance(event, dict) else dump_event(event)
    data.pop("timestamp", None)
    return data


def around_run(*events: Any, thread_id: str = "thread-1", run_id: str = "run-1") -> list[Any]:
    """``RUN_STARTED``, the given events, ``RUN_FINISHED``: the smallest complete stream."""
    return [{"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id}, *events,
            {"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id}]


def verdict(report: LintReport, *, warnings: bool = True) -> str:
    """The consumer's verdict on a stream in a few lines: conformant or not, runs, warnings.

    Event numbers are 1-based here, as in :func:`~agentproto.course.show_trace`.
    """
    runs = ", ".join(f"{r['runId'] or '(none)'} {r['outcome']}" for r in report.runs) or "none"
    if report.error is None:
        lines = [f"✓ conformant — runs: {runs}"]
    else:
        err = report.error
        where = ("at the end of the stream" if err["event"] is None
                 else f"at event {err['event'] + 1} ({err['type']})")
        lines = [f"✗ rejected {where} [{err['rule']}]", f"  {err['message']}", f"  runs: {runs}"]
    if warnings:
        for w in report.warnings:
            at = "stream" if w["event"] is None else f"event {w['event'] + 1}"
            lines.append(f"  ⚠ {at} {w['path'] or '/'}: {w['message']}")
    return "\n".join(lines)


def _short(value: Any, width: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           separators=(",", ":"))
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def format_messages(messages: Sequence[dict], *, width: int = 60) -> str:
    """The conversation as a fixed-width table: id, role, content (and tool calls)."""
    if not messages:
        return "(no messages)"
    id_w = max(len(str(m.get("id", ""))) for m in messages)
    lines = []
    for m in messages:
        role = m.get("role", "?")
        if role == "activity":
            body = f"[{m.get('activityType')}] {_short(m.get('content'), width)}"
        elif role == "tool":
            body = f"→ {m.get('toolCallId')}: {_short(m.get('content'), width)}"
        else:
            content = m.get("content")
            body = "" if content is None else repr(_short(content, width))
        calls = m.get("toolCalls") or []
        if calls:
            shown = ", ".join(f"{c['function']['name']}({_short(c['function']['arguments'], 40)})"
                              for c in calls)
            body = (body + "  " if body else "") + f"calls {shown}"
        lines.append(f"{str(m.get('id', '')):<{id_w}}  {role:<9}  {body}".rstrip())
    return "\n".join(lines)


def _pre(text: str) -> str:
    return ("<pre style='margin:2px 0;white-space:pre-wrap;font-size:11px'>"
            + html.escape(text) + "</pre>")


# ============================================================================================
# Notebook 02 — a run, event by event
# ============================================================================================

#: What the user asks in the course's running example.
REFUND_REQUEST = "Check order A1024 and refund it if it has shipped."


def refund_input(*, thread_id: str = "thread-42", run_id: str = "run-1",
                 messages: Sequence[Any] | None = None, state: Any = None,
                 resume: Sequence[dict] | None = None) -> RunAgentInput:
    """The ``RunAgentInput`` of the refund scenario, with every optional field shown in use.

    Parsed by the package (:func:`~agentproto.agui.events.parse_run_agent_input`), so a wrong
    value here fails exactly as it would at a server.
    """
    data: dict[str, Any] = {
        "threadId": thread_id,
        "runId": run_id,
        "protocolVersion": PROTOCOL_VERSION,
        "messages": list(messages) if messages is not None else
        [{"id": "msg-user-1", "role": "user", "content": REFUND_REQUEST}],
        "tools": [{"name": "highlight_order",
                   "description": "Highlight an order row in the customer's order list.",
                   "parameters": {"type": "object",
                                  "properties": {"orderId": {"type": "string"}},
                                  "required": ["orderId"]}}],
        "context": [{"description": "the customer's support tier", "value": "gold"}],
        "state": {} if state is None else state,
        "forwardedProps": {"locale": "en-GB"},
    }
    if resume is not None:
        data["resume"] = list(resume)
    run_input, _ = parse_run_agent_input(data)
    return run_input


def _drive(run_input: RunAgentInput, plan: Any, *, clock: Clock, ids: Callable[[], str],
           tools: Any) -> list[BaseEvent]:
    # Imported lazily: the demo package pulls in the tool provider and its SQLite store.
    from agentproto.agui.runner import RunContext, RunDriver
    from agentproto.demo.refund_agent import RefundAgent
    from agentproto.demo.tools import FakeToolProvider

    # The run starts from the thread as the input shows it (what the server does with its
    # stored thread).
    ctx = RunContext.start(run_input, plan, clock=clock, ids=ids, state=run_input.state,
                           messages=[dump_model(m) for m in run_input.messages])
    provider = tools if tools is not None else FakeToolProvider(clock=clock)
    return RunDriver(RefundAgent(provider), ctx).run_to_end()


def refund_run(run_input: RunAgentInput | None = None, *, clock: Clock | None = None,
               ids: Callable[[], str] | None = None, tools: Any = None) -> list[BaseEvent]:
    """The refund agent's first run, as the events it streams (it ends with an interrupt).

    The real demo agent under the real run driver: it looks order A1024 up with a tool,
    proposes a refund as a second tool call, and finishes with an *interrupt* outcome that
    asks a person to approve — not with a success that merely asks in words.
    """
    from agentproto.agui.interrupts import ResumePlan

    run_input = run_input or refund_input()
    return _drive(run_input, ResumePlan("new", run_input.thread_id),
                  clock=clock or FakeClock(), ids=ids or IdFactory("id"), tools=tools)


def resume_run(first: Sequence[BaseEvent], *, approved: bool = True, run_id: str = "run-2",
               first_input: RunAgentInput | None = None, clock: Clock | None = None,
               ids: Callable[[], str] | None = None, tools: Any = None) -> list[BaseEvent]:
    """The run that answers :func:`refund_run`'s interrupt (the full story is notebook 06).

    The consumer's thread after the first run (its input's messages and state, plus what the
    stream did to them, from :func:`replay`) goes into a new ``RunAgentInput`` on the same
    thread with a ``resume`` entry; the package's
    :func:`~agentproto.agui.interrupts.validate_resume` checks it before the run starts.
    ``ids`` should continue the first run's id factory so that ids stay unique on the thread.
    """
    from agentproto.agui.interrupts import ThreadRecord, build_resume, resolved, validate_resume

    clock = clock or FakeClock()
    first_input = first_input or refund_input()
    last = first[-1]
    interrupts = list(last.outcome.interrupts)
    frames = replay(first, state=first_input.state, messages=first_input.messages)
    entries = build_resume(interrupts, {i.id: resolved({"approved": approved})
                                        for i in interrupts})
    run_input = refund_input(thread_id=last.thread_id, run_id=run_id,
                             messages=frames[-1].messages, state=frames[-1].state,
                             resume=entries)
    plan = validate_resume(ThreadRecord.from_pending(last.thread_id, last.run_id, interrupts),
                           run_input, clock.now_ms())
    return _drive(run_input, plan, clock=clock, ids=ids or IdFactory("id2"), tools=tools)


# -- tool cards --------------------------------------------------------------------------------

#: Card statuses, in the order a tool call can pass through them.
RECEIVING, NO_RESULT_YET, AWAITING_APPROVAL, UNANSWERED, DONE = (
    "receiving arguments", "arguments complete — no result yet", "awaiting approval",
    "run ended without a result", "done")
_STATUS_COLOR = {RECEIVING: PALETTE["sky"], NO_RESULT_YET: PALETTE["secondary"],
                 AWAITING_APPROVAL: PALETTE["accent"], UNANSWERED: PALETTE["muted"],
                 DONE: PALETTE["good"]}


@dataclass(frozen=True)
class ToolCard:
    """What the UI shows for one tool call."""

    tool_call_id: str
    name: str
    arguments: str
    status: str
    result: str | None = None


class ToolCallCards:
    """The UI's tool-call cards, fed the consumer pipeline's (expanded, verified) events.

    With ``done_on="result"`` (right) a card turns *done* only on ``TOOL_CALL_RESULT``:
    ``TOOL_CALL_END`` means the argument text is complete, not that anything ran (spec 1.1
    ``events/tool-calls``). ``done_on="end"`` is the classic bug, kept to show what it does.
    Argument text is read from ``reducer`` (the pipeline's :class:`StateReducer`), never
    re-assembled here.
    """

    def __init__(self, reducer: StateReducer, *, done_on: str = "result") -> None:
        if done_on not in ("result", "end"):
            raise ValueError("done_on must be 'result' or 'end'")
        self.reducer = reducer
        self.done_on = done_on
        self._status: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._results: dict[str, str] = {}

    def feed(self, event: BaseEvent) -> None:
        """Update the cards for one event (events of other kinds are ignored)."""
        t = event.type
        if t is E.TOOL_CALL_START:
            self._names.setdefault(event.tool_call_id, event.tool_call_name)
            if self._status.get(event.tool_call_id) != DONE:
                self._status[event.tool_call_id] = RECEIVING
        elif t is E.TOOL_CALL_END:
            if self._status.get(event.tool_call_id) != DONE:
                self._status[event.tool_call_id] = DONE if self.done_on == "end" else NO_RESULT_YET
        elif t is E.TOOL_CALL_RESULT:
            tid = event.tool_call_id
            self._names.setdefault(tid, "?")
            self._status[tid] = DONE
            content = event.content
            self._results[tid] = content if isinstance(content, str) else \
                json.dumps([dump_model(p) for p in content], ensure_ascii=False)
        elif t is E.RUN_FINISHED:
            asked = set()
            if event.outcome is not None and event.outcome.type == "interrupt":
                asked = {i.tool_call_id for i in event.outcome.interrupts if i.tool_call_id}
            for tid, status in self._status.items():
                if status == NO_RESULT_YET:
                    self._status[tid] = AWAITING_APPROVAL if tid in asked else UNANSWERED
        elif t is E.RUN_STARTED:
            for tid, status in self._status.items():
                if status == AWAITING_APPROVAL:
                    self._status[tid] = NO_RESULT_YET  # the resumed run is about to answer

    @property
    def cards(self) -> dict[str, ToolCard]:
        """Every card, in the order the calls appeared."""
        args = {call["id"]: call["function"]["arguments"]
                for m in self.reducer.messages for call in (m.get("toolCalls") or ())}
        return {tid: ToolCard(tid, self._names.get(tid, "?"), args.get(tid, ""), status,
                              self._results.get(tid))
                for tid, status in self._status.items()}

    def status(self, tool_call_id: str) -> str | None:
        """The status of one call's card (``None`` if the UI has not seen the call)."""
        return self._status.get(tool_call_id)

    def html(self) -> str:
        """The cards as small HTML boxes (for the stepper and the notebook)."""
        return cards_html(self.cards.values())


def cards_html(cards: Iterable[ToolCard]) -> str:
    """Tool cards as small HTML boxes with a coloured status badge."""
    out = []
    for card in cards:
        color = _STATUS_COLOR.get(card.status, PALETTE["muted"])
        mark = "✓ " if card.status == DONE else ""
        result = (f"<div style='font-size:11px;color:#444'>result: "
                  f"<code>{html.escape(_short(card.result, 70))}</code></div>"
                  if card.result is not None else "")
        out.append(
            f"<div style='display:inline-block;vertical-align:top;border:1px solid #ccc;"
            f"border-radius:6px;padding:4px 8px;margin:2px;min-width:220px'>"
            f"<b>🔧 {html.escape(card.name)}</b> <span style='color:#666'>"
            f"({html.escape(card.tool_call_id)})</span><br>"
            f"<code style='font-size:11px'>{html.escape(_short(card.arguments, 70))}</code><br>"
            f"<span style='background:{color};color:white;border-radius:4px;padding:0 5px;"
            f"font-size:11px'>{mark}{html.escape(card.status)}</span>{result}</div>")
    return "".join(out) or "<i>no tool calls yet</i>"


# -- frames: the consumer's view after each event --------------------------------------------

@dataclass(frozen=True)
class Frame:
    """The consumer after one wire event: what the UI would render at that moment."""

    number: int                     # 1-based position on the wire
    event: dict                     # the wire event (timestamp dropped)
    applied: tuple[str, ...]        # the event types the pipeline applied for it
    state: Any
    messages: list[dict]
    pending_interrupts: list[dict]
    cards: tuple[ToolCard, ...]
    run_state: str                  # the verifier's run machine: START/ACTIVE/CLOSED/FAILED
    error: str | None = None        # the pipeline's verdict if this event was rejected

    @property
    def type(self) -> str:
        return str(self.event.get("type"))


def replay(events: Iterable[Any], *, state: Any = None, messages: Sequence[Any] | None = None,
           done_on: str = "result") -> list[Frame]:
    """Feed ``events`` through a real :class:`Pipeline` one by one; a :class:`Frame` per event.

    Stops after the first rejected event (its frame carries the error); the verdict on the
    stream's *end* (a truncated run) is not a frame — use :func:`lint_source` for that.
    """
    pipeline = Pipeline(state=state, messages=messages)
    cards = ToolCallCards(pipeline.reducer, done_on=done_on)
    frames: list[Frame] = []
    for number, event in enumerate(events, start=1):
        applied = pipeline.feed_event(event)
        for e in applied:
            cards.feed(e)
        error = None
        if pipeline.error is not None:
            exc = pipeline.error
            error = f"{type(exc).__name__} [{exc.rule}]: {exc}"
        frames.append(Frame(
            number=number, event=wire(event), applied=tuple(e.type.value for e in applied),
            state=copy_json(pipeline.reducer.state),
            messages=pipeline.reducer.export_messages(),
            pending_interrupts=copy_json(pipeline.reducer.pending_interrupts),
            cards=tuple(cards.cards.values()), run_state=pipeline.verifier.state, error=error))
        if error is not None:
            break
    return frames


def _frame_html(frame: Frame) -> str:
    event = json.dumps(frame.event, ensure_ascii=False, indent=1)
    if len(event) > 900:
        event = event[:899] + "…"
    head = (f"<b>{html.escape(frame.type)}</b> &nbsp; run machine: "
            f"<code>{html.escape(frame.run_state)}</code>")
    if frame.error:
        head += (f"<div style='color:{PALETTE['bad']}'><b>✗ rejected:</b> "
                 f"{html.escape(frame.error)}</div>")
    left = head + _pre(event)
    state = json.dumps(frame.state, ensure_ascii=False, indent=1)
    pending = ", ".join(f"{i['id']} ({i.get('reason')})" for i in frame.pending_interrupts)
    right = ("<b>state</b>" + _pre(state if len(state) < 900 else state[:899] + "…")
             + "<b>messages</b>" + _pre(format_messages(frame.messages, width=48))
             + "<b>tool cards</b><br>" + cards_html(frame.cards)
             + (f"<br><b>pending interrupts:</b> {html.escape(pending)}" if pending else ""))
    return ("<table style='width:100%;table-layout:fixed'><tr>"
            f"<td style='vertical-align:top;width:42%;text-align:left'>{left}</td>"
            f"<td style='vertical-align:top;text-align:left'>{right}</td></tr></table>")


class RunStepper(Stepper):
    """Step through a run: the event on the left, the consumer's view after it on the right.

    ``frames`` (from :func:`replay`) is public, so a cell or a test can read the state at any
    step; ``frame`` is the one on screen.
    """

    def __init__(self, events: Iterable[Any], *, title: str = "", state: Any = None,
                 messages: Sequence[Any] | None = None) -> None:
        self.frames = replay(events, state=state, messages=messages)
        super().__init__(self.frames, lambda _i, frame: _frame_html(frame), title=title)

    @property
    def frame(self) -> Frame:
        return self.frames[self.index]

    def find(self, event_type: str, nth: int = 1) -> int:
        """The step index of the ``nth`` event of ``event_type`` (for "jump to" in cells)."""
        seen = 0
        for i, frame in enumerate(self.frames):
            if frame.type == event_type:
                seen += 1
                if seen == nth:
                    return i
        raise ValueError(f"no {event_type} number {nth} in this run")

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The widget, with a short, stable plain-text form (nbval compares it)."""
        bundle = self.widget()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"RunStepper: {len(self.frames)} events — {self.title}"
        return bundle

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)


# -- break it yourself ------------------------------------------------------------------------

class StreamEditor:
    """Edit a recorded stream — delete, duplicate or move an event — and get the verdict.

    Edits accumulate until **Reset**. ``edited`` is the current list; ``report`` the
    :class:`LintReport` of the consumer pipeline on it. Drive it from code by setting
    ``operation.value`` and ``position.value`` (1-based) and calling ``apply_button.click()``.
    """

    OPERATIONS = ("delete", "duplicate", "move to end", "swap with next")

    def __init__(self, events: Sequence[Any]) -> None:
        self.original = [wire(e) for e in events]
        self.edited = list(self.original)
        self.history: list[str] = []
        self.operation = widgets.Dropdown(options=self.OPERATIONS, value="delete",
                                          description="edit", layout=widgets.Layout(width="230px"))
        self.position = widgets.IntSlider(value=1, min=1, max=len(self.original),
                                          description="event #", continuous_update=False)
        self.apply_button = widgets.Button(description="Apply", button_style="warning")
        self.reset_button = widgets.Button(description="Reset")
        self.view = widgets.HTML()
        self.report: LintReport = lint_source(self.edited)
        self.apply_button.on_click(lambda _b: self.apply())
        self.reset_button.on_click(lambda _b: self.reset())
        self._render()

    def apply(self) -> None:
        """Apply the selected edit at the selected position, then re-lint."""
        i = self.position.value - 1
        if not 0 <= i < len(self.edited):
            self.history.append(f"(no event #{i + 1} any more)")
            self._render()
            return
        event, op = self.edited[i], self.operation.value
        if op == "delete":
            del self.edited[i]
        elif op == "duplicate":
            self.edited.insert(i + 1, dict(event))
        elif op == "move to end":
            self.edited.append(self.edited.pop(i))
        elif i + 1 < len(self.edited):
            self.edited[i], self.edited[i + 1] = self.edited[i + 1], self.edited[i]
        self.history.append(f"{op} #{i + 1} {event['type']}")
        self.position.max = max(1, len(self.edited))
        self.report = lint_source(self.edited)
        self._render()

    def reset(self) -> None:
        self.edited = list(self.original)
        self.history = []
        self.position.max = len(self.original)
        self.report = lint_source(self.edited)
        self._render()

    def _render(self) -> None:
        edits = "; ".join(self.history) or "none yet"
        color = PALETTE["good"] if self.report.ok else PALETTE["bad"]
        self.view.value = (f"<b>edits:</b> {html.escape(edits)}<br>"
                           f"<div style='border-left:4px solid {color};padding-left:6px'>"
                           + _pre(verdict(self.report, warnings=False)) + "</div>")

    @property
    def verdict_text(self) -> str:
        return verdict(self.report, warnings=False)

    def widget(self) -> widgets.VBox:
        return widgets.VBox([widgets.HBox([self.operation, self.position, self.apply_button,
                                           self.reset_button]), self.view])

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = self.widget()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"StreamEditor: {len(self.original)} events"
        return bundle


# ============================================================================================
# Notebook 03 — the catalogue, and chunk expansion side by side
# ============================================================================================

#: The 31 event types by family (spec 1.1 ``events/*`` pages).
CATEGORIES: dict[str, tuple[EventType, ...]] = {
    "lifecycle": (E.RUN_STARTED, E.RUN_FINISHED, E.RUN_ERROR, E.STEP_STARTED,
                  E.STEP_FINISHED),
    "text messages": (E.TEXT_MESSAGE_START, E.TEXT_MESSAGE_CONTENT, E.TEXT_MESSAGE_END,
                      E.TEXT_MESSAGE_CHUNK),
    "tool calls": (E.TOOL_CALL_START, E.TOOL_CALL_ARGS, E.TOOL_CALL_END, E.TOOL_CALL_CHUNK,
                   E.TOOL_CALL_RESULT),
    "state": (E.STATE_SNAPSHOT, E.STATE_DELTA),
    "messages snapshot": (E.MESSAGES_SNAPSHOT,),
    "activity": (E.ACTIVITY_SNAPSHOT, E.ACTIVITY_DELTA),
    "reasoning": (E.REASONING_START, E.REASONING_MESSAGE_START, E.REASONING_MESSAGE_CONTENT,
                  E.REASONING_MESSAGE_END, E.REASONING_MESSAGE_CHUNK, E.REASONING_END,
                  E.REASONING_ENCRYPTED_VALUE),
    "subagents": (E.SUBAGENT_STARTED, E.SUBAGENT_FINISHED, E.SUBAGENT_ERROR),
    "passthrough": (E.RAW, E.CUSTOM),
}


def category_of(event_type: EventType | str) -> str:
    """The family an event type belongs to."""
    value = event_type.value if isinstance(event_type, EventType) else event_type
    for name, members in CATEGORIES.items():
        if any(m.value == value for m in members):
            return name
    raise KeyError(f"{value!r} is not an AG-UI event type")


@dataclass
class Expansion:
    """What the chunk expander made of each input event, row by row."""

    rows: list[tuple[dict, list[dict]]] = field(default_factory=list)
    error: str | None = None            # the ChunkError (or parse error) that stopped it
    discarded: list[str] = field(default_factory=list)  # items open when the input ended

    @property
    def events(self) -> list[dict]:
        """Every expanded event, in order (what verification and the reducer will see)."""
        return [out for _, outs in self.rows for out in outs]

    def _cells(self) -> list[tuple[str, list[str]]]:
        def one(event: dict) -> str:
            row = show_trace([event], width=60).rows[0]
            return f"{row[1]}  {row[2]}".rstrip()
        return [(one(src), [one(o) for o in outs]) for src, outs in self.rows]

    def __str__(self) -> str:
        cells = self._cells()
        left_w = max([len(c[0]) for c in cells] + [10])
        lines = [f"{'#':>2}  {'input':<{left_w}}  │ expanded"]
        for n, (src, outs) in enumerate(cells, start=1):
            outs = outs or ["(nothing)"]
            for k, out in enumerate(outs):
                left = f"{n:>2}  {src:<{left_w}}" if k == 0 else " " * (left_w + 4)
                lines.append(f"{left}  │ {out}")
        if self.discarded:
            lines.append("end of input: still open, END not synthesized → " +
                         ", ".join(self.discarded))
        if self.error:
            lines.append(f"✗ {self.error}")
        return "\n".join(lines)

    __repr__ = __str__

    def html(self) -> str:
        body = []
        for n, (src, outs) in enumerate(self._cells(), start=1):
            outs_html = "<br>".join(html.escape(o) for o in outs) or "<i>(nothing)</i>"
            cell = "style='text-align:left;vertical-align:top'"
            body.append(f"<tr><td style='vertical-align:top'>{n}</td><td {cell}><code>"
                        f"{html.escape(src)}</code></td><td {cell}><code>{outs_html}</code></td>"
                        f"</tr>")
        tail = ""
        if self.discarded:
            tail += ("<div>end of input: still open, END not synthesized → "
                     + html.escape(", ".join(self.discarded)) + "</div>")
        if self.error:
            tail += f"<div style='color:{PALETTE['bad']}'><b>✗</b> {html.escape(self.error)}</div>"
        return ("<table><thead><tr><th>#</th><th style='text-align:left'>input</th>"
                "<th style='text-align:left'>expanded</th></tr></thead><tbody>"
                + "".join(body) + "</tbody></table>" + tail)

    def _repr_html_(self) -> str:
        return self.html()


def expand_side_by_side(events: Iterable[Any]) -> Expansion:
    """Run :class:`ChunkExpander` over ``events`` (dicts or models), keeping input → output rows.

    Input dicts are parsed by the package's :class:`EventParser` first (as the pipeline does).
    A :class:`ChunkError` stops the expansion and is recorded, like the pipeline would.
    """
    parser, expander, result = EventParser(), ChunkExpander(), Expansion()
    for index, event in enumerate(events):
        try:
            model = event if isinstance(event, BaseEvent) else parser.parse(event, index=index).event
            if model is None:
                result.rows.append((wire(event), []))
                continue
            out = expander.feed(model, index=index)
        except AGUIError as exc:
            result.rows.append((wire(event), []))
            result.error = f"{type(exc).__name__} [{exc.rule}]: {exc}"
            return result
        result.rows.append((wire(model), [wire(e) for e in out]))
    expander.close()
    result.discarded = [f"{p.kind} {p.id!r}" for p in expander.discarded]
    return result


def _chunk(kind: str, **fields: Any) -> dict:
    return {"type": kind, **fields}


#: Small chunked streams for :class:`ChunkLab`, each teaching one rule of expansion.
CHUNK_PRESETS: dict[str, list[dict]] = {
    "text chunks": around_run(
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m1", delta="Order A1024 "),
        _chunk("TEXT_MESSAGE_CHUNK", delta="has shipped."),
    ),
    "tool call chunks": around_run(
        _chunk("TOOL_CALL_CHUNK", toolCallId="c1", toolCallName="get_order",
               delta='{"orderId":'),
        _chunk("TOOL_CALL_CHUNK", delta='"A1024"}'),
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1",
         "content": '{"status":"shipped"}'},
    ),
    "a new id closes the previous item": around_run(
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m1", delta="First message."),
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m2", delta="Second message."),
    ),
    "RAW passes beside an open chunk": around_run(
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m1", delta="Hello"),
        {"type": "RAW", "event": {"provider": "delta"}},
        _chunk("TEXT_MESSAGE_CHUNK", delta=", world"),
    ),
    "first chunk without an id": around_run(
        _chunk("TEXT_MESSAGE_CHUNK", delta="Who am I?"),
    ),
    "tool chunk without a name": around_run(
        _chunk("TOOL_CALL_CHUNK", toolCallId="c1", delta="{}"),
    ),
    "conflicting role": around_run(
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m1", delta="I am the assistant"),
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m1", role="user", delta=" — or am I?"),
    ),
    "two subagent lanes": around_run(
        {"type": "SUBAGENT_STARTED", "subagentRunId": "sa-search", "name": "search"},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "sa-billing", "name": "billing"},
        _chunk("TEXT_MESSAGE_CHUNK", messageId="s1", subagentRunId="sa-search",
               delta="Searching… "),
        _chunk("TEXT_MESSAGE_CHUNK", messageId="b1", subagentRunId="sa-billing",
               delta="Checking invoices… "),
        _chunk("TEXT_MESSAGE_CHUNK", subagentRunId="sa-search", delta="found 3 orders."),
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "sa-search"},
        _chunk("TEXT_MESSAGE_CHUNK", subagentRunId="sa-billing", delta="all paid."),
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "sa-billing"},
    ),
    "ambiguous continuation": around_run(
        {"type": "SUBAGENT_STARTED", "subagentRunId": "sa-search", "name": "search"},
        {"type": "SUBAGENT_STARTED", "subagentRunId": "sa-billing", "name": "billing"},
        _chunk("TEXT_MESSAGE_CHUNK", messageId="s1", subagentRunId="sa-search", delta="A"),
        _chunk("TEXT_MESSAGE_CHUNK", messageId="b1", subagentRunId="sa-billing", delta="B"),
        _chunk("TEXT_MESSAGE_CHUNK", delta="whose is this?"),
    ),
    "metadata-only last chunk": around_run(
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m1", delta="Done.",
               metadata={"model": "demo-1"}),
        _chunk("TEXT_MESSAGE_CHUNK", metadata={"finishReason": "stop", "outputTokens": 2}),
    ),
    "stream ends mid-chunk": [
        {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"},
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m1", delta="Half a sent"),
    ],
}


class ChunkLab:
    """Pick a preset (or write JSON lines), press **Expand**, see chunks → events side by side.

    Below the table: the whole pipeline's verdict on the same input, and the messages it built.
    From code: set ``preset.value`` (fills ``source``) or ``source.value``, then
    ``expand_button.click()``; read ``expansion`` and ``report``.
    """

    def __init__(self, preset: str = "text chunks") -> None:
        self.preset = widgets.Dropdown(options=list(CHUNK_PRESETS), value=preset,
                                       description="preset",
                                       layout=widgets.Layout(width="360px"))
        self.source = widgets.Textarea(layout=widgets.Layout(width="100%", height="150px"))
        self.expand_button = widgets.Button(description="Expand", button_style="primary")
        self.view = widgets.HTML()
        self.expansion: Expansion = Expansion()
        self.report: LintReport | None = None
        self.preset.observe(lambda _c: self.load(), names="value")
        self.expand_button.on_click(lambda _b: self.expand())
        self.load()

    def load(self) -> None:
        """Put the selected preset into the text box (one JSON event per line) and expand it."""
        self.source.value = "\n".join(json.dumps(e, ensure_ascii=False)
                                      for e in CHUNK_PRESETS[self.preset.value])
        self.expand()

    def expand(self) -> None:
        """Expand what is in the text box and lint it with the whole pipeline."""
        lines = [line for line in self.source.value.splitlines() if line.strip()]
        try:
            events = [json.loads(line) for line in lines]
        except ValueError as exc:
            self.expansion = Expansion(error=f"not JSON lines: {exc}")
            self.report = None
            self.view.value = self.expansion.html()
            return
        self.expansion = expand_side_by_side(events)
        self.report = lint_source(events)
        self.view.value = (self.expansion.html() + "<b>whole pipeline</b>"
                           + _pre(verdict(self.report))
                           + "<b>messages</b>" + _pre(format_messages(self.report.messages)))

    def widget(self) -> widgets.VBox:
        return widgets.VBox([widgets.HBox([self.preset, self.expand_button]), self.source,
                             self.view])

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = self.widget()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"ChunkLab: {len(CHUNK_PRESETS)} presets"
        return bundle


# ============================================================================================
# Notebook 05 — shared state over a lossy channel
# ============================================================================================

#: The metadata key carrying the producer's state version (the reducer's guard reads it).
VERSION_KEY = DEFAULT_VERSION_KEY

_PRODUCTS = [("mug", 900), ("tea", 450), ("scarf", 2400), ("notebook", 650), ("pen", 250),
             ("lamp", 3900), ("socks", 800), ("map", 1200)]
_STATUSES = ["open", "packing", "on hold", "packing", "ready"]


def order_state_stream(steps: int = 60, *, seed: int = 7) -> list[BaseEvent]:
    """A producer's state events: one ``STATE_SNAPSHOT`` then ``steps`` ``STATE_DELTA``\\ s.

    The state is an order being assembled — items appended, quantities changed, a running
    total and status replaced, a log appended — so the patches mix the two kinds of operation
    that matter for drift: *appends* (a lost one is never repaired by later deltas) and
    *replaces* (the next one overwrites any damage). Each event's ``metadata`` carries the
    version counter :data:`VERSION_KEY` (snapshot 0, then 1, 2, …). The producer computes its
    own state with the package's :func:`apply_patch`, so every delta applies to its truth.
    """
    rng = random.Random(seed)
    state: dict[str, Any] = {"orderId": "A1024", "status": "open", "items": [], "total": 0,
                             "log": []}
    events: list[BaseEvent] = [StateSnapshotEvent(snapshot=copy_json(state),
                                                  metadata={VERSION_KEY: 0})]
    for version in range(1, steps + 1):
        roll = rng.random()
        items = state["items"]
        if roll < 0.4 or not items:
            name, price = rng.choice(_PRODUCTS)
            ops = [{"op": "add", "path": "/items/-", "value": {"sku": name, "qty": 1,
                                                              "price": price}}]
            note = f"added {name}"
        elif roll < 0.7:
            i = rng.randrange(len(items))
            ops = [{"op": "replace", "path": f"/items/{i}/qty", "value": items[i]["qty"] + 1}]
            note = f"{items[i]['sku']} ×{items[i]['qty'] + 1}"
        elif roll < 0.85:
            status = rng.choice(_STATUSES)
            ops = [{"op": "replace", "path": "/status", "value": status}]
            note = f"status {status}"
        else:
            ops = [{"op": "add", "path": "/log/-", "value": f"note {version}"}]
            note = "log"
        after = apply_patch(state, ops)
        total = sum(i["qty"] * i["price"] for i in after["items"])
        if total != state["total"]:
            ops.append({"op": "replace", "path": "/total", "value": total})
        state = apply_patch(state, ops)
        events.append(StateDeltaEvent(delta=ops, metadata={VERSION_KEY: version, "note": note}))
    return events


def truth_states(events: Sequence[BaseEvent]) -> list[Any]:
    """The producer's state after each event (index 0 = the snapshot)."""
    reducer = StateReducer()
    out = []
    for event in events:
        reducer.apply(event)
        out.append(copy_json(reducer.state))
    return out


@dataclass(frozen=True)
class Delivery:
    """What the channel did in one slot: the event it delivered (or None) and why."""

    slot: int
    event: BaseEvent | None
    fate: str  # "delivered" | "dropped" | "late" (swapped with the next) | "early"


def lossy_channel(events: Sequence[BaseEvent], *, drop: float = 0.0, reorder: float = 0.0,
                  seed: int = 0) -> list[Delivery]:
    """Deliver ``events[1:]`` (the deltas; the opening snapshot always arrives) slot by slot.

    Each delta is lost with probability ``drop``; a surviving delta swaps places with the next
    surviving one with probability ``reorder``. Slot ``k`` is when the producer sent delta
    ``k``. A transport like SSE over TCP never does this to one connection — but a consumer
    behind a broker, a retrying proxy or a reconnect that replays from a cache can.
    """
    rng = random.Random(seed)
    slots: list[Delivery] = []
    for k, event in enumerate(events[1:], start=1):
        lost = rng.random() < drop
        slots.append(Delivery(k, None if lost else event, "dropped" if lost else "delivered"))
    k = 0
    while k < len(slots) - 1:
        a, b = slots[k], slots[k + 1]
        if a.event is not None and b.event is not None and rng.random() < reorder:
            slots[k] = Delivery(a.slot, b.event, "early")
            slots[k + 1] = Delivery(b.slot, a.event, "late")
            k += 2
        else:
            k += 1
    return slots


def drift(consumer: Any, truth: Any) -> int:
    """How far the consumer's state is from the truth: the JSON Patch operations that would
    turn one into the other (``jsonpatch.make_patch``). 0 means in sync."""
    return len(jsonpatch.make_patch(consumer, truth).patch)


@dataclass
class DriftRun:
    """One consumer's life on a lossy channel, slot by slot."""

    guard: bool
    drift: list[int]                    # per slot, after everything that slot delivered
    items: list[int]                    # how many items the consumer's order lists, per slot
    truth_items: list[int]              # … and the producer's
    fates: list[str]
    warnings: list[str] = field(default_factory=list)   # patches that did not apply
    resyncs: list[int] = field(default_factory=list)    # slots where the guard asked
    snapshots: int = 0                  # snapshots the producer had to send (after the first)
    snapshot_bytes: int = 0
    final_state: Any = None

    @property
    def final_drift(self) -> int:
        return self.drift[-1] if self.drift else 0

    @property
    def slots_out_of_sync(self) -> int:
        return sum(1 for d in self.drift if d)


def simulate_drift(events: Sequence[BaseEvent], deliveries: Sequence[Delivery], *,
                   guard: bool = False, snapshot_every: int = 0) -> DriftRun:
    """Apply what the channel delivered with the package's :class:`StateReducer`.

    ``guard=False``: the reducer applies every delta it receives; one that does not apply
    warns and keeps the prior state (spec ``basic/patterns/snapshots``), one that applies to
    the wrong baseline silently corrupts it. ``guard=True``: the reducer checks the version
    counter and raises :class:`~agentproto.agui.errors.ResyncNeeded` on a gap or a repeat,
    refusing deltas until a snapshot arrives; the producer answers in the next slot with a
    ``STATE_SNAPSHOT`` of its state at the time of the request. ``snapshot_every=n`` makes the
    producer also send a snapshot after every n-th delta, whatever happens.
    """
    truth = truth_states(events)
    reducer = StateReducer(version_key=VERSION_KEY if guard else None)
    reducer.apply(events[0])
    run = DriftRun(guard=guard, drift=[], items=[], truth_items=[], fates=[])
    pending_request: int | None = None

    def snapshot(version: int) -> None:
        event = StateSnapshotEvent(snapshot=truth[version], metadata={VERSION_KEY: version})
        reducer.apply(event)
        run.snapshots += 1
        run.snapshot_bytes += len(event_to_json(event))

    for delivery in deliveries:
        k = delivery.slot
        if pending_request is not None:   # the producer answers last slot's resync request
            snapshot(pending_request)
            pending_request = None
        if delivery.event is not None:
            try:
                for w in reducer.apply(delivery.event):
                    run.warnings.append(f"slot {k}: {w.message}")
            except ResyncNeeded:
                run.resyncs.append(k)
                pending_request = k       # the producer's state as of now
        if snapshot_every and k % snapshot_every == 0:
            snapshot(k)
            pending_request = None
        run.drift.append(drift(reducer.state, truth[k]))
        held = reducer.state.get("items") if isinstance(reducer.state, dict) else None
        run.items.append(len(held) if isinstance(held, list) else 0)
        run.truth_items.append(len(truth[k]["items"]))
        run.fates.append(delivery.fate)
    run.final_state = copy_json(reducer.state)
    return run


def _drift_summary(plain: DriftRun, guarded: DriftRun, deliveries: Sequence[Delivery]) -> str:
    lost = sum(1 for d in deliveries if d.fate == "dropped")
    swapped = sum(1 for d in deliveries if d.fate == "late")
    lines = [f"channel: {len(deliveries)} deltas, {lost} dropped, {swapped} pairs swapped",
             f"{'consumer':<28} {'final drift':>11} {'slots off':>9} {'warnings':>8} "
             f"{'resyncs':>7} {'snapshots':>9}"]
    for name, run in (("no guard", plain), ("version guard + resync", guarded)):
        lines.append(f"{name:<28} {run.final_drift:>11} {run.slots_out_of_sync:>9} "
                     f"{len(run.warnings):>8} {len(run.resyncs):>7} {run.snapshots:>9}")
    return "\n".join(lines)


def plot_drift(plain: DriftRun, guarded: DriftRun, deliveries: Sequence[Delivery], *,
               title: str = "") -> Any:
    """Two panels: how many items each side's order lists, and drift from the truth per slot."""
    import matplotlib.pyplot as plt

    slots = [d.slot for d in deliveries]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 5.2), sharex=True)
    top.step(slots, plain.truth_items, where="post", color="black", lw=2.4,
             label="truth (producer)")
    top.step(slots, plain.items, where="post", color=PALETTE["bad"], lw=1.6, ls="--",
             label="consumer, no guard")
    top.step(slots, guarded.items, where="post", color=PALETTE["good"], lw=1.4,
             label="consumer, version guard + resync")
    top.set_ylabel("items in the order")
    top.legend(loc="upper left")
    bottom.step(slots, plain.drift, where="post", color=PALETTE["bad"], label="no guard")
    bottom.step(slots, guarded.drift, where="post", color=PALETTE["good"],
                label="version guard + resync")
    for d in deliveries:
        if d.fate == "dropped":
            bottom.axvline(d.slot, color=PALETTE["muted"], lw=0.8, ls=":")
        elif d.fate == "late":
            bottom.axvline(d.slot, color=PALETTE["secondary"], lw=0.8, ls=":")
    bottom.set_ylabel("drift (patch ops to truth)")
    bottom.set_xlabel("slot (the producer's n-th delta); dotted: dropped (grey), swapped (orange)")
    bottom.legend(loc="upper left")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


class DriftLab(SvgLab):
    """Sliders for loss, reordering, seed and periodic snapshots; drift of two consumers.

    Both consumers see the *same* channel (same seed): one applies whatever arrives, the other
    runs the reducer's version guard and resynchronises with a snapshot. ``plain``,
    ``guarded`` and ``deliveries`` hold the last run for code and tests.
    """

    title = "Shared state over a lossy channel"

    def __init__(self, *, drop: float = 0.1, reorder: float = 0.05, seed: int = 3,
                 snapshot_every: int = 0, steps: int = 60) -> None:
        self.events = order_state_stream(steps)
        style = {"description_width": "initial"}
        self.drop = widgets.FloatSlider(value=drop, min=0.0, max=0.5, step=0.05,
                                        description="drop probability", style=style,
                                        continuous_update=False)
        self.reorder = widgets.FloatSlider(value=reorder, min=0.0, max=0.5, step=0.05,
                                           description="swap probability", style=style,
                                           continuous_update=False)
        self.seed = widgets.IntSlider(value=seed, min=0, max=30, description="seed",
                                      style=style, continuous_update=False)
        self.snapshot_every = widgets.IntSlider(value=snapshot_every, min=0, max=30,
                                                description="snapshot every n (0 = never)",
                                                style=style, continuous_update=False)
        self.plain: DriftRun | None = None
        self.guarded: DriftRun | None = None
        self.deliveries: list[Delivery] = []
        super().__init__([self.drop, self.reorder, self.seed, self.snapshot_every])

    def render(self) -> tuple[str, str]:
        self.deliveries = lossy_channel(self.events, drop=self.drop.value,
                                        reorder=self.reorder.value, seed=self.seed.value)
        every = self.snapshot_every.value
        self.plain = simulate_drift(self.events, self.deliveries, snapshot_every=every)
        self.guarded = simulate_drift(self.events, self.deliveries, guard=True,
                                      snapshot_every=every)
        xs = [d.slot for d in self.deliveries]
        markers = [Marker(d.slot, color=PALETTE["muted"],
                          label="dropped" if i == 0 else "")
                   for i, d in enumerate(d for d in self.deliveries if d.fate == "dropped")]
        svg = line_chart(
            [Series("no guard", xs, self.plain.drift, color=PALETTE["bad"]),
             Series("version guard + resync", xs, self.guarded.drift, color=PALETTE["good"],
                    dash="5,3")],
            title="drift from the producer's state (patch ops to repair)",
            xlabel="slot (the producer's n-th delta)", ylabel="drift", markers=markers,
            legend="upper left", ylim=(0, max([4, *self.plain.drift, *self.guarded.drift]) + 1))
        return svg, _drift_summary(self.plain, self.guarded, self.deliveries)
