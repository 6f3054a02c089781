"""The whole consumer pipeline in one object, and the lint report it produces.

Spec 1.1 ``basic/processing`` fixes the order of the stages a consumer runs:

    bytes ─▶ decode (SSE or JSON lines) ─▶ parse (compatibility → enforcement → validation)
          ─▶ expand chunks ─▶ verify ─▶ apply (state, messages, interrupts)

:class:`Pipeline` wires the sans-I/O stages of this package together and keeps going until
the first fatal problem (the protocol is fail-fast: a consumer fails the run rather than
guess). Nothing is lost on the way: events before the failure have been applied, warnings
are collected with the event number and JSON path they concern, and :meth:`Pipeline.finish`
returns a :class:`LintReport` — the object ``agentproto lint --json`` prints.

Event numbers are zero-based positions in the *wire* stream (one per SSE ``data`` payload or
JSON line, dropped events included), so they point at the line a person must look at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import from_json

from agentproto.agui.chunks import ChunkExpander
from agentproto.agui.errors import AGUIError, DecodeError, PipelineWarning
from agentproto.agui.events import EVENT_CLASSES, BaseEvent, EventType
from agentproto.agui.parse import EventParser, Middleware
from agentproto.agui.sse import JSONLinesDecoder, SSEDecoder
from agentproto.agui.state import StateReducer
from agentproto.agui.verify import RULES, RunState, Verifier

__all__ = ["Pipeline", "LintReport", "lint_source", "detect_format", "STAGE_RULES", "fix_for"]

_TEXT_TYPES = (str, bytes)  # JSON text the parser's fast path accepts
#: The payloads the delta lane (see ``Pipeline._run``) may take: a text delta, a tool-call
#: argument fragment and an id-less text chunk, as producers write them (``type`` first).
#: Anything else — another key order included — goes the usual way.
_LANE_PREFIXES = (
    '{"type":"TEXT_MESSAGE_CONTENT",',
    '{"type":"TOOL_CALL_ARGS",',
    '{"type":"TEXT_MESSAGE_CHUNK",',
)
_ACTIVE = RunState.ACTIVE
_CHUNK_CLASSES = frozenset(
    {
        EVENT_CLASSES[EventType.TEXT_MESSAGE_CHUNK],
        EVENT_CLASSES[EventType.TOOL_CALL_CHUNK],
        EVENT_CLASSES[EventType.REASONING_MESSAGE_CHUNK],
    }
)

#: Rules raised before verification (decode, parse, expand, apply, guard rails), with the
#: one-line fix the CLI prints. The verifier's own rules live in :data:`verify.RULES`.
STAGE_RULES: dict[str, tuple[str, str]] = {
    "decode.utf8": ("the bytes are not valid UTF-8", "Encode the stream as UTF-8 (spec http-sse)."),
    "decode.json": (
        "an SSE data payload or JSON line is not valid JSON",
        "Send exactly one complete JSON object per SSE data field.",
    ),
    "decode.sse": ("the decoder was misused", "Do not feed a decoder after close()."),
    "input.unreadable": (
        "the input is neither SSE, JSON lines nor a JSON array of events",
        "Capture the raw response body, or one event object per line.",
    ),
    "schema.not-an-object": ("an event is not a JSON object", "Every event is a JSON object with a 'type'."),
    "schema.missing-field": (
        "a required field is missing",
        "Add the field; check the spelling is camelCase (threadId).",
    ),
    "schema.invalid-value": (
        "a known field holds a value the schema rejects",
        "Send the type the schema names; values are never coerced.",
    ),
    "schema.null-optional": (
        "an optional field was sent as null",
        "Omit fields that have no value instead of sending null.",
    ),
    "schema.null-attribution": (
        "subagentRunId was sent as null",
        "Omit subagentRunId for the parent agent's own events.",
    ),
    "patch.malformed": (
        "a JSON Patch is structurally broken",
        "Send an array of RFC 6902 operations with every required member.",
    ),
    "chunk.missing-id": (
        "the first chunk of an item has no id",
        "Put messageId/toolCallId on the first chunk of every item.",
    ),
    "chunk.missing-name": (
        "the first TOOL_CALL_CHUNK has no toolCallName",
        "Put toolCallName on the first chunk of every tool call.",
    ),
    "chunk.field-mismatch": (
        "a continuation chunk contradicts its opener",
        "Repeat opener fields only with the same value, or omit them.",
    ),
    "chunk.owner-mismatch": (
        "a continuation chunk names another subagent",
        "Tag continuation chunks like the opener, or leave the tag off.",
    ),
    "chunk.ambiguous": (
        "an id-less, untagged chunk could continue several lanes",
        "Give the chunk its id or its subagentRunId.",
    ),
    "apply.untransformed-chunk": (
        "a chunk reached the reducer",
        "Expand chunks (ChunkExpander) before applying events.",
    ),
    "guard.path-not-allowed": (
        "a state change touched a path outside the allow-list",
        "Only change the paths the application allows.",
    ),
    "guard.resync-needed": (
        "a state delta arrived out of sequence",
        "Send a STATE_SNAPSHOT to resynchronise, then number deltas +1.",
    ),
}


def fix_for(rule: str) -> str:
    """The one-line suggested fix for any rule id (verifier or other stages)."""
    if rule in RULES:
        return RULES[rule].fix
    if rule in STAGE_RULES:
        return STAGE_RULES[rule][1]
    return ""


@dataclass
class LintReport:
    """The verdict on one captured stream (the ``agentproto lint --json`` object)."""

    verdict: str  # "conformant" | "rejected": the consumer's verdict on the stream
    error: dict[str, Any] | None  # {event, type, rule, message, fix} or None
    warnings: list[PipelineWarning]  # the one warning shape; readable by key, to_dict() for JSON
    state: Any
    messages: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    events: int = 0  # wire events read
    pending_interrupts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the stream is conformant (a run that failed with RUN_ERROR still is)."""
        return self.error is None

    @property
    def readable(self) -> bool:
        """False when the input could not even be read as a stream (CLI exit code 2)."""
        return self.error is None or self.error["rule"] not in ("decode.utf8", "input.unreadable")

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "error": self.error,
            "warnings": [w.to_dict() for w in self.warnings],
            "state": self.state,
            "messages": self.messages,
            "runs": self.runs,
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


