"""Notebook 02 (anatomy of a run): tool-call cards, a run stepper and a stream editor.

Nothing here is protocol logic. Every event comes from the package's producers (the demo
refund agent, :mod:`agentproto.demo.scripted`) and every verdict from the package's consumer
(:class:`~agentproto.agui.pipeline.Pipeline`, :func:`~agentproto.agui.pipeline.lint_source`,
:func:`~agentproto.agui.report.verdict`); this module drives them and draws what they did.

* :class:`ToolCallCards` is the UI side of a tool call: a card that says *done* only when
  ``TOOL_CALL_RESULT`` arrives — or, in its deliberately wrong ``done_on="end"`` mode, already
  at ``TOOL_CALL_END``.
* :func:`replay` feeds any event list through a real :class:`Pipeline`, one event at a time,
  and records a :class:`ReplayFrame` per event: the consumer's state, messages, pending
  interrupts, run-machine state and tool cards *after* it. :class:`RunStepper` steps through
  those frames.
* :class:`StreamEditor` lets a learner delete, duplicate or move events and see the verdict.

Events are numbered from 0 in arrival order, as everywhere in :mod:`agentproto.agui`:
``frame.index`` and the editor's ``position`` are list indexes, and "event #5" is ``events[5]``.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from agentproto.agui.events import (
    BaseEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    dump_model,
)
from agentproto.agui.pipeline import LintReport, Pipeline, lint_source
from agentproto.agui.report import format_messages, shorten, verdict, wire
from agentproto.agui.state import StateReducer, copy_json
from agentproto.course.plots import PALETTE
from agentproto.course.widgets import Stepper

__all__ = [
    "around_run",
    "RECEIVING",
    "NO_RESULT_YET",
    "AWAITING_APPROVAL",
    "UNANSWERED",
    "DONE",
    "ToolCard",
    "ToolCallCards",
    "cards_html",
    "ReplayFrame",
    "replay",
    "RunStepper",
    "StreamEditor",
]


def around_run(*events: Any, thread_id: str = "thread-1", run_id: str = "run-1") -> list[Any]:
    """``RUN_STARTED``, the given events, ``RUN_FINISHED``: the smallest complete stream."""
    return [
        {"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id},
        *events,
        {"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id},
    ]


def _pre(text: str) -> str:
    return "<pre style='margin:2px 0;white-space:pre-wrap;font-size:11px'>" + html.escape(text) + "</pre>"


# -- tool cards --------------------------------------------------------------------------------

#: Card statuses, in the order a tool call can pass through them.
RECEIVING, NO_RESULT_YET, AWAITING_APPROVAL, UNANSWERED, DONE = (
    "receiving arguments",
    "arguments complete — no result yet",
    "awaiting approval",
    "run ended without a result",
    "done",
)
_STATUS_COLOR = {
    RECEIVING: PALETTE["sky"],
    NO_RESULT_YET: PALETTE["secondary"],
    AWAITING_APPROVAL: PALETTE["accent"],
    UNANSWERED: PALETTE["muted"],
    DONE: PALETTE["good"],
}


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
        if isinstance(event, ToolCallStartEvent):
            self._names.setdefault(event.tool_call_id, event.tool_call_name)
            if self._status.get(event.tool_call_id) != DONE:
                self._status[event.tool_call_id] = RECEIVING
        elif isinstance(event, ToolCallEndEvent):
            if self._status.get(event.tool_call_id) != DONE:
                self._status[event.tool_call_id] = DONE if self.done_on == "end" else NO_RESULT_YET
        elif isinstance(event, ToolCallResultEvent):
            tid = event.tool_call_id
            self._names.setdefault(tid, "?")
            self._status[tid] = DONE
            content = event.content
            self._results[tid] = (
                content
                if isinstance(content, str)
                else json.dumps([dump_model(p) for p in content], ensure_ascii=False)
            )
        elif isinstance(event, RunFinishedEvent):
            asked: set[str] = set()
            if isinstance(event.outcome, RunFinishedInterruptOutcome):
                asked = {i.tool_call_id for i in event.outcome.interrupts if i.tool_call_id}
            for tid, status in self._status.items():
                if status == NO_RESULT_YET:
                    self._status[tid] = AWAITING_APPROVAL if tid in asked else UNANSWERED
        elif isinstance(event, RunStartedEvent):
            for tid, status in self._status.items():
                if status == AWAITING_APPROVAL:
                    self._status[tid] = NO_RESULT_YET  # the resumed run is about to answer

    @property
    def cards(self) -> dict[str, ToolCard]:
        """Every card, in the order the calls appeared."""
        args = {
            call["id"]: call["function"]["arguments"]
            for m in self.reducer.messages
            for call in (m.get("toolCalls") or ())
        }
        return {
            tid: ToolCard(tid, self._names.get(tid, "?"), args.get(tid, ""), status, self._results.get(tid))
            for tid, status in self._status.items()
        }

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
        result = (
            f"<div style='font-size:11px;color:#444'>result: "
            f"<code>{html.escape(shorten(card.result, 70))}</code></div>"
            if card.result is not None
            else ""
        )
        out.append(
            f"<div style='display:inline-block;vertical-align:top;border:1px solid #ccc;"
            f"border-radius:6px;padding:4px 8px;margin:2px;min-width:220px'>"
            f"<b>🔧 {html.escape(card.name)}</b> <span style='color:#666'>"
            f"({html.escape(card.tool_call_id)})</span><br>"
            f"<code style='font-size:11px'>{html.escape(shorten(card.arguments, 70))}</code><br>"
            f"<span style='background:{color};color:white;border-radius:4px;padding:0 5px;"
            f"font-size:11px'>{mark}{html.escape(card.status)}</span>{result}</div>"
        )
    return "".join(out) or "<i>no tool calls yet</i>"


# -- frames: the consumer's view after each event --------------------------------------------


@dataclass(frozen=True)
class ReplayFrame:
    """The consumer after one wire event: what the UI would render at that moment."""

    index: int  # position on the wire, from 0 (event #index)
    event: dict[str, Any]  # the wire event (timestamp dropped)
    applied: tuple[str, ...]  # the event types the pipeline applied for it
    state: Any
    messages: list[dict[str, Any]]
    pending_interrupts: list[dict[str, Any]]
    cards: tuple[ToolCard, ...]
    run_state: str  # the verifier's run machine: START/ACTIVE/CLOSED/FAILED
    error: str | None = None  # the pipeline's verdict if this event was rejected

    @property
    def type(self) -> str:
        return str(self.event.get("type"))


def replay(
    events: Iterable[Any],
    *,
    state: Any = None,
    messages: Sequence[Any] | None = None,
    done_on: str = "result",
) -> list[ReplayFrame]:
    """Feed ``events`` through a real :class:`Pipeline` one by one; a :class:`ReplayFrame` each.

    Stops after the first rejected event (its frame carries the error); the verdict on the
    stream's *end* (a truncated run) is not a frame — use :func:`lint_source` for that.
    """
    pipeline = Pipeline(state=state, messages=messages)
    cards = ToolCallCards(pipeline.reducer, done_on=done_on)
    frames: list[ReplayFrame] = []
    for index, event in enumerate(events):
        applied = pipeline.feed_event(event)
        for e in applied:
            cards.feed(e)
        error = None
        if pipeline.error is not None:
            exc = pipeline.error
            error = f"{type(exc).__name__} [{exc.rule}]: {exc}"
        frames.append(
            ReplayFrame(
                index=index,
                event=wire(event),
                applied=tuple(e.type.value for e in applied),
                state=copy_json(pipeline.reducer.state),
                messages=pipeline.reducer.export_messages(),
                pending_interrupts=copy_json(pipeline.reducer.pending_interrupts),
                cards=tuple(cards.cards.values()),
                run_state=pipeline.verifier.state,
                error=error,
            )
        )
        if error is not None:
            break
    return frames


def _frame_html(frame: ReplayFrame) -> str:
    event = json.dumps(frame.event, ensure_ascii=False, indent=1)
    if len(event) > 900:
        event = event[:899] + "…"
    head = (
        f"event #{frame.index} <b>{html.escape(frame.type)}</b> &nbsp; run machine: "
        f"<code>{html.escape(frame.run_state)}</code>"
    )
    if frame.error:
        head += f"<div style='color:{PALETTE['bad']}'><b>✗ rejected:</b> {html.escape(frame.error)}</div>"
    left = head + _pre(event)
    state = json.dumps(frame.state, ensure_ascii=False, indent=1)
    pending = ", ".join(f"{i['id']} ({i.get('reason')})" for i in frame.pending_interrupts)
    right = (
        "<b>state</b>"
        + _pre(state if len(state) < 900 else state[:899] + "…")
        + "<b>messages</b>"
        + _pre(format_messages(frame.messages, width=48))
        + "<b>tool cards</b><br>"
        + cards_html(frame.cards)
        + (f"<br><b>pending interrupts:</b> {html.escape(pending)}" if pending else "")
    )
    return (
        "<table style='width:100%;table-layout:fixed'><tr>"
        f"<td style='vertical-align:top;width:42%;text-align:left'>{left}</td>"
        f"<td style='vertical-align:top;text-align:left'>{right}</td></tr></table>"
    )


class RunStepper(Stepper):
    """Step through a run: the event on the left, the consumer's view after it on the right.

    ``frames`` (from :func:`replay`) is public, so a cell or a test can read the state at any
    step; ``frame`` is the one on screen.
    """

    def __init__(
        self,
        events: Iterable[Any],
        *,
        title: str = "",
        state: Any = None,
        messages: Sequence[Any] | None = None,
    ) -> None:
        self.frames = replay(events, state=state, messages=messages)
        super().__init__(self.frames, lambda _i, frame: _frame_html(frame), title=title)

    @property
    def frame(self) -> ReplayFrame:
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
    ``operation.value`` and ``position.value`` (the event's index, from 0) and calling
    ``apply_button.click()``.
    """

    OPERATIONS = ("delete", "duplicate", "move to end", "swap with next")

    def __init__(self, events: Sequence[Any]) -> None:
        self.original = [wire(e) for e in events]
        self.edited = list(self.original)
        self.history: list[str] = []
        self.operation = widgets.Dropdown(
            options=self.OPERATIONS, value="delete", description="edit", layout=widgets.Layout(width="230px")
        )
        self.position = widgets.IntSlider(
            value=0, min=0, max=max(0, len(self.original) - 1), description="event #", continuous_update=False
        )
        self.apply_button = widgets.Button(description="Apply", button_style="warning")
        self.reset_button = widgets.Button(description="Reset")
        self.view = widgets.HTML()
        self.report: LintReport = lint_source(self.edited)
        self.apply_button.on_click(lambda _b: self.apply())
        self.reset_button.on_click(lambda _b: self.reset())
        self._render()

    def apply(self) -> None:
        """Apply the selected edit at the selected position, then re-lint."""
        i = self.position.value
        if not 0 <= i < len(self.edited):
            self.history.append(f"(no event #{i} any more)")
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
        self.history.append(f"{op} #{i} {event['type']}")
        self.position.max = max(0, len(self.edited) - 1)
        self.report = lint_source(self.edited)
        self._render()

    def reset(self) -> None:
        self.edited = list(self.original)
        self.history = []
        self.position.max = max(0, len(self.original) - 1)
        self.report = lint_source(self.edited)
        self._render()

    def _render(self) -> None:
        edits = "; ".join(self.history) or "none yet"
        color = PALETTE["good"] if self.report.ok else PALETTE["bad"]
        self.view.value = (
            f"<b>edits:</b> {html.escape(edits)}<br>"
            f"<div style='border-left:4px solid {color};padding-left:6px'>"
            + _pre(verdict(self.report, warnings=False))
            + "</div>"
        )

    @property
    def verdict_text(self) -> str:
        return verdict(self.report, warnings=False)

    def widget(self) -> widgets.VBox:
        return widgets.VBox(
            [widgets.HBox([self.operation, self.position, self.apply_button, self.reset_button]), self.view]
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = self.widget()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"StreamEditor: {len(self.original)} events"
        return bundle
