"""Readable, stable event traces for notebooks.

A raw event stream is noisy to read and unstable to print: timestamps change on every run and
generated ids (UUIDs) differ each time. :func:`show_trace` renders a list of events (pydantic
models or wire dicts, AG-UI events or A2A stream responses) as a table numbered from 0 in
arrival order (the library's convention: ``event #4`` in a lint report is row 4 here), drops the
timestamp, and renames generated ids to ``id-1``, ``id-2`` … in order of first appearance, so
the same run prints the same table every time. Hand-written ids such as ``run-1`` are kept.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Trace", "IdNormalizer", "show_trace", "to_wire", "event_kind"]

#: Keys whose string values are identifiers (AG-UI and A2A wire names).
ID_KEYS = frozenset(
    {
        "id",
        "threadId",
        "runId",
        "parentRunId",
        "messageId",
        "toolCallId",
        "parentMessageId",
        "subagentRunId",
        "parentSubagentRunId",
        "parentToolCallId",
        "entityId",
        "interruptId",
        "interruptIds",
        "pendingToolCallIds",
        "taskId",
        "contextId",
        "artifactId",
        "referenceTaskIds",
    }
)
_GENERATED = re.compile(
    r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,})$", re.I
)
#: A2A StreamResponse / SendMessageResponse members, used as the "type" of such an event.
_A2A_KINDS = ("task", "message", "statusUpdate", "artifactUpdate")


def to_wire(event: Any) -> Any:
    """The JSON (wire) form of an event: dicts pass through; AG-UI events go through the
    package's own serializer (which keeps data-``null``); objects with a ``to_wire()`` method
    (A2A models) use it; other pydantic models are dumped by alias without absent fields."""
    if isinstance(event, Mapping):
        return dict(event)
    from agentproto.agui.events import BaseEvent, dump_event

    if isinstance(event, BaseEvent):
        return dump_event(event)
    if callable(getattr(event, "to_wire", None)):
        return event.to_wire()
    if hasattr(event, "model_dump"):
        return event.model_dump(mode="json", by_alias=True, exclude_none=True)
    raise TypeError(f"cannot display {type(event).__name__} as an event")


def event_kind(wire: Mapping[str, Any]) -> str:
    """``type`` for AG-UI events; the one member present for A2A stream responses."""
    if "type" in wire:
        return str(wire["type"])
    inner = wire.get("result", wire)  # a JSON-RPC response wrapping a StreamResponse
    if isinstance(inner, Mapping):
        for kind in _A2A_KINDS:
            if kind in inner:
                return kind
    return "?"


@dataclass
class IdNormalizer:
    """Renames identifiers to ``id-1``, ``id-2`` … in order of first appearance.

    ``mode="generated"`` renames only values that look machine-generated (UUIDs, long hex);
    ``mode="all"`` renames every identifier; ``mode="none"`` renames nothing.
    """

    mode: Literal["generated", "all", "none"] = "generated"
    mapping: dict[str, str] = field(default_factory=dict)

    def rename(self, value: str) -> str:
        if self.mode == "none" or (self.mode == "generated" and not _GENERATED.match(value)):
            return value
        if value not in self.mapping:
            self.mapping[value] = f"id-{len(self.mapping) + 1}"
        return self.mapping[value]

    def walk(self, obj: Any, key: str | None = None) -> Any:
        if isinstance(obj, Mapping):
            return {k: self.walk(v, k) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.walk(v, key) for v in obj]
        if isinstance(obj, str) and key in ID_KEYS:
            return self.rename(obj)
        return obj


def _drop_keys(obj: Any, drop: frozenset[str]) -> Any:
    if isinstance(obj, Mapping):
        return {k: _drop_keys(v, drop) for k, v in obj.items() if k not in drop}
    if isinstance(obj, list):
        return [_drop_keys(v, drop) for v in obj]
    return obj


def _summary(wire: Mapping[str, Any], width: int) -> str:
    body = {k: v for k, v in wire.items() if k != "type"}
    parts = []
    for k, v in body.items():
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":"))
        parts.append(f"{k}={text!r}" if isinstance(v, str) else f"{k}={text}")
    line = "  ".join(parts)
    return line if len(line) <= width else line[: width - 1] + "…"


@dataclass
class Trace:
    """A rendered trace: ``rows`` of (number, kind, summary) plus the normalized wire events."""

    rows: list[tuple[int, str, str]]
    events: list[dict[str, Any]]
    title: str = ""

    def __str__(self) -> str:
        if not self.rows:
            return "(no events)"
        kind_w = max(len(r[1]) for r in self.rows)
        num_w = len(str(self.rows[-1][0]))
        lines = [self.title] if self.title else []
        lines += [f"{n:>{num_w}}  {k:<{kind_w}}  {s}".rstrip() for n, k, s in self.rows]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        head = (
            f"<caption style='text-align:left'><b>{html.escape(self.title)}</b></caption>"
            if self.title
            else ""
        )
        body = "".join(
            f"<tr><td style='text-align:right'>{n}</td><td><code>{html.escape(k)}</code></td>"
            f"<td style='text-align:left'><code>{html.escape(s)}</code></td></tr>"
            for n, k, s in self.rows
        )
        return (
            "<table class='agentproto-trace'>"
            + head
            + "<thead><tr><th>#</th><th>event</th><th style='text-align:left'>fields</th></tr></thead>"
            + f"<tbody>{body}</tbody></table>"
        )

    def kinds(self) -> list[str]:
        """Just the event kinds, in order (handy for asserts in exercises)."""
        return [k for _, k, _ in self.rows]


def show_trace(
    events: Iterable[Any],
    *,
    title: str = "",
    ids: Literal["generated", "all", "none"] | IdNormalizer = "generated",
    drop: Iterable[str] = ("timestamp",),
    width: int = 100,
    start: int = 0,
) -> Trace:
    """Render ``events`` as a stable table numbered from ``start`` (0: the first event).

    Pass the same :class:`IdNormalizer` to several calls to keep names consistent across them.
    """
    normalizer = ids if isinstance(ids, IdNormalizer) else IdNormalizer(ids)
    dropped = frozenset(drop)
    rows: list[tuple[int, str, str]] = []
    wires: list[dict[str, Any]] = []
    for n, event in enumerate(events, start=start):
        wire = normalizer.walk(_drop_keys(to_wire(event), dropped))
        wires.append(wire)
        rows.append((n, event_kind(wire), _summary(wire, width)))
    return Trace(rows, wires, title)