class Pipeline:
    """Decode → parse → expand → verify → apply, incrementally, without I/O.

    ``format`` is ``"sse"`` (a ``text/event-stream`` body) or ``"jsonl"`` (one JSON event per
    line) for :meth:`feed_bytes`; :meth:`feed_event` takes one event as a dict, JSON text or
    model. By default problems are recorded, not raised: check :attr:`error`, or pass
    ``raise_errors=True`` to get the exception from the feed call that hit it.
    The reducer options (``state``, ``messages``, ``allowed_paths``, ``version_key``) are
    passed to :class:`~agentproto.agui.state.StateReducer`; ``on_event`` is called with each
    applied event (a hook for UIs and notebooks). ``middleware`` runs on each decoded event
    between the compatibility boundary and enforcement (:class:`~agentproto.agui.parse.EventParser`).
    """

    def __init__(
        self,
        *,
        format: str = "sse",
        state: Any = None,
        messages: Iterable[Any] | None = None,
        allowed_paths: list[str] | None = None,
        version_key: str | None = None,
        ids: Callable[[], str] | None = None,
        raise_errors: bool = False,
        on_event: Callable[[BaseEvent], None] | None = None,
        middleware: Middleware | None = None,
    ) -> None:
        if format not in ("sse", "jsonl"):
            raise ValueError("format must be 'sse' or 'jsonl'")
        self.format = format
        self._decoder = SSEDecoder() if format == "sse" else JSONLinesDecoder()
        self.parser = EventParser(ids=ids, middleware=middleware)
        self.expander = ChunkExpander()
        self.verifier = Verifier()
        self.reducer = StateReducer(
            state=state, messages=messages, allowed_paths=allowed_paths, version_key=version_key
        )
        self.warnings: list[PipelineWarning] = []
        self.error: AGUIError | None = None
        self.events_read = 0
        self.raise_errors = raise_errors
        self.on_event = on_event
        self._finished: LintReport | None = None

    # -- feeding -------------------------------------------------------------------------
    def feed_bytes(self, data: bytes, *, collect: bool = True) -> list[BaseEvent]:
        """Feed raw stream bytes (any split); returns the events applied as a result.

        With ``collect=False`` nothing is returned (use ``on_event`` or read the reducer):
        a consumer that only wants the final state saves keeping every event alive.
        """
        if self.error is not None:
            return []
        try:
            payloads = self._decoder.feed(data)
        except AGUIError as exc:
            return self._failed(exc)
        return self._run(payloads, collect, decoded=True) if payloads else []

    def feed_event(self, obj: dict[str, Any] | str | bytes | BaseEvent) -> list[BaseEvent]:
        """Feed one wire event; returns the events applied (chunks expand into several)."""
        if self.error is not None:
            return []
        return self._run((obj,))

    def _run(self, items: Sequence[Any], collect: bool = True, decoded: bool = False) -> list[BaseEvent]:
        """The hot loop: every stage for every item, with the stages' methods bound once.

        Most events of a real stream are conforming JSON text (``parser.fast`` takes them in
        one pydantic-core call), arrive while no chunked item is open (so the expander has
        nothing to do) and raise no warning when applied: that path is kept to a handful of
        operations. Everything else takes the general branch, in the same order.
        ``decoded`` says the items are payloads from the decoder, all JSON text.

        **The delta lane.** When nobody will see the event objects (``collect=False``, no
        ``on_event``, no middleware), the bulk of a stream — text deltas, tool-call argument
        fragments and id-less continuation chunks of an open text message — needs no model:
        such a payload is decoded with ``pydantic_core.from_json`` and, if it is exactly the
        conforming shape (only ``type``, the id and a string ``delta``), its checks and its
        application are done on the values, exactly as the verifier's and the reducer's
        handlers would do them on the model. The lane only takes the case where every check
        passes and nothing is warned about; anything else (an unopened message, an unknown
        id, a subagent tag, any other field, another key order) falls through to the general
        path, which parses the payload again and raises or warns with the usual rule and
        message.
        """
        out: list[BaseEvent] = []
        fast = self.parser.fast if decoded else self._fast_if_text
        expander, verifier, reducer = self.expander, self.verifier, self.reducer
        verify, apply, on_event = verifier.feed, reducer.apply, self.on_event
        in_run, warnings, chunky = verifier.in_run, self.warnings, _CHUNK_CLASSES
        lane = decoded and not collect and on_event is None and self.parser.middleware is None
        lanes = expander._lanes
        # The reducer's own dispatch table: calling the handler here is what apply() does
        # for a known event, minus one call per event (chunks and unknowns go to apply()).
        handlers = reducer._handlers
        start = index = self.events_read
        try:
            for index, obj in enumerate(items, start):
                if lane and verifier.state is _ACTIVE and obj.startswith(_LANE_PREFIXES):
                    try:
                        d = from_json(obj)
                    except ValueError:
                        d = None  # not JSON: the general path says so
                    if type(d) is dict:
                        kind = d["type"]
                        delta = d.get("delta")
                        if type(delta) is str:
                            if kind == "TEXT_MESSAGE_CONTENT":
                                # verifier._text_content, then reducer._text_content (no tag)
                                mid = d.get("messageId")
                                if len(d) == 3 and expander.idle and type(mid) is str:
                                    if mid in verifier._messages:
                                        buf = reducer._text_buf.get(mid)
                                        if buf is None and mid in reducer._by_id:
                                            buf = reducer._text_buf[mid] = []
                                        if buf is not None:
                                            buf.append(delta)
                                            reducer._index = index  # what apply() records
                                            continue
                            elif kind == "TOOL_CALL_ARGS":
                                # verifier._tool_args, then reducer._tool_args (no tag)
                                tid = d.get("toolCallId")
                                if len(d) == 3 and expander.idle and type(tid) is str:
                                    if tid in verifier._tools:
                                        buf = reducer._args_buf.get(tid)
                                        if buf is None and tid in reducer._tool_calls:
                                            buf = reducer._args_buf[tid] = []
                                        if buf is not None:
                                            buf.append(delta)
                                            reducer._index = index  # what apply() records
                                            continue
                            elif kind == "TEXT_MESSAGE_CHUNK" and len(d) == 2:
                                # The expander continues the parent's open text stream with a
                                # TEXT_MESSAGE_CONTENT (no tag), which verifier.feed and
                                # reducer.apply take as above.
                                pending = lanes.get(None)
                                if pending is not None and pending.kind == "text" and pending.owner is None:
                                    mid = pending.id
                                    if mid in verifier._messages:
                                        buf = reducer._text_buf.get(mid)
                                        if buf is None and mid in reducer._by_id:
                                            buf = reducer._text_buf[mid] = []
                                        if buf is not None:
                                            buf.append(delta)
                                            verifier._count += 1  # what feed() numbers
                                            reducer._index = index  # what apply() records
                                            continue
                event = fast(obj)
                if event is None:
                    event = self._parse(obj, index)
                    if event is None:  # dropped (unknown type)
                        continue
                cls = type(event)
                if expander.idle and cls not in chunky:  # the common case: nothing to expand
                    if verifier.state is _ACTIVE:
                        # Inside a run, verifying is one look-up in the verifier's in-run table
                        # (what feed() does after numbering the event; ours are numbered).
                        check = in_run.get(cls)
                        if check is not None:
                            check(event, index)
                    else:
                        verify(event, index)
                    handler = handlers.get(cls)
                    if handler is not None:
                        reducer._index = index
                        handler(event)
                        if reducer._warnings:
                            warnings.extend(reducer._take_warnings())
                    elif apply(event, index):
                        warnings.extend(reducer.last_warnings)
                    if on_event is not None:
                        on_event(event)
                    if collect:
                        out.append(event)
                else:
                    for e in expander.feed(event, index=index):
                        verify(e, index)
                        if apply(e, index):
                            warnings.extend(reducer.last_warnings)
                        if on_event is not None:
                            on_event(e)
                        if collect:
                            out.append(e)
        except AGUIError as exc:
            if exc.index is None:
                exc.index = index
            warnings.extend(getattr(exc, "warnings", ()))
            self.events_read = index + 1
            self._failed(exc)
            return out
        self.events_read = start + len(items)
        return out

    def _fast_if_text(self, obj: Any) -> BaseEvent | None:
        """``parser.fast`` for JSON text; ``None`` (the careful path) for anything else."""
        return self.parser.fast(obj) if type(obj) in _TEXT_TYPES else None

    def _parse(self, obj: Any, index: int) -> BaseEvent | None:
        """The careful path: models pass through; anything else gets the full parser."""
        if isinstance(obj, BaseEvent):
            return obj
        parsed = self.parser.parse(obj, index=index)
        if parsed.warnings:
            self.warnings.extend(parsed.warnings)
        return parsed.event

    def _failed(self, exc: AGUIError) -> list[BaseEvent]:
        self.error = exc
        run = self.verifier.current
        if run is not None and run.outcome is None:
            # The consumer rejected the stream: not the producer's RUN_ERROR, which the lifecycle
            # page (Error Handling) says a consumer MUST NOT present it as.
            run.outcome = "rejected"
        if self.raise_errors:
            raise exc
        return []

    # -- the end -------------------------------------------------------------------------
    def finish(self) -> LintReport:
        """End of input: flush the decoder, close the run checks, and report."""
        if self._finished is not None:
            return self._finished
        if self.error is None:
            try:
                tail = self._decoder.close()
            except AGUIError as exc:
                self._failed_quietly(exc)
                tail = None
            if isinstance(tail, list):  # JSON lines: a last line without a newline
                self._run(tail, decoded=True)
            elif tail:
                self.warnings.append(
                    PipelineWarning(
                        None,
                        "",
                        f"the stream ended inside an SSE frame; the unterminated frame "
                        f"was discarded: {tail[:80]!r}",
                    )
                )
        if self.error is None:
            self.expander.close()
            for pending in self.expander.discarded:
                self.warnings.append(
                    PipelineWarning(
                        None,
                        "",
                        f"the stream ended while chunked {pending.kind} {pending.id!r} "
                        f"was open; no END was synthesized for it",
                    )
                )
            try:
                self.verifier.close()
            except AGUIError as exc:
                self._failed_quietly(exc)
        self._finished = self.report()
        return self._finished

    def _failed_quietly(self, exc: AGUIError) -> None:
        self.error = exc
        run = self.verifier.current
        if run is not None and run.outcome is None:
            run.outcome = "rejected"

    def report(self) -> LintReport:
        """The report as things stand (``finish()`` also closes the stream first)."""
        error = None
        if self.error is not None:  # the first violation, with the one-line fix the CLI prints
            error = {**self.error.to_dict(), "fix": fix_for(self.error.rule)}
        return LintReport(
            verdict="conformant" if error is None else "rejected",
            error=error,
            warnings=list(self.warnings),
            state=self.reducer.state,
            messages=self.reducer.export_messages(),
            runs=[r.to_dict() for r in self.verifier.runs],
            events=self.events_read,
            pending_interrupts=list(self.reducer.pending_interrupts),
        )


