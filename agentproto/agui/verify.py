"""The run-lifecycle verifier: does this (expanded) event sequence obey the rules?

Spec 1.1 ``events/lifecycle`` and ``basic/patterns/streaming`` say what may follow what; the
reference TypeScript client enforces it in ``verifyEvents``. This module does the same, with
the same error strings, plus the checks the spec requires and that client does not make
(``runId`` and ``threadId`` agreement within a run and across a stream's runs, unique
interrupt ids, truncated streams).

Theory of operation
-------------------
Two layers, in the style of h11's ``_state.py``:

1. **The run machine** — four states and a transition table, :data:`RUN_TRANSITIONS`::

       state     RUN_STARTED        RUN_FINISHED          RUN_ERROR   anything else
       START     ACTIVE             ✗ run.first-event     FAILED      ✗ run.first-event
       ACTIVE    ✗ run.nested-start CLOSED                FAILED      ACTIVE
       CLOSED    ACTIVE             ✗ run.after-finished  FAILED*     ✗ run.after-finished
       FAILED    ACTIVE             ✗ run.after-error     ✗ …         ✗ run.after-error

   A cell holds the next state or the id of the rule the event breaks. ``FAILED*`` is the
   late ``RUN_ERROR`` after ``RUN_FINISHED``: legal, and it marks the closed run *failed*
   (spec lifecycle). ``RUN_STARTED`` after ``CLOSED`` or ``FAILED`` begins a new run on the
   same stream (replay), resetting everything below.

2. **Per-run bookkeeping**, consulted only while ``ACTIVE``: open text messages, tool calls,
   reasoning spans and messages, steps (per owner), subagents, and the owner
   (``subagentRunId``) of every id, so that a continuation that disagrees with its opener is
   caught. The checks are a dispatch table from event type to a small method.

Every violation raises :class:`~agentproto.agui.errors.VerificationError` carrying a stable
rule id, the event number and type, and the message from :data:`RULES` — verbatim the
reference client's where it has one. End of stream (:meth:`Verifier.close`) with a run still
open, or before any run began, is a *truncated* run: never success.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn, cast

from agentproto.agui.errors import VerificationError
from agentproto.agui.events import (
    EVENT_CLASSES,
    BaseEvent,
    EventType,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
)
from agentproto.agui.parse import EventParser

__all__ = [
    "Rule",
    "RULES",
    "RunState",
    "RUN_TRANSITIONS",
    "VerifiedRun",
    "Verifier",
    "verify_events",
    "rules_table",
]

E = EventType


@dataclass(frozen=True, slots=True)
class Rule:
    """One checked rule: message template, one-line fix, and where the spec says so."""

    message: str
    fix: str
    spec: str
    reference: bool = True  # the message is the reference TS client's own


#: Every rule the verifier enforces, by stable id. ``message`` is a ``str.format`` template.
RULES: dict[str, Rule] = {
    # -- the run machine -------------------------------------------------------------------
    "run.first-event": Rule(
        "First event must be 'RUN_STARTED'",
        "Open every stream with RUN_STARTED (or RUN_ERROR if the run fails before starting).",
        "events/lifecycle",
    ),
    "run.nested-start": Rule(
        "Cannot send 'RUN_STARTED' while a run is still active. The previous run must be "
        "finished with 'RUN_FINISHED' before starting a new run.",
        "Finish the current run with RUN_FINISHED or RUN_ERROR before starting another.",
        "events/lifecycle",
    ),
    "run.after-finished": Rule(
        "Cannot send event type '{type}': The run has already finished with 'RUN_FINISHED'. "
        "Start a new run with 'RUN_STARTED'.",
        "Send nothing after RUN_FINISHED except RUN_STARTED (a new run) or a late RUN_ERROR.",
        "events/lifecycle",
    ),
    "run.after-error": Rule(
        "Cannot send event type '{type}': The run has already errored with 'RUN_ERROR'. "
        "No further events can be sent.",
        "RUN_ERROR is terminal: stop the stream, or begin a new run with RUN_STARTED.",
        "events/lifecycle",
    ),
    "run.open-at-finish": Rule(
        "Cannot send 'RUN_FINISHED' while {kind} are still active: {ids}",
        "Close every message, tool call, reasoning span/message, step and subagent before "
        "RUN_FINISHED (or end the run with RUN_ERROR).",
        "events/lifecycle",
    ),
    "run.id-mismatch": Rule(
        "Cannot send 'RUN_FINISHED' for runId '{got}': the open run is '{expected}'. "
        "RUN_STARTED and RUN_FINISHED must agree on runId.",
        "Echo the runId of RUN_STARTED (the input's runId) on RUN_FINISHED.",
        "basic/run-input",
        reference=False,
    ),
    "run.thread-mismatch": Rule(
        "Cannot send 'RUN_FINISHED' for threadId '{got}': the open run belongs to thread "
        "'{expected}'. RUN_STARTED and RUN_FINISHED must carry the input's threadId.",
        "Echo the input's threadId on both RUN_STARTED and RUN_FINISHED.",
        "basic/run-input",
        reference=False,
    ),
    "run.thread-changed": Rule(
        "Cannot send 'RUN_STARTED' for threadId '{got}': this stream carries thread "
        "'{expected}'. Every run on one stream carries the run input's threadId.",
        "Serve one thread per stream: every RUN_STARTED (replayed runs included) carries the "
        "input's threadId.",
        "basic/run-input",
        reference=False,
    ),
    "run.duplicate-interrupt": Rule(
        "Cannot send 'RUN_FINISHED' with two interrupts carrying the id '{id}'. Interrupt ids "
        "must be unique within the run, because a resume entry answers an interrupt by its id.",
        "Give every interrupt in one outcome its own id.",
        "basic/patterns/interrupt-resume",
        reference=False,
    ),
    "run.truncated-before-start": Rule(
        "The stream ended without emitting 'RUN_STARTED'. A run must begin with 'RUN_STARTED' "
        "and end with 'RUN_FINISHED' or 'RUN_ERROR'.",
        "The producer sent no run at all; check that the agent started and the connection stayed open.",
        "basic/transports",
        reference=False,
    ),
    "run.truncated": Rule(
        "The stream ended without 'RUN_FINISHED' or 'RUN_ERROR'. The run was started but never "
        "terminated, so its result is incomplete.",
        "End every run with RUN_FINISHED or RUN_ERROR; a dropped connection leaves the run "
        "truncated, never a success.",
        "basic/transports",
        reference=False,
    ),
    # -- text messages ---------------------------------------------------------------------
    "text.start-open": Rule(
        "Cannot send 'TEXT_MESSAGE_START' event: A text message with ID '{id}' is already in "
        "progress. Complete it with 'TEXT_MESSAGE_END' first.",
        "Send TEXT_MESSAGE_END before reopening the message, or use a fresh messageId.",
        "events/text-messages",
    ),
    "text.content-unopened": Rule(
        "Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text message found with ID "
        "'{id}'. Start a text message with 'TEXT_MESSAGE_START' first.",
        "Open the message with TEXT_MESSAGE_START before its content.",
        "events/text-messages",
    ),
    "text.end-unopened": Rule(
        "Cannot send 'TEXT_MESSAGE_END' event: No active text message found with ID '{id}'. "
        "A 'TEXT_MESSAGE_START' event must be sent first.",
        "Only close a message you opened, and only once.",
        "events/text-messages",
    ),
    # -- tool calls ------------------------------------------------------------------------
    "tool.start-open": Rule(
        "Cannot send 'TOOL_CALL_START' event: A tool call with ID '{id}' is already in "
        "progress. Complete it with 'TOOL_CALL_END' first.",
        "Send TOOL_CALL_END before reopening the call, or use a fresh toolCallId.",
        "events/tool-calls",
    ),
    "tool.args-unopened": Rule(
        "Cannot send 'TOOL_CALL_ARGS' event: No active tool call found with ID '{id}'. Start "
        "a tool call with 'TOOL_CALL_START' first.",
        "Open the call with TOOL_CALL_START before streaming its arguments.",
        "events/tool-calls",
    ),
    "tool.args-after-end": Rule(
        "Cannot send 'TOOL_CALL_ARGS' event: The tool call with ID '{id}' has already ended "
        "with 'TOOL_CALL_END'; its arguments were complete there.",
        "Stream every TOOL_CALL_ARGS of a call before its TOOL_CALL_END.",
        "events/tool-calls",
        reference=False,
    ),
    "tool.end-unopened": Rule(
        "Cannot send 'TOOL_CALL_END' event: No active tool call found with ID '{id}'. A "
        "'TOOL_CALL_START' event must be sent first.",
        "Only close a tool call you opened, and only once (a result is TOOL_CALL_RESULT).",
        "events/tool-calls",
    ),
    # -- steps -----------------------------------------------------------------------------
    "step.start-open": Rule(
        "Step \"{name}\" is already active for 'STEP_STARTED'{where}",
        "Finish the step before starting one with the same name (per agent).",
        "events/lifecycle",
    ),
    "step.finish-unopened": Rule(
        "Cannot send 'STEP_FINISHED' for step \"{name}\" that was not started",
        "Send STEP_STARTED with the same stepName first.",
        "events/lifecycle",
    ),
    "step.finish-wrong-owner": Rule(
        "Cannot send 'STEP_FINISHED' for step \"{name}\" attributed to {attributed}: that "
        "step is open under {actual}. A step must be finished by whoever started it.",
        "Tag STEP_FINISHED with the same subagentRunId as its STEP_STARTED.",
        "events/subagents",
    ),
    # -- reasoning -------------------------------------------------------------------------
    "reasoning.span-open": Rule(
        "Cannot send 'REASONING_START' event: A reasoning span with ID '{id}' is already in "
        "progress. Complete it with 'REASONING_END' first.",
        "Close the span with REASONING_END before reopening it.",
        "events/reasoning",
    ),
    "reasoning.span-unopened": Rule(
        "Cannot send 'REASONING_END' event: No active reasoning span found with ID '{id}'. A "
        "'REASONING_START' event must be sent first.",
        "Open the span with REASONING_START first.",
        "events/reasoning",
    ),
    "reasoning.message-open": Rule(
        "Cannot send 'REASONING_MESSAGE_START' event: A reasoning message with ID '{id}' is "
        "already in progress. Complete it with 'REASONING_MESSAGE_END' first.",
        "Close the reasoning message before reopening it.",
        "events/reasoning",
    ),
    "reasoning.message-unopened": Rule(
        "Cannot send '{type}' event: No active reasoning message found with ID '{id}'. Start "
        "a reasoning message with 'REASONING_MESSAGE_START' first.",
        "Open the reasoning message with REASONING_MESSAGE_START first.",
        "events/reasoning",
    ),
    # -- subagents -------------------------------------------------------------------------
    "subagent.active": Rule(
        "Cannot send 'SUBAGENT_STARTED': subagent '{id}' is already active. Finish it with "
        "'SUBAGENT_FINISHED' first.",
        "Finish the subagent before starting it again.",
        "events/subagents",
    ),
    "subagent.reused": Rule(
        "Cannot send 'SUBAGENT_STARTED': subagent '{id}' has already finished in this run. "
        "Subagent IDs are per-invocation and cannot be reused.",
        "Mint a new subagentRunId for every invocation.",
        "events/subagents",
    ),
    "subagent.parent-unknown": Rule(
        "Cannot send 'SUBAGENT_STARTED': parentSubagentRunId '{id}' has not been started in this run.",
        "Start the parent subagent before its children.",
        "events/subagents",
    ),
    "subagent.not-active": Rule(
        "Cannot send '{type}': no active subagent found with ID '{id}'. A 'SUBAGENT_STARTED' "
        "event must be sent first.",
        "Announce the subagent with SUBAGENT_STARTED first, and end it only once.",
        "events/subagents",
    ),
    # -- attribution -----------------------------------------------------------------------
    "owner.mismatch": Rule(
        "Cannot send '{type}': subagentRunId '{tag}' does not match the {kind} '{id}' "
        "opener's subagent '{owner}'.",
        "Tag continuations with the opener's subagentRunId, or leave the tag off.",
        "events/subagents",
    ),
    "owner.tool-parent": Rule(
        "Cannot send 'TOOL_CALL_START': subagentRunId '{tag}' does not match its parent "
        "message '{parent}' owner '{owner}'. A tool call belongs to the message that carries "
        "it.",
        "Tag the tool call like its parent message, or leave the tag off.",
        "events/subagents",
    ),
    "owner.tool-reopen-parent": Rule(
        "Cannot send 'TOOL_CALL_START': tool call '{id}' is owned by '{owner}' but its parent "
        "message '{parent}' is owned by '{parent_owner}'. A tool call belongs to the message "
        "that carries it.",
        "Reopen a tool call under the parent message that first carried it.",
        "events/subagents",
    ),
}


def rules_table() -> list[dict[str, Any]]:
    """The rule catalogue as rows (``rule``, ``message``, ``fix``, ``spec``) for display."""
    return [
        {"rule": rid, "message": r.message, "fix": r.fix, "spec": r.spec, "reference": r.reference}
        for rid, r in RULES.items()
    ]


class RunState:
    """The four states of the run machine."""

    START = "START"
    ACTIVE = "ACTIVE"
    CLOSED = "CLOSED"
    FAILED = "FAILED"


_OTHER = "*"
_V = "✗"  # marks a violation cell: (_V, rule_id)
_ACTIVE = RunState.ACTIVE
_RUN_KIND: dict[type[BaseEvent], str] = {
    RunStartedEvent: "RUN_STARTED",
    RunFinishedEvent: "RUN_FINISHED",
    RunErrorEvent: "RUN_ERROR",
}

#: state → event kind → next state, or ``(✗, rule id)``. Kinds: the three ``RUN_*`` types
#: and ``*`` for every other event. Drawn by notebooks; the verifier reads nothing else.
RUN_TRANSITIONS: dict[str, dict[str, object]] = {
    RunState.START: {
        E.RUN_STARTED.value: RunState.ACTIVE,
        E.RUN_FINISHED.value: (_V, "run.first-event"),
        E.RUN_ERROR.value: RunState.FAILED,
        _OTHER: (_V, "run.first-event"),
    },
    RunState.ACTIVE: {
        E.RUN_STARTED.value: (_V, "run.nested-start"),
        E.RUN_FINISHED.value: RunState.CLOSED,
        E.RUN_ERROR.value: RunState.FAILED,
        _OTHER: RunState.ACTIVE,
    },
    RunState.CLOSED: {
        E.RUN_STARTED.value: RunState.ACTIVE,
        E.RUN_FINISHED.value: (_V, "run.after-finished"),
        E.RUN_ERROR.value: RunState.FAILED,
        _OTHER: (_V, "run.after-finished"),
    },
    RunState.FAILED: {
        E.RUN_STARTED.value: RunState.ACTIVE,
        E.RUN_FINISHED.value: (_V, "run.after-error"),
        E.RUN_ERROR.value: (_V, "run.after-error"),
        _OTHER: (_V, "run.after-error"),
    },
}


@dataclass(slots=True)
class VerifiedRun:
    """What became of one run on the stream."""

    thread_id: str | None
    run_id: str | None
    outcome: str | None = None  # success | interrupt | cancelled | failed | truncated | rejected
    interrupt_ids: list[str] = field(default_factory=list)
    error: str | None = None  # RUN_ERROR.message, when failed

    def to_dict(self) -> dict[str, Any]:
        return {"threadId": self.thread_id, "runId": self.run_id, "outcome": self.outcome}


_PARENT = "(the parent agent)"


def _who(owner: str | None) -> str:
    return f"subagent '{owner}'" if owner is not None else "the parent agent"


class Verifier:
    """Feed expanded events in arrival order; a rule violation raises ``VerificationError``.

    Fail-fast, like the reference: after the first violation the verifier's verdict is final
    and it should not be fed further.
    """

    def __init__(self, *, thread_id: str | None = None) -> None:
        self.state = RunState.START
        #: The thread every run on this stream belongs to (spec ``basic/run-input``,
        #: "Identity"): the run input's ``threadId`` when the caller knows it, else the first
        #: ``RUN_STARTED``'s. A caller may also set it after construction, before feeding.
        self.thread_id = thread_id
        self.runs: list[VerifiedRun] = []
        self._count = 0
        self._reset()
        dispatch: dict[EventType, Callable[[BaseEvent, int], None]] = {
            E.TEXT_MESSAGE_START: self._text_start,
            E.TEXT_MESSAGE_CONTENT: self._text_content,
            E.TEXT_MESSAGE_END: self._text_end,
            E.TOOL_CALL_START: self._tool_start,
            E.TOOL_CALL_ARGS: self._tool_args,
            E.TOOL_CALL_END: self._tool_end,
            E.TOOL_CALL_RESULT: self._tool_result,
            E.STEP_STARTED: self._step_start,
            E.STEP_FINISHED: self._step_finish,
            E.REASONING_START: self._reasoning_start,
            E.REASONING_MESSAGE_START: self._reasoning_start,
            E.REASONING_MESSAGE_CONTENT: self._reasoning_continue,
            E.REASONING_MESSAGE_END: self._reasoning_continue,
            E.REASONING_END: self._reasoning_continue,
            E.REASONING_ENCRYPTED_VALUE: self._encrypted_value,
            E.ACTIVITY_SNAPSHOT: self._activity_snapshot,
            E.ACTIVITY_DELTA: self._activity_delta,
            E.SUBAGENT_STARTED: self._subagent_start,
            E.SUBAGENT_FINISHED: self._subagent_end,
            E.SUBAGENT_ERROR: self._subagent_end,
            E.MESSAGES_SNAPSHOT: self._messages_snapshot,
        }
        # Keyed by event class: hashing a class is cheap, hashing an Enum member is not.
        self._dispatch = {EVENT_CLASSES[t]: f for t, f in dispatch.items()}
        #: What :meth:`feed` does with an event of each class while a run is ``ACTIVE``: in
        #: that row of :data:`RUN_TRANSITIONS` only the three ``RUN_*`` columns do anything but
        #: stay ``ACTIVE``, so they go to the run machine and every other class to its own
        #: check (a class that is absent has none). A caller that numbers its events itself
        #: may look the check up here instead of calling ``feed`` (the pipeline does).
        self.in_run: dict[type[BaseEvent], Callable[[BaseEvent, int], None]] = {
            **self._dispatch,
            **dict.fromkeys(_RUN_KIND, self._transition),
        }

    def _reset(self) -> None:
        self._messages: set[str] = set()
        self._tools: set[str] = set()
        self._ended_tools: set[str] = set()  # closed in this run: ARGS now is "after end"
        self._spans: set[str] = set()
        self._reasoning: set[str] = set()
        self._steps: dict[str | None, dict[str, None]] = {}
        self._subagents: dict[str, None] = {}
        self._closed_subagents: set[str] = set()
        # owners, per entity kind, retained for the whole run (first writer wins)
        self._own_msg: dict[str, str | None] = {}
        self._own_tool: dict[str, str | None] = {}
        self._own_act: dict[str, str | None] = {}
        self._own_rsn: dict[str, str | None] = {}

    @property
    def current(self) -> VerifiedRun | None:
        """The most recent run on the stream, if any."""
        return self.runs[-1] if self.runs else None

    @property
    def _run(self) -> VerifiedRun:
        # Inside a run (or at its end) there is always a record: RUN_STARTED/RUN_ERROR made it.
        return self.runs[-1]

    # -- errors --------------------------------------------------------------------------
    def _fail(self, rule: str, index: int, event: BaseEvent | None, **values: Any) -> NoReturn:
        type_ = event.type.value if event is not None else None
        message = RULES[rule].message.format(type=type_, **values)
        raise VerificationError(rule, index, type_, message)

    def _owner_check(
        self, event: Any, index: int, owners: dict[str, str | None], entity: str, kind: str
    ) -> None:
        tag = event.subagent_run_id
        if tag is not None and entity in owners and owners[entity] != tag:
            owner = owners[entity]
            self._fail(
                "owner.mismatch",
                index,
                event,
                tag=tag,
                kind=kind,
                id=entity,
                owner=owner if owner is not None else _PARENT,
            )

    # -- the public surface --------------------------------------------------------------
    def feed(self, event: BaseEvent, index: int | None = None) -> None:
        """Check one event against the run machine and the per-run bookkeeping.

        Without *index*, the event is numbered by the count of ``feed`` calls so far.
        """
        if index is None:
            index = self._count
        self._count += 1
        if self.state is _ACTIVE:
            # The hot path: one table look-up (see ``in_run``), then the event's own check.
            check = self.in_run.get(type(event))
            if check is not None:
                check(event, index)
            return
        self._transition(event, index)

    def _transition(self, event: BaseEvent, index: int) -> None:
        """Consult :data:`RUN_TRANSITIONS`: any event outside a run, or a RUN_* inside one."""
        cls = type(event)
        kind = _RUN_KIND.get(cls, _OTHER)
        nxt = RUN_TRANSITIONS[self.state][kind]
        if type(nxt) is tuple:
            self._fail(nxt[1], index, event)
        if kind is _OTHER:
            check = self._dispatch.get(cls)
            if check is not None:
                check(event, index)
            return
        if cls is RunStartedEvent:
            self._run_started(event, index)
        elif cls is RunFinishedEvent:
            self._run_finished(event, index)
        else:
            self._run_error(event, index)
        self.state = cast(str, nxt)

    def close(self) -> None:
        """End of stream: a run still open (or none at all) is truncated — never success."""
        if self.state == RunState.START:
            self.runs.append(VerifiedRun(None, None, "truncated"))
            raise VerificationError(
                "run.truncated-before-start", None, None, RULES["run.truncated-before-start"].message
            )
        if self.state == RunState.ACTIVE:
            self._run.outcome = "truncated"
            raise VerificationError("run.truncated", None, None, RULES["run.truncated"].message)

    # -- run events ----------------------------------------------------------------------
    def _run_started(self, event: Any, index: int) -> None:
        self._reset()
        self.runs.append(VerifiedRun(event.thread_id, event.run_id))
        # Spec basic/run-input, "Identity": every run on the stream carries the input's
        # threadId, so a later run (a replay included) may not switch threads.
        if self.thread_id is None:
            self.thread_id = event.thread_id
        elif event.thread_id != self.thread_id:
            self._fail("run.thread-changed", index, event, got=event.thread_id, expected=self.thread_id)
        if event.input is not None:
            self._seed(event.input.messages, authoritative=False)

    def _run_finished(self, event: Any, index: int) -> None:
        run = self._run
        steps = [
            name if owner is None else f"{name} (subagent '{owner}')"
            for owner, names in self._steps.items()
            for name in names
        ]
        for kind, items in (
            ("steps", steps),
            ("text messages", self._messages),
            ("reasoning messages", self._reasoning),
            ("reasoning spans", self._spans),
            ("tool calls", self._tools),
            ("subagents", self._subagents),
        ):
            if items:
                self._fail("run.open-at-finish", index, event, kind=kind, ids=", ".join(items))
        if event.run_id != run.run_id:
            self._fail("run.id-mismatch", index, event, got=event.run_id, expected=run.run_id)
        if event.thread_id != run.thread_id:
            self._fail("run.thread-mismatch", index, event, got=event.thread_id, expected=run.thread_id)
        outcome = event.outcome
        if outcome is None or outcome.type == "success":
            run.outcome = "success"
        elif outcome.type == "interrupt":
            seen: set[str] = set()
            for interrupt in outcome.interrupts:
                if interrupt.id in seen:
                    self._fail("run.duplicate-interrupt", index, event, id=interrupt.id)
                seen.add(interrupt.id)
            run.outcome = "interrupt"
            run.interrupt_ids = [i.id for i in outcome.interrupts]
        else:
            run.outcome = "cancelled"

    def _run_error(self, event: Any, index: int) -> None:
        if self.state == RunState.START:
            # A stream may open with RUN_ERROR: the run failed before it could start.
            self.runs.append(VerifiedRun(None, None))
        run = self._run
        run.outcome = "failed"  # a late RUN_ERROR after RUN_FINISHED also fails the run
        run.error = event.message

    # -- text ----------------------------------------------------------------------------
    def _text_start(self, event: Any, index: int) -> None:
        mid = event.message_id
        if mid in self._messages:
            self._fail("text.start-open", index, event, id=mid)
        self._owner_check(event, index, self._own_msg, mid, "message")
        self._messages.add(mid)
        self._own_msg.setdefault(mid, event.subagent_run_id)

    def _text_content(self, event: Any, index: int) -> None:
        mid = event.message_id
        if mid not in self._messages:
            self._fail("text.content-unopened", index, event, id=mid)
        if event.subagent_run_id is not None:
            self._owner_check(event, index, self._own_msg, mid, "message")

    def _text_end(self, event: Any, index: int) -> None:
        mid = event.message_id
        if mid not in self._messages:
            self._fail("text.end-unopened", index, event, id=mid)
        if event.subagent_run_id is not None:
            self._owner_check(event, index, self._own_msg, mid, "message")
        self._messages.discard(mid)

    # -- tools ---------------------------------------------------------------------------
    def _tool_start(self, event: Any, index: int) -> None:
        tid = event.tool_call_id
        if tid in self._tools:
            self._fail("tool.start-open", index, event, id=tid)
        tag = event.subagent_run_id
        parent = event.parent_message_id
        inherited = False
        inherited_owner = None
        if parent is not None and parent in self._own_msg:
            parent_owner = self._own_msg[parent]
            if tag is not None and tag != parent_owner:
                self._fail(
                    "owner.tool-parent",
                    index,
                    event,
                    tag=tag,
                    parent=parent,
                    owner=parent_owner if parent_owner is not None else _PARENT,
                )
            inherited, inherited_owner = True, parent_owner
        if tid in self._own_tool:
            self._owner_check(event, index, self._own_tool, tid, "tool call")
            existing = self._own_tool[tid]
            if tag is None and inherited and inherited_owner != existing:
                self._fail(
                    "owner.tool-reopen-parent",
                    index,
                    event,
                    id=tid,
                    owner=existing if existing is not None else _PARENT,
                    parent=parent,
                    parent_owner=(inherited_owner if inherited_owner is not None else _PARENT),
                )
        else:
            self._own_tool[tid] = tag if tag is not None else inherited_owner
        self._tools.add(tid)

    def _tool_args(self, event: Any, index: int) -> None:
        tid = event.tool_call_id
        if tid not in self._tools:
            rule = "tool.args-after-end" if tid in self._ended_tools else "tool.args-unopened"
            self._fail(rule, index, event, id=tid)
        if event.subagent_run_id is not None:
            self._owner_check(event, index, self._own_tool, tid, "tool call")

    def _tool_end(self, event: Any, index: int) -> None:
        tid = event.tool_call_id
        if tid not in self._tools:
            self._fail("tool.end-unopened", index, event, id=tid)
        if event.subagent_run_id is not None:
            self._owner_check(event, index, self._own_tool, tid, "tool call")
        self._tools.discard(tid)
        self._ended_tools.add(tid)

    def _tool_result(self, event: Any, index: int) -> None:
        # A creation event: the tool message it mints is on record, newest mint wins.
        self._own_msg[event.message_id] = event.subagent_run_id

    # -- steps ---------------------------------------------------------------------------
    def _step_start(self, event: Any, index: int) -> None:
        owner, name = event.subagent_run_id, event.step_name
        names = self._steps.setdefault(owner, {})
        if name in names:
            where = f" in subagent '{owner}'" if owner is not None else ""
            self._fail("step.start-open", index, event, name=name, where=where)
        names[name] = None

    def _step_finish(self, event: Any, index: int) -> None:
        owner, name = event.subagent_run_id, event.step_name
        names = self._steps.get(owner)
        if names is None or name not in names:
            for other, other_names in self._steps.items():
                if other != owner and name in other_names:
                    self._fail(
                        "step.finish-wrong-owner",
                        index,
                        event,
                        name=name,
                        attributed=_who(owner),
                        actual=_who(other),
                    )
            self._fail("step.finish-unopened", index, event, name=name)
        del names[name]

    # -- reasoning -----------------------------------------------------------------------
    def _reasoning_start(self, event: Any, index: int) -> None:
        mid = event.message_id
        span = type(event) is ReasoningStartEvent
        open_ = self._spans if span else self._reasoning
        if mid in open_:
            self._fail("reasoning.span-open" if span else "reasoning.message-open", index, event, id=mid)
        self._owner_check(event, index, self._own_rsn, mid, "reasoning message")
        open_.add(mid)
        self._own_rsn.setdefault(mid, event.subagent_run_id)

    def _reasoning_continue(self, event: Any, index: int) -> None:
        mid = event.message_id
        span = type(event) is ReasoningEndEvent
        open_ = self._spans if span else self._reasoning
        if mid not in open_:
            self._fail(
                "reasoning.span-unopened" if span else "reasoning.message-unopened", index, event, id=mid
            )
        if event.subagent_run_id is not None:
            self._owner_check(event, index, self._own_rsn, mid, "reasoning message")
        if type(event) is not ReasoningMessageContentEvent:
            open_.discard(mid)

    def _encrypted_value(self, event: Any, index: int) -> None:
        if event.subagent_run_id is None:
            return
        eid = event.entity_id
        if event.subtype == "tool-call":
            self._owner_check(event, index, self._own_tool, eid, "tool call")
        elif eid in self._own_msg:
            self._owner_check(event, index, self._own_msg, eid, "message")
        else:
            self._owner_check(event, index, self._own_rsn, eid, "message")

    # -- activity ------------------------------------------------------------------------
    def _activity_snapshot(self, event: Any, index: int) -> None:
        mid = event.message_id
        if mid not in self._own_act or event.replace is not False:
            self._own_act[mid] = event.subagent_run_id

    def _activity_delta(self, event: Any, index: int) -> None:
        if event.subagent_run_id is not None:
            self._owner_check(event, index, self._own_act, event.message_id, "activity")

    # -- subagents -----------------------------------------------------------------------
    def _subagent_start(self, event: Any, index: int) -> None:
        sid, parent = event.subagent_run_id, event.parent_subagent_run_id
        if sid in self._subagents:
            self._fail("subagent.active", index, event, id=sid)
        if sid in self._closed_subagents:
            self._fail("subagent.reused", index, event, id=sid)
        if parent is not None and parent not in self._subagents and parent not in self._closed_subagents:
            self._fail("subagent.parent-unknown", index, event, id=parent)
        self._subagents[sid] = None

    def _subagent_end(self, event: Any, index: int) -> None:
        sid = event.subagent_run_id
        if sid not in self._subagents:
            self._fail("subagent.not-active", index, event, id=sid)
        del self._subagents[sid]
        self._closed_subagents.add(sid)

    # -- history seeding -----------------------------------------------------------------
    def _messages_snapshot(self, event: Any, index: int) -> None:
        self._seed(event.messages, authoritative=True)

    def _seed(self, messages: Iterable[Any], *, authoritative: bool) -> None:
        """Replayed history names owners too (snapshots replace, input echo only fills gaps)."""
        for msg in messages:
            bucket = (
                self._own_rsn
                if msg.role == "reasoning"
                else self._own_act
                if msg.role == "activity"
                else self._own_msg
            )
            if authoritative or msg.id not in bucket:
                bucket[msg.id] = msg.subagent_run_id
            for call in getattr(msg, "tool_calls", None) or ():
                if authoritative or call.id not in self._own_tool:
                    self._own_tool[call.id] = msg.subagent_run_id


def verify_events(events: Iterable[BaseEvent | Mapping[str, Any] | str | bytes]) -> list[VerifiedRun]:
    """Verify a complete, already expanded event list; return the run records.

    ``events`` may be models or wire events (dicts or JSON text, as a capture holds them);
    wire events are parsed first with one :class:`~agentproto.agui.parse.EventParser`, so an
    unknown event type is skipped (it still counts in the numbering) and a malformed one raises
    :class:`~agentproto.agui.errors.MalformedEventError`. ``*_CHUNK`` events are not expanded
    here — use :func:`~agentproto.agui.pipeline.lint_source` for a raw stream. Events are
    numbered from 0 in arrival order: a :class:`VerificationError`'s ``index`` is the position
    in ``events``. Raises ``TypeError`` for anything that is not an event.
    """
    verifier = Verifier()
    parser: EventParser | None = None
    for i, event in enumerate(events):
        if not isinstance(event, BaseEvent):
            if not isinstance(event, (Mapping, str, bytes, bytearray)):
                raise TypeError(
                    f"verify_events takes events (models, wire dicts or JSON text); "
                    f"item {i} is a {type(event).__name__}"
                )
            if parser is None:
                parser = EventParser()
            data = dict(event) if isinstance(event, Mapping) else event
            parsed = parser.parse(data, index=i).event
            if parsed is None:  # an unknown type: dropped, as the processing model says
                continue
            event = parsed
        verifier.feed(event, index=i)
    verifier.close()
    return verifier.runs
