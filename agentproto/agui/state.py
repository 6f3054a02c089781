"""Application: folding verified events into shared state and a message list (the reducer).

This is the last stage of the consumer pipeline (spec 1.1 ``basic/processing``): it assumes
chunks were expanded and the sequence verified, and turns events into what a UI renders.

Theory of operation
-------------------
:class:`StateReducer` holds three things and changes them only through :meth:`apply`:

* ``state`` — any JSON value. ``STATE_SNAPSHOT`` replaces it wholesale (``null``, ``0`` and
  arrays included; no merge). ``STATE_DELTA`` amends it with an RFC 6902 patch, applied
  **in place and atomically**: each change is journalled and the journal rolled back if a
  later operation fails, so the prior state is restored exactly without copying the whole
  document per delta. The common operations (``add``/``replace``/``remove`` along paths
  that resolve in plain dicts and lists) take the fast engine of
  :mod:`~agentproto.agui._patch`; everything else, and every failure, is ``jsonpatch``'s
  (see :func:`~agentproto.agui._patch._apply_in_place`). A well-formed patch that does not
  apply (missing path, failed ``test``) keeps the prior state and yields a warning quoting
  jsonpatch's message; the next snapshot is adopted regardless (spec
  ``basic/patterns/snapshots``). The reducer owns its state: snapshots are copied in,
  and inserted values are copied, so events are never mutated — but ``state`` itself
  changes in place; copy it (:func:`copy_json`) to keep a before/after pair.
* ``messages`` — the conversation in AG-UI wire shape (camelCase dicts). Text and reasoning
  messages are created by their START, grow by CONTENT (deltas are buffered and joined, so a
  long message costs linear, not quadratic, time) and close by END. Tool calls attach to
  their parent assistant message, created when missing (spec ``events/tool-calls``); a
  ``TOOL_CALL_RESULT`` mints a ``tool`` message. Activity messages follow their snapshots
  and deltas. ``MESSAGES_SNAPSHOT`` reconciles exactly as spec ``events/state`` says: a known
  id is replaced in place, an unseen one appended, and a message missing from the snapshot
  dropped — except activity and reasoning messages, kept unless the snapshot itself carries
  any message of that role. Event ``metadata`` merges key by key, last write wins, into the
  item it builds (spec ``basic/metadata``): the message, or the tool call itself.
* ``pending_interrupts`` — the interrupts of the last ``RUN_FINISHED`` with an interrupt
  outcome; any other ``RUN_FINISHED`` clears them.

Optional guard rails (off by default; notebook 05 teaches them):

* ``allowed_paths=["/order", "/ui/*"]`` — a state change touching anything else raises
  :class:`~agentproto.agui.errors.GuardError` and is not applied. ``*`` matches one path
  segment; a pattern also admits everything beneath it. Snapshots are checked by diffing
  them against the current state.
* ``version_key="agentproto.stateVersion"`` — a sequence counter the producer puts in the
  ``metadata`` of every state event: a snapshot sets it, and each delta must carry exactly
  the previous value + 1. A gap, a repeat or a missing counter raises
  :class:`~agentproto.agui.errors.ResyncNeeded` *instead of applying*, and every further
  delta is refused until a snapshot arrives. This detects lost or reordered deltas, which
  the protocol itself cannot (it has no sequence numbers and no ``Last-Event-ID``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from agentproto.agui._patch import (
    _apply_in_place,
    _is_patch_error,
    _load_jsonpatch,
    _op_dict,
    apply_patch,
    copy_json,
)
from agentproto.agui.errors import ChunkError, GuardError, PipelineWarning, ResyncNeeded
from agentproto.agui.events import (
    EVENT_CLASSES,
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    BaseEvent,
    EventType,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    dump_model,
)

__all__ = ["StateReducer", "apply_patch", "copy_json", "DEFAULT_VERSION_KEY"]

E = EventType
DEFAULT_VERSION_KEY = "agentproto.stateVersion"
_NO_WARNINGS: list[PipelineWarning] = []  # shared empty result; callers only read it


def _a(word: str) -> str:
    """``word`` with its indefinite article: "an assistant", "a user"."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _merge_meta(target: dict[str, Any], meta: dict[str, Any] | None) -> None:
    """Spec basic/metadata: merge key by key, last write wins, no recursion."""
    if meta:
        existing = target.get("metadata")
        if existing is None:
            target["metadata"] = dict(meta)
        else:
            existing.update(meta)