_SSE_LINE = re.compile(rb"^(data|event|id|retry)?:", re.MULTILINE)


def detect_format(data: bytes) -> str:
    """``"sse"`` if the text has SSE field or comment lines, ``"array"`` for a JSON array,
    else ``"jsonl"``."""
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"["):
        return "array"
    if _SSE_LINE.search(data):
        return "sse"
    return "jsonl"


def lint_source(data: bytes | str | Iterable[Any], format: str = "auto", **options: Any) -> LintReport:
    """Run the whole pipeline over a captured stream and return the report.

    ``data`` is the raw capture (bytes or text), or an iterable of events (dicts, JSON text,
    models) or of byte chunks. ``format`` is ``"auto"``, ``"sse"`` or ``"jsonl"``; ``auto``
    picks SSE when the text has ``data:`` lines, a JSON array when it starts with ``[``, and
    JSON lines otherwise. Other keyword arguments go to :class:`Pipeline`.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray)):
        items = list(data)
        if all(isinstance(x, (bytes, bytearray)) for x in items) and items:
            data = b"".join(items)
        else:
            pipeline = Pipeline(**options)
            for item in items:
                pipeline.feed_event(item)
                if pipeline.error is not None:
                    break
            return pipeline.finish()
    data = bytes(data)
    kind = detect_format(data) if format == "auto" else format
    if kind == "array":
        try:
            events = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            return _unreadable(
                DecodeError(f"input is not valid UTF-8: {exc.reason}", rule="decode.utf8"), options
            )
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            return _unreadable(
                DecodeError(
                    f"input looks like a JSON array but is not valid JSON: {exc}", rule="input.unreadable"
                ),
                options,
            )
        if not isinstance(events, list):
            return _unreadable(
                DecodeError("input is not a JSON array of events", rule="input.unreadable"), options
            )
        return lint_source(events, **options)
    pipeline = Pipeline(format=kind, **options)
    pipeline.feed_bytes(data, collect=False)  # the report is all we want: keep no event alive
    return pipeline.finish()


def _unreadable(exc: AGUIError, options: dict[str, Any]) -> LintReport:
    pipeline = Pipeline(**options)
    pipeline._failed_quietly(exc)
    return pipeline.report()
