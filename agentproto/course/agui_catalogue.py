"""Notebook 03 (the event catalogue): the 31 types by family, and chunk expansion side by side.

:data:`CATEGORIES` groups the 31 event types into the spec's eight families;
:func:`expand_side_by_side` shows ``*_CHUNK`` events next to what the package's
:class:`~agentproto.agui.chunks.ChunkExpander` made of them; :class:`ChunkLab` does it for the
presets in :data:`CHUNK_PRESETS` or the learner's own JSON
lines, with the whole pipeline's verdict underneath. Rows are numbered from 0 in arrival
order, as everywhere in :mod:`agentproto.agui`.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets

from agentproto.agui.chunks import ChunkExpander
from agentproto.agui.errors import AGUIError
from agentproto.agui.events import BaseEvent, EventType
from agentproto.agui.parse import EventParser
from agentproto.agui.pipeline import LintReport, lint_source
from agentproto.agui.report import format_messages, verdict, wire
from agentproto.course.agui_runs import around_run
from agentproto.course.plots import PALETTE
from agentproto.course.trace import show_trace

__all__ = ["CATEGORIES", "category_of", "Expansion", "expand_side_by_side", "CHUNK_PRESETS", "ChunkLab"]

E = EventType


def _pre(text: str) -> str:
    return "<pre style='margin:2px 0;white-space:pre-wrap;font-size:11px'>" + html.escape(text) + "</pre>"


#: The thirty-one event types in the spec's eight families, in the spec's order and under its
#: names (spec 1.1 ``events/index``: "Everything a producer has to say arrives as events, in
#: eight families"). ``MESSAGES_SNAPSHOT`` belongs to the State family with the state events.
CATEGORIES: dict[str, tuple[EventType, ...]] = {
    "runs and steps": (E.RUN_STARTED, E.RUN_FINISHED, E.RUN_ERROR, E.STEP_STARTED, E.STEP_FINISHED),
    "text messages": (E.TEXT_MESSAGE_START, E.TEXT_MESSAGE_CONTENT, E.TEXT_MESSAGE_END, E.TEXT_MESSAGE_CHUNK),
    "tool calls": (
        E.TOOL_CALL_START,
        E.TOOL_CALL_ARGS,
        E.TOOL_CALL_END,
        E.TOOL_CALL_CHUNK,
        E.TOOL_CALL_RESULT,
    ),
    "reasoning": (
        E.REASONING_START,
        E.REASONING_MESSAGE_START,
        E.REASONING_MESSAGE_CONTENT,
        E.REASONING_MESSAGE_END,
        E.REASONING_MESSAGE_CHUNK,
        E.REASONING_END,
        E.REASONING_ENCRYPTED_VALUE,
    ),
    "state": (E.STATE_SNAPSHOT, E.STATE_DELTA, E.MESSAGES_SNAPSHOT),
    "activity": (E.ACTIVITY_SNAPSHOT, E.ACTIVITY_DELTA),
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

    rows: list[tuple[dict[str, Any], list[dict[str, Any]]]] = field(default_factory=list)
    error: str | None = None  # the ChunkError (or parse error) that stopped it
    discarded: list[str] = field(default_factory=list)  # items open when the input ended

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every expanded event, in order (what verification and the reducer will see)."""
        return [out for _, outs in self.rows for out in outs]

    def _cells(self) -> list[tuple[str, list[str]]]:
        def one(event: dict[str, Any]) -> str:
            row = show_trace([event], width=60).rows[0]
            return f"{row[1]}  {row[2]}".rstrip()

        return [(one(src), [one(o) for o in outs]) for src, outs in self.rows]

    def __str__(self) -> str:
        cells = self._cells()
        left_w = max([len(c[0]) for c in cells] + [10])
        lines = [f"{'#':>2}  {'input':<{left_w}}  │ expanded"]
        for n, (src, outs) in enumerate(cells):
            outs = outs or ["(nothing)"]
            for k, out in enumerate(outs):
                left = f"{n:>2}  {src:<{left_w}}" if k == 0 else " " * (left_w + 4)
                lines.append(f"{left}  │ {out}")
        if self.discarded:
            lines.append("end of input: still open, END not synthesized → " + ", ".join(self.discarded))
        if self.error:
            lines.append(f"✗ {self.error}")
        return "\n".join(lines)

    __repr__ = __str__

    def html(self) -> str:
        body = []
        for n, (src, outs) in enumerate(self._cells()):
            outs_html = "<br>".join(html.escape(o) for o in outs) or "<i>(nothing)</i>"
            cell = "style='text-align:left;vertical-align:top'"
            body.append(
                f"<tr><td style='vertical-align:top'>{n}</td><td {cell}><code>"
                f"{html.escape(src)}</code></td><td {cell}><code>{outs_html}</code></td>"
                f"</tr>"
            )
        tail = ""
        if self.discarded:
            tail += (
                "<div>end of input: still open, END not synthesized → "
                + html.escape(", ".join(self.discarded))
                + "</div>"
            )
        if self.error:
            tail += f"<div style='color:{PALETTE['bad']}'><b>✗</b> {html.escape(self.error)}</div>"
        return (
            "<table><thead><tr><th>#</th><th style='text-align:left'>input</th>"
            "<th style='text-align:left'>expanded</th></tr></thead><tbody>"
            + "".join(body)
            + "</tbody></table>"
            + tail
        )

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


def _chunk(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


#: Small chunked streams for :class:`ChunkLab`, each teaching one rule of expansion.
CHUNK_PRESETS: dict[str, list[dict[str, Any]]] = {
    "text chunks": around_run(
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m1", delta="Order A1024 "),
        _chunk("TEXT_MESSAGE_CHUNK", delta="has shipped."),
    ),
    "tool call chunks": around_run(
        _chunk("TOOL_CALL_CHUNK", toolCallId="c1", toolCallName="get_order", delta='{"orderId":'),
        _chunk("TOOL_CALL_CHUNK", delta='"A1024"}'),
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": "t1",
            "toolCallId": "c1",
            "content": '{"status":"shipped"}',
        },
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
        _chunk("TEXT_MESSAGE_CHUNK", messageId="s1", subagentRunId="sa-search", delta="Searching… "),
        _chunk("TEXT_MESSAGE_CHUNK", messageId="b1", subagentRunId="sa-billing", delta="Checking invoices… "),
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
        _chunk("TEXT_MESSAGE_CHUNK", messageId="m1", delta="Done.", metadata={"model": "demo-1"}),
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
        self.preset = widgets.Dropdown(
            options=list(CHUNK_PRESETS),
            value=preset,
            description="preset",
            layout=widgets.Layout(width="360px"),
        )
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
        self.source.value = "\n".join(
            json.dumps(e, ensure_ascii=False) for e in CHUNK_PRESETS[self.preset.value]
        )
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
        self.view.value = (
            self.expansion.html()
            + "<b>whole pipeline</b>"
            + _pre(verdict(self.report))
            + "<b>messages</b>"
            + _pre(format_messages(self.report.messages))
        )

    def widget(self) -> widgets.VBox:
        return widgets.VBox([widgets.HBox([self.preset, self.expand_button]), self.source, self.view])

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = self.widget()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"ChunkLab: {len(CHUNK_PRESETS)} presets"
        return bundle