def _path_allowed(path: str, patterns: list[str]) -> bool:
    from fnmatch import fnmatchcase  # guard rails are off by default

    segments = path.split("/")
    for pattern in patterns:
        psegs = pattern.split("/")
        if len(segments) >= len(psegs) and all(fnmatchcase(s, p) for s, p in zip(segments, psegs)):
            return True
    return False


class StateReducer:
    """Folds verified AG-UI events into ``state``, ``messages`` and ``pending_interrupts``.

    ``apply(event)`` returns the warnings the event produced (never raises for the tolerated
    failures the spec names); fatal problems raise :class:`AGUIError` subclasses.
    """

    def __init__(
        self,
        *,
        state: Any = None,
        messages: Iterable[Any] | None = None,
        allowed_paths: list[str] | None = None,
        version_key: str | None = None,
    ) -> None:
        self.state: Any = {} if state is None else copy_json(state)
        self._messages: list[dict[str, Any]] = [
            m if isinstance(m, dict) else dump_model(m) for m in (messages or [])
        ]
        self._by_id: dict[str, dict[str, Any]] = {m["id"]: m for m in self._messages}
        self._tool_calls: dict[str, dict[str, Any]] = {}
        for m in self._messages:
            for call in m.get("toolCalls") or ():
                self._tool_calls[call["id"]] = call
        self._text_buf: dict[str, list[str]] = {}  # message id → pending content deltas
        self._args_buf: dict[str, list[str]] = {}  # tool call id → pending argument deltas
        self.pending_interrupts: list[dict[str, Any]] = []
        #: Per run: ``{"outcome", "result", "usage", "error"}`` as the producer reported it.
        self.results: dict[str | None, dict[str, Any]] = {}
        self._run_id: str | None = None
        self.allowed_paths = list(allowed_paths) if allowed_paths else None
        self.version_key = version_key
        self.version: int | None = None
        self.needs_resync = False
        self._warnings: list[PipelineWarning] = []
        #: The warnings of the most recent :meth:`apply` call.
        self.last_warnings: list[PipelineWarning] = []
        self._index: int | None = None
        handlers: dict[EventType, Callable[[Any], None]] = {
            E.RUN_STARTED: self._run_started,
            E.RUN_FINISHED: self._run_finished,
            E.RUN_ERROR: self._run_error,
            E.TEXT_MESSAGE_START: self._text_start,
            E.TEXT_MESSAGE_CONTENT: self._text_content,
            E.TEXT_MESSAGE_END: self._text_end,
            E.REASONING_MESSAGE_START: self._text_start,
            E.REASONING_MESSAGE_CONTENT: self._text_content,
            E.REASONING_MESSAGE_END: self._text_end,
            E.TOOL_CALL_START: self._tool_start,
            E.TOOL_CALL_ARGS: self._tool_args,
            E.TOOL_CALL_END: self._tool_end,
            E.TOOL_CALL_RESULT: self._tool_result,
            E.STATE_SNAPSHOT: self._state_snapshot,
            E.STATE_DELTA: self._state_delta,
            E.MESSAGES_SNAPSHOT: self._messages_snapshot,
            E.ACTIVITY_SNAPSHOT: self._activity_snapshot,
            E.ACTIVITY_DELTA: self._activity_delta,
            E.REASONING_ENCRYPTED_VALUE: self._encrypted_value,
        }
        # Keyed by event class: hashing a class is cheap, hashing an Enum member is not.
        self._handlers = {EVENT_CLASSES[t]: f for t, f in handlers.items()}

    # -- public surface ------------------------------------------------------------------
    def apply(self, event: BaseEvent, index: int | None = None) -> list[PipelineWarning]:
        """Apply one event; return the warnings it raised (empty for almost every event)."""
        handler = self._handlers.get(type(event))
        if handler is None:
            if event.type in (E.TEXT_MESSAGE_CHUNK, E.TOOL_CALL_CHUNK, E.REASONING_MESSAGE_CHUNK):
                raise ChunkError(
                    f"{event.type.value} must be transformed before being applied",
                    rule="apply.untransformed-chunk",
                    index=index,
                    event_type=event.type.value,
                )
            return []
        self._index = index
        handler(event)
        if self._warnings:
            return self._take_warnings()
        return _NO_WARNINGS

    def _take_warnings(self) -> list[PipelineWarning]:
        """Hand over the warnings collected since the last call (they become last_warnings)."""
        self.last_warnings, self._warnings = self._warnings, []
        return self.last_warnings

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation in wire shape (live objects; copy before mutating)."""
        self._fold_all()
        return self._messages

    def export_messages(self) -> list[dict[str, Any]]:
        """A JSON-safe deep copy of the conversation, in wire shape."""
        messages: list[dict[str, Any]] = copy_json(self.messages)
        return messages

    def messages_for_input(self) -> list[dict[str, Any]]:
        """The messages to send in the next ``RunAgentInput``: activity stripped (spec activity)."""
        return [m for m in self.export_messages() if m.get("role") != "activity"]

    # -- helpers -------------------------------------------------------------------------
    def _warn(self, path: str, message: str) -> None:
        self._warnings.append(PipelineWarning(self._index, path, message))

    def _fold(self, mid: str) -> None:
        parts = self._text_buf.pop(mid, None)
        if parts:
            msg = self._by_id.get(mid)
            if msg is not None:
                msg["content"] = (msg.get("content") or "") + "".join(parts)

    def _fold_args(self, tid: str) -> None:
        parts = self._args_buf.pop(tid, None)
        if parts:
            call = self._tool_calls.get(tid)
            if call is not None:
                call["function"]["arguments"] += "".join(parts)

    def _fold_all(self) -> None:
        for mid in list(self._text_buf):
            self._fold(mid)
        for tid in list(self._args_buf):
            self._fold_args(tid)

    def _add_message(self, msg: dict[str, Any]) -> dict[str, Any]:
        self._messages.append(msg)
        self._by_id[msg["id"]] = msg
        return msg

    # -- runs ----------------------------------------------------------------------------
    def _run_started(self, event: RunStartedEvent) -> None:
        self._run_id = event.run_id
        inp = event.input
        if inp is not None:
            # The echoed input is the run's baseline: its history and its starting state.
            for m in inp.messages:
                if m.id not in self._by_id:
                    msg = self._add_message(dump_model(m))
                    for call in msg.get("toolCalls") or ():
                        self._tool_calls[call["id"]] = call
            if inp.state is not None:
                self.state = copy_json(inp.state)

    def _run_finished(self, event: RunFinishedEvent) -> None:
        outcome = event.outcome
        kind = "success" if outcome is None else outcome.type
        if kind == "interrupt":
            assert isinstance(outcome, RunFinishedInterruptOutcome)
            self.pending_interrupts = [dump_model(i) for i in outcome.interrupts]
        else:
            self.pending_interrupts = []
        record: dict[str, Any] = {"outcome": kind}
        if event.result is not None:
            record["result"] = event.result
        if event.usage is not None:
            record["usage"] = [dump_model(u) for u in event.usage]
        self.results[event.run_id] = record

    def _run_error(self, event: RunErrorEvent) -> None:
        record = self.results.setdefault(self._run_id, {})
        record["outcome"] = "failed"
        record["error"] = {
            "message": event.message,
            **({"code": event.code} if event.code is not None else {}),
        }

    # -- text and reasoning messages -----------------------------------------------------
    def _text_start(self, event: TextMessageStartEvent | ReasoningMessageStartEvent) -> None:
        mid = event.message_id
        msg = self._by_id.get(mid)
        if msg is None:
            role = event.role
            is_text = type(event) is TextMessageStartEvent
            if is_text and role is None:
                role = "assistant"  # absent means assistant (spec text-messages)
            msg = {"id": mid, "role": role, "content": ""}
            if type(event) is TextMessageStartEvent and event.name is not None:
                msg["name"] = event.name
            if event.subagent_run_id is not None:
                msg["subagentRunId"] = event.subagent_run_id
            self._add_message(msg)
        elif msg.get("content") is None:
            msg["content"] = ""  # an assistant message that so far only held tool calls
        _merge_meta(msg, event.metadata)

    def _text_content(self, event: TextMessageContentEvent | ReasoningMessageContentEvent) -> None:
        mid = event.message_id
        try:
            buf = self._text_buf[mid]
        except KeyError:  # the first delta since the message was started or last folded
            if mid not in self._by_id:
                self._warn("/messageId", f"content for unknown message {mid!r} ignored")
                return
            buf = self._text_buf[mid] = []
        buf.append(event.delta)
        if event.metadata:
            _merge_meta(self._by_id[mid], event.metadata)

    def _text_end(self, event: TextMessageEndEvent | ReasoningMessageEndEvent) -> None:
        mid = event.message_id
        self._fold(mid)
        if event.metadata and mid in self._by_id:
            _merge_meta(self._by_id[mid], event.metadata)

    # -- tool calls ----------------------------------------------------------------------
    def _tool_start(self, event: ToolCallStartEvent) -> None:
        tid = event.tool_call_id
        call = self._tool_calls.get(tid)
        if call is not None:  # idempotent on a known call id: a reopen appends to it
            _merge_meta(call, event.metadata)
            return
        parent_id = event.parent_message_id
        parent = self._by_id.get(parent_id) if parent_id is not None else None
        if parent is not None and parent.get("role") != "assistant":
            self._warn(
                "/parentMessageId",
                f"parentMessageId {parent_id!r} is {_a(str(parent.get('role')))} message, not "
                f"an assistant message; the call gets an assistant message of its own",
            )
            parent = None
            parent_id = None  # keyed by the tool call id instead
        if parent is None:
            new_id = parent_id if parent_id is not None else tid
            parent = {"id": new_id, "role": "assistant"}
            if event.subagent_run_id is not None:
                parent["subagentRunId"] = event.subagent_run_id
            self._add_message(parent)
        call = {"id": tid, "type": "function", "function": {"name": event.tool_call_name, "arguments": ""}}
        _merge_meta(call, event.metadata)
        parent.setdefault("toolCalls", []).append(call)
        self._tool_calls[tid] = call

    def _tool_args(self, event: ToolCallArgsEvent) -> None:
        tid = event.tool_call_id
        try:
            buf = self._args_buf[tid]
        except KeyError:  # the first fragment since the call was started or last folded
            if tid not in self._tool_calls:
                self._warn("/toolCallId", f"arguments for unknown tool call {tid!r} ignored")
                return
            buf = self._args_buf[tid] = []
        buf.append(event.delta)
        if event.metadata:
            _merge_meta(self._tool_calls[tid], event.metadata)

    def _tool_end(self, event: ToolCallEndEvent) -> None:
        tid = event.tool_call_id
        self._fold_args(tid)
        if event.metadata and tid in self._tool_calls:
            _merge_meta(self._tool_calls[tid], event.metadata)

    def _tool_result(self, event: ToolCallResultEvent) -> None:
        content = event.content
        msg: dict[str, Any] = {
            "id": event.message_id,
            "role": "tool",
            "content": content if isinstance(content, str) else [dump_model(p) for p in content],
            "toolCallId": event.tool_call_id,
        }
        if event.subagent_run_id is not None:
            msg["subagentRunId"] = event.subagent_run_id
        _merge_meta(msg, event.metadata)
        existing = self._by_id.get(event.message_id)
        if existing is not None:
            self._warn(
                "/messageId",
                f"TOOL_CALL_RESULT reuses message id {event.message_id!r}; the earlier message is replaced",
            )
            self._messages[self._messages.index(existing)] = msg
            self._by_id[msg["id"]] = msg
        else:
            self._add_message(msg)

    # -- state ---------------------------------------------------------------------------
    def _guard_version(self, event: StateSnapshotEvent | StateDeltaEvent, *, snapshot: bool) -> None:
        key = self.version_key
        if key is None:
            return
        value = (event.metadata or {}).get(key)
        if snapshot:
            self.version = value if isinstance(value, int) else None
            self.needs_resync = False
            return
        expected = None if self.version is None else self.version + 1
        if self.needs_resync or not isinstance(value, int) or value != expected:
            if self.needs_resync:
                why = "a resync is pending (waiting for a STATE_SNAPSHOT)"
            elif not isinstance(value, int):
                why = f"the delta carries no integer metadata[{key!r}]"
            elif expected is None:
                why = f"no snapshot has set {key} yet"
            else:
                why = f"expected {key}={expected}, got {value}"
            self.needs_resync = True
            raise ResyncNeeded(
                f"STATE_DELTA not applied: {why}; request a STATE_SNAPSHOT",
                expected=expected,
                got=value if isinstance(value, int) else None,
                index=self._index,
                event_type=event.type.value,
            )
        self.version = value

    def _guard_paths(self, event: StateSnapshotEvent | StateDeltaEvent, paths: list[str]) -> None:
        if self.allowed_paths is None:
            return
        for path in paths:
            if not _path_allowed(path, self.allowed_paths):
                raise GuardError(
                    f"{event.type.value} refused: it changes {path or '(the whole state)'!r}, "
                    f"outside the allowed paths {self.allowed_paths}",
                    rule="guard.path-not-allowed",
                    index=self._index,
                    event_type=event.type.value,
                )

    def _state_snapshot(self, event: StateSnapshotEvent) -> None:
        if self.allowed_paths is not None:
            diff = _load_jsonpatch().make_patch(self.state, event.snapshot)
            self._guard_paths(
                event, [p for op in diff for p in (op["path"], op.get("from")) if p is not None]
            )
        self._guard_version(event, snapshot=True)
        self.state = copy_json(event.snapshot)

    def _state_delta(self, event: StateDeltaEvent) -> None:
        ops = event.delta  # operation models: the fast engine reads them as they are
        if self.allowed_paths is not None:
            plain = [_op_dict(op) for op in ops]
            self._guard_paths(
                event, [p for op in plain for p in (op["path"], op.get("from")) if p is not None]
            )
        if self.version_key is not None:
            self._guard_version(event, snapshot=False)
        try:
            self.state = _apply_in_place(self.state, ops)
        except Exception as exc:
            if not _is_patch_error(exc):
                raise
            self._warn(
                "/delta",
                f"Failed to apply state patch: {type(exc).__name__}: {exc}; the previous state is kept",
            )

    # -- messages snapshot ---------------------------------------------------------------
    def _messages_snapshot(self, event: MessagesSnapshotEvent) -> None:
        self._fold_all()
        incoming = [dump_model(m) for m in event.messages]
        roles_in_snapshot = {m["role"] for m in incoming}
        by_id = {m["id"]: m for m in incoming}
        kept: list[dict[str, Any]] = []
        for msg in self._messages:
            replacement = by_id.get(msg["id"])
            if replacement is not None:
                kept.append(replacement)  # known id: replaced in place
            elif msg.get("role") in ("activity", "reasoning") and msg["role"] not in roles_in_snapshot:
                kept.append(msg)  # client-only material survives
        seen = {m["id"] for m in kept}
        kept.extend(m for m in incoming if m["id"] not in seen)  # unseen: appended in order
        self._messages = kept
        self._by_id = {m["id"]: m for m in kept}
        self._tool_calls = {c["id"]: c for m in kept for c in (m.get("toolCalls") or ())}

    # -- activity ------------------------------------------------------------------------
    def _activity_snapshot(self, event: ActivitySnapshotEvent) -> None:
        msg = self._by_id.get(event.message_id)
        if msg is None:
            msg = {
                "id": event.message_id,
                "role": "activity",
                "activityType": event.activity_type,
                "content": copy_json(event.content),
            }
            if event.subagent_run_id is not None:
                msg["subagentRunId"] = event.subagent_run_id
            self._add_message(msg)
        elif msg.get("role") != "activity":
            self._warn(
                "/messageId",
                f"ACTIVITY_SNAPSHOT names {event.message_id!r}, {_a(str(msg.get('role')))} message; skipped",
            )
            return
        elif event.replace is not False:
            msg["activityType"] = event.activity_type
            msg["content"] = copy_json(event.content)
            if event.subagent_run_id is not None:
                msg["subagentRunId"] = event.subagent_run_id
            else:
                msg.pop("subagentRunId", None)  # a replacing snapshot re-mints ownership
        _merge_meta(msg, event.metadata)

    def _activity_delta(self, event: ActivityDeltaEvent) -> None:
        msg = self._by_id.get(event.message_id)
        if msg is None or msg.get("role") != "activity":
            what = "no such message" if msg is None else f"{_a(str(msg.get('role')))} message"
            self._warn("/messageId", f"ACTIVITY_DELTA for {event.message_id!r} skipped: {what}")
            return
        try:
            content = _apply_in_place(copy_json(msg["content"]), event.patch)
        except Exception as exc:
            if not _is_patch_error(exc):
                raise
            self._warn(
                "/patch",
                f"Failed to apply activity patch: {type(exc).__name__}: {exc}; the previous content is kept",
            )
            return
        if not isinstance(content, dict):
            self._warn("/patch", "activity patch would make content a non-object; skipped")
            return
        msg["content"] = content
        msg["activityType"] = event.activity_type
        _merge_meta(msg, event.metadata)

    # -- encrypted reasoning -------------------------------------------------------------
    def _encrypted_value(self, event: ReasoningEncryptedValueEvent) -> None:
        eid = event.entity_id
        if event.subtype == "tool-call":
            target = self._tool_calls.get(eid)
        else:
            target = self._by_id.get(eid)
            if target is not None and target.get("role") == "activity":
                target = None  # activity messages carry no encrypted value (spec reasoning)
        if target is None:
            self._warn("/entityId", f"REASONING_ENCRYPTED_VALUE for unknown {event.subtype} {eid!r} dropped")
            return
        target["encryptedValue"] = event.encrypted_value
        if event.encrypted_value_type is not None:
            target["encryptedValueType"] = event.encrypted_value_type
        else:
            target.pop("encryptedValueType", None)  # never leave an old type on new bytes
