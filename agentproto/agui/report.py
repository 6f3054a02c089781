"""Everyday read-outs of a consumer's results: the verdict on a stream, the conversation, one event.

:func:`verdict` says in a few lines what :func:`~agentproto.agui.pipeline.lint_source` found;
:func:`format_messages` prints a thread's messages as a fixed-width table; :func:`wire` gives
an event (model or dict) as its wire dict without the ``timestamp``, for stable display;
:func:`shorten` cuts any value to one line of a given width; :func:`text_table` lays rows out
as a fixed-width table (stable under nbval, readable in a terminal).

Event numbering
---------------
Everywhere in :mod:`agentproto.agui`, events are numbered **from 0 in arrival order**: the
first event on the wire is event 0. That is the ``index`` of every
:class:`~agentproto.agui.errors.AGUIError`, the ``event`` of a
:class:`~agentproto.agui.errors.PipelineWarning`, ``report.error["event"]`` and the
``event`` fields of ``agentproto lint --json``. Human text writes it with a hash —
``event #5`` is the one at index 5 — via :func:`event_label`, so a number read in a sentence
can be used as an index without arithmetic.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agentproto.agui.events import BaseEvent, dump_event

if TYPE_CHECKING:
    from agentproto.agui.pipeline import LintReport

__all__ = ["verdict", "format_messages", "wire", "shorten", "event_label", "text_table"]


def event_label(index: int | None) -> str:
    """``event #5`` for the event at index 5 (zero-based, arrival order); ``the stream`` for None."""
    return "the stream" if index is None else f"event #{index}"


def shorten(value: Any, width: int = 60) -> str:
    """``value`` on one line of at most ``width`` characters (``…`` marks a cut).

    Strings are shown as they are (newlines become spaces); anything else as compact JSON,
    or ``str()`` if it is not JSON data.
    """
    if width < 1:
        raise ValueError("width must be at least 1")
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            text = str(value)
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def wire(event: BaseEvent | Mapping[str, Any]) -> dict[str, Any]:
    """An event (model or wire dict) as its wire dict, ``timestamp`` dropped for stable display."""
    data = dump_event(event) if isinstance(event, BaseEvent) else dict(event)
    data.pop("timestamp", None)
    return data


def verdict(report: LintReport, *, warnings: bool = True) -> str:
    """The consumer's verdict on a stream in a few lines: conformant or not, runs, warnings.

    ``report`` is what :func:`~agentproto.agui.pipeline.lint_source` (or
    :meth:`Pipeline.finish <agentproto.agui.pipeline.Pipeline.finish>`) returned. Events are
    numbered from 0 in arrival order, as ``report.error["event"]`` is: "event #4" is
    ``events[4]``. ``warnings=False`` leaves the warnings out.

    For ``[RUN_STARTED, RUN_FINISHED, RUN_FINISHED]`` it says::

        ✗ rejected at event #2 (RUN_FINISHED) [run.after-finished]
          Cannot send event type 'RUN_FINISHED': The run has already finished with …
          runs: r success
    """
    runs = ", ".join(f"{r['runId'] or '(none)'} {r['outcome']}" for r in report.runs) or "none"
    if report.error is None:
        lines = [f"✓ conformant — runs: {runs}"]
    else:
        err = report.error
        where = (
            "at the end of the stream"
            if err["event"] is None
            else f"at {event_label(err['event'])} ({err['type']})"
        )
        lines = [f"✗ rejected {where} [{err['rule']}]", f"  {err['message']}", f"  runs: {runs}"]
    if warnings:
        for w in report.warnings:
            at = "stream" if w["event"] is None else event_label(w["event"])
            lines.append(f"  ⚠ {at} {w['path'] or '/'}: {w['message']}")
    return "\n".join(lines)


def format_messages(messages: Sequence[Mapping[str, Any]], *, width: int = 60) -> str:
    """A thread's messages (wire dicts) as a fixed-width table: id, role, content, tool calls.

    Content longer than ``width`` is cut (:func:`shorten`); activity messages show their
    ``activityType``, tool messages the ``toolCallId`` they answer.
    """
    if not messages:
        return "(no messages)"
    id_w = max(len(str(m.get("id", ""))) for m in messages)
    lines = []
    for m in messages:
        role = str(m.get("role", "?"))
        if role == "activity":
            body = f"[{m.get('activityType')}] {shorten(m.get('content'), width)}"
        elif role == "tool":
            body = f"→ {m.get('toolCallId')}: {shorten(m.get('content'), width)}"
        else:
            content = m.get("content")
            body = "" if content is None else repr(shorten(content, width))
        calls = m.get("toolCalls") or []
        if calls:
            shown = ", ".join(
                f"{c['function']['name']}({shorten(c['function']['arguments'], 40)})" for c in calls
            )
            body = (body + "  " if body else "") + f"calls {shown}"
        lines.append(f"{str(m.get('id', '')):<{id_w}}  {role:<9}  {body}".rstrip())
    return "\n".join(lines)


def text_table(rows: Iterable[Sequence[Any]], headers: Sequence[str]) -> str:
    """Rows as a fixed-width text table under ``headers`` (cells are ``str()``-ed, left-aligned).

    Raises ``ValueError`` if a row has more cells than there are headers (they would be lost).
    """
    body = [[str(c) for c in row] for row in rows]
    if any(len(r) > len(headers) for r in body):
        raise ValueError("a row has more cells than there are headers")
    widths = [max([len(h)] + [len(r[i]) for r in body if i < len(r)]) for i, h in enumerate(headers)]
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip(),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in body]
    return "\n".join(lines)
