"""Interrupts and resume: the human-in-the-loop contract, both sides, without I/O.

Spec 1.1, ``basic/patterns/interrupt-resume``. A run that needs something from outside — an
approval, a missing value — does not wait on an open connection. It *ends*, with
``RUN_FINISHED{outcome: {type: "interrupt", interrupts: [...]}}``, and a **new run** on the same
thread carries the answers in ``RunAgentInput.resume``. This module holds every rule of that
exchange as plain functions over wire-shaped dicts (or the pydantic models, which it dumps).

Theory of operation
-------------------
* **Producer** (the agent): :func:`tool_approval_interrupt` builds an ``Interrupt``;
  :func:`finish_with_interrupts` returns the closing events in the order the spec wants —
  the ``STATE_SNAPSHOT`` and ``MESSAGES_SNAPSHOT`` a resumer needs, then the interrupting
  ``RUN_FINISHED``.
* **Consumer** (the UI): :func:`pending_interrupts` reads the open interrupts off a
  ``RUN_FINISHED``; :func:`build_resume` turns the user's answers into a ``resume`` list,
  refusing to leave one out or to answer one that does not exist.
* **Gatekeeper** (whoever holds the thread — our server, or a careful client before sending):
  :func:`validate_resume` checks a ``RunAgentInput`` against a :class:`ThreadRecord` (the
  thread's interrupt ledger) and returns a :class:`ResumePlan` — ``new`` (an ordinary run),
  ``resume`` (answers to the pending interrupts) or ``replay`` (a repeat of answers already
  acted on, to be answered from the record, never acted on twice). What it refuses is a
  :class:`ResumeError` subclass with a stable ``code`` and an HTTP status, raised *before* the
  run starts; what it merely drops is a :class:`ResumeNotice` on the plan, and the run proceeds.

The rules ("spec" = spec 1.1 ``basic/patterns/interrupt-resume``, "Resuming"; "concepts" = the
``concepts/interrupts`` page; the full table with sources is in ``docs/agui-server.md``):

* an entry must name an open interrupt of the most recent interrupted run — the consumer's MUST;
  a producer meeting one that does not (unknown, another thread's, stale, already settled)
  SHOULD proceed without it and warn: dropped with a :class:`ResumeNotice`;
* every open interrupt covered, and ``resume`` present while any is open — the consumer MUST
  reject an uncovered list, a producer that can tell MAY reject it before the run starts (we
  do): :class:`UncoveredInterruptError`, :class:`ResumeRequiredError`;
* an identical repeat is a ``replay``, answered from the record (concepts, "Contract rules" 5);
* a ``resolved`` payload matches ``responseSchema`` — carried opaquely by the schema, the agent
  *may* validate (concepts rule 6; we do): :class:`PayloadSchemaError`;
* nothing is resolved at or after ``expiresAt``, but cancelling is allowed (spec; the reference
  client wrongly refuses the cancel too): :class:`InterruptExpiredError`;
* a ``cancelled`` entry's payload "should be omitted" (concepts, "Resuming a run"; the schema
  allows it): ignored with a notice; two entries for one interrupt are ambiguous (spec prose,
  not a schema rule): :class:`DuplicateEntryError`; a denial is a payload, not a status.

With ``strict=True`` (a consumer checking its own list) the first rule raises instead —
:class:`UnknownInterruptError`, :class:`ThreadMismatchError`, :class:`StaleInterruptError`,
:class:`ResumeConflictError` — because there it is the consumer's MUST.

The consumer-side messages copy the reference TypeScript client so a learner can search for
them: ``buildResumeArray: missing responses for open interrupts: …`` and
``Thread has <n> pending interrupt(s) not addressed by resume: <ids>``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agentproto.agui._interrupt_errors import (
    BuildResumeError,
    CancelledWithPayloadError,
    DuplicateEntryError,
    InterruptExpiredError,
    InterruptSpecError,
    PayloadSchemaError,
    ResumeConflictError,
    ResumeError,
    ResumeRequiredError,
    StaleInterruptError,
    ThreadMismatchError,
    UncoveredInterruptError,
    UnknownInterruptError,
)

__all__ = [
    # records and plans
    "InterruptRecord",
    "ThreadRecord",
    "ResumeAnswer",
    "ResumePlan",
    "ResumeNotice",
    # producer
    "APPROVAL_RESPONSE_SCHEMA",
    "tool_approval_interrupt",
    "finish_with_interrupts",
    # consumer
    "pending_interrupts",
    "resolved",
    "cancelled",
    "build_resume",
    "parse_expires_at",
    "is_expired",
    "resume_key",
    "validate_resume",
    # errors (defined in agentproto.agui._interrupt_errors)
    "ResumeError",
    "BuildResumeError",
    "ThreadMismatchError",
    "UnknownInterruptError",
    "StaleInterruptError",
    "DuplicateEntryError",
    "UncoveredInterruptError",
    "ResumeRequiredError",
    "ResumeConflictError",
    "PayloadSchemaError",
    "InterruptExpiredError",
    "CancelledWithPayloadError",
    "InterruptSpecError",
]

Json = Any
Status = Literal["resolved", "cancelled"]

#: The answer a tool-approval interrupt asks for: approve or deny, optionally with edited
#: arguments ("approve with edits"). A denial is ``{"approved": false}`` — a payload, not a status.
#: ``editedArgs`` is the *full replacement* of the proposed arguments, "not a partial merge"
#: (concepts/interrupts, "Approve with edits").
APPROVAL_RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "editedArgs": {"type": "object"},
        "comment": {"type": "string"},
    },
    "required": ["approved"],
    "additionalProperties": False,
}


# ------------------------------------------------------------------------------------------
# wire helpers
# ------------------------------------------------------------------------------------------


def _wire(obj: Any) -> Any:
    """A pydantic model (ours or ``ag_ui.core``'s) as its camelCase wire dict; dicts unchanged."""
    dump = getattr(obj, "model_dump", None)
    if dump is not None:
        return dump(by_alias=True, mode="json")
    return obj


def _interrupt_wire(obj: Any) -> Any:
    """An interrupt given as a model, a wire dict or a store :class:`InterruptRecord`."""
    record = getattr(obj, "interrupt", None)
    wire = _wire(record if isinstance(record, dict) else obj)
    if not isinstance(wire, dict) or "id" not in wire:
        raise TypeError(
            f"not an interrupt: {type(obj).__name__} (need an Interrupt, its wire "
            "dict, or an InterruptRecord)"
        )
    return wire


def _canonical(value: Json) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _ids(items: Iterable[str]) -> str:
    return ", ".join(items)


# ------------------------------------------------------------------------------------------
# the thread's interrupt ledger
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InterruptRecord:
    """One interrupt a run on the thread raised, and what became of it."""

    interrupt: dict[str, Any]  #: the ``Interrupt`` as it went out (wire shape)
    run_id: str  #: the run that raised it
    status: Literal["pending", "resolved", "cancelled"] = "pending"
    decision: dict[str, Any] | None = None  #: the ``ResumeEntry`` that settled it
    settled_by: str | None = None  #: the run that carried that entry

    @property
    def id(self) -> str:
        return str(self.interrupt["id"])


@dataclass(frozen=True)
class ThreadRecord:
    """What a gatekeeper knows about a thread's interrupts (the store builds one from disk;
    a client builds one from the last ``RUN_FINISHED`` with :meth:`from_pending`)."""

    thread_id: str
    interrupts: tuple[InterruptRecord, ...] = ()
    last_interrupted_run_id: str | None = None

    @classmethod
    def from_pending(cls, thread_id: str, run_id: str, interrupts: Iterable[Any]) -> ThreadRecord:
        """A ledger holding just the interrupts of one interrupted run, all still open."""
        records = tuple(InterruptRecord(interrupt=_wire(i), run_id=run_id) for i in interrupts)
        return cls(thread_id, records, run_id if records else None)

    @property
    def pending(self) -> list[InterruptRecord]:
        """Open interrupts of the most recent interrupted run, in the order they were raised."""
        return [
            r for r in self.interrupts if r.status == "pending" and r.run_id == self.last_interrupted_run_id
        ]

    def find(self, interrupt_id: str) -> InterruptRecord | None:
        for record in self.interrupts:
            if record.id == interrupt_id:
                return record
        return None


# ------------------------------------------------------------------------------------------
# producer side
# ------------------------------------------------------------------------------------------


def tool_approval_interrupt(
    interrupt_id: str,
    tool_call_id: str,
    message: str,
    *,
    expires_at: str | None = None,
    response_schema: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An ``Interrupt`` asking a person to approve (or edit, or deny) one proposed tool call.

    ``reason`` is ``"tool_call"`` and ``toolCallId`` names the call whose START/ARGS/END the
    run already streamed; the resumed run answers it with a ``TOOL_CALL_RESULT`` on that same
    id (spec 1.1 ``basic/patterns/interrupt-resume``). ``expires_at`` is ISO 8601 by convention.
    """
    interrupt: dict[str, Any] = {
        "id": interrupt_id,
        "reason": "tool_call",
        "message": message,
        "toolCallId": tool_call_id,
        "responseSchema": response_schema or APPROVAL_RESPONSE_SCHEMA,
    }
    if expires_at is not None:
        interrupt["expiresAt"] = expires_at
    if metadata:
        interrupt["metadata"] = metadata
    return interrupt


def finish_with_interrupts(
    thread_id: str,
    run_id: str,
    interrupts: Sequence[Any],
    *,
    state: Json,
    messages: Sequence[Any],
    timestamp: int | None = None,
) -> list[Any]:
    """The events that end a run waiting for outside input, in order.

    ``STATE_SNAPSHOT`` and ``MESSAGES_SNAPSHOT`` come first so that a consumer that reloads
    the page, or a stateless producer that resumes from the next input, has everything the
    resumed run needs. (Spec 1.1 ``basic/patterns/interrupt-resume`` requires the interrupted
    run to be closed and the thread's state to carry over to the resuming run; sending the
    snapshots first is this kit's way of meeting that for consumers that reload, not a
    sentence quoted from the spec.) Then ``RUN_FINISHED`` with the interrupt
    outcome. Raises :class:`InterruptSpecError` for an empty list or repeated ids (the schema
    asks for at least one interrupt, each id unique within the run).
    """
    from agentproto.agui import events as ev  # the core models; imported here to keep this light

    items = [_wire(i) for i in interrupts]
    if not items:
        raise InterruptSpecError("An interrupt outcome needs at least one interrupt")
    seen: set[str] = set()
    for item in items:
        if item["id"] in seen:
            raise InterruptSpecError(f"Interrupt id {item['id']!r} is used twice in one run")
        seen.add(item["id"])
    stamp = {} if timestamp is None else {"timestamp": timestamp}
    return [
        ev.StateSnapshotEvent(snapshot=state, **stamp),
        ev.MessagesSnapshotEvent(messages=[_wire(m) for m in messages], **stamp),
        ev.RunFinishedEvent(
            thread_id=thread_id, run_id=run_id, outcome={"type": "interrupt", "interrupts": items}, **stamp
        ),
    ]


# ------------------------------------------------------------------------------------------
# consumer side
# ------------------------------------------------------------------------------------------


def pending_interrupts(run_finished: Any) -> list[dict[str, Any]]:
    """The interrupts a ``RUN_FINISHED`` left open (empty for any other outcome)."""
    event = _wire(run_finished)
    outcome = event.get("outcome") or {}
    if outcome.get("type") != "interrupt":
        return []
    return [dict(i) for i in outcome.get("interrupts", [])]


def resolved(payload: Json = None, *, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A response that answers an interrupt (``status: "resolved"``). A denial is a payload too:
    ``resolved({"approved": False})``."""
    out: dict[str, Any] = {"status": "resolved"}
    if payload is not None:
        out["payload"] = payload
    if metadata:
        out["metadata"] = metadata
    return out


def cancelled(*, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A response that abandons an interrupt (``status: "cancelled"``, sent without a payload,
    which the concept page says "should be omitted" — concepts/interrupts, "Resuming a run")."""
    out: dict[str, Any] = {"status": "cancelled"}
    if metadata:
        out["metadata"] = metadata
    return out


def build_resume(pending: Iterable[Any], responses: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``resume`` list answering every open interrupt, in the order they were raised.

    ``responses`` maps interrupt id → a response (:func:`resolved`, :func:`cancelled`, a
    ``ResumeEntry`` model or a dict with ``status``/``payload``). Every open interrupt needs a
    response and every response needs an open interrupt, because omission is not abandonment
    (spec 1.1 ``basic/patterns/interrupt-resume``). A ``cancelled`` entry is emitted without
    ``payload``, whatever the response carried. Messages match the reference client's
    ``buildResumeArray``.
    """
    open_ids = [str(_interrupt_wire(i)["id"]) for i in pending]
    missing = [i for i in open_ids if i not in responses]
    if missing:
        raise BuildResumeError(
            f"buildResumeArray: missing responses for open interrupts: {_ids(missing)}", missing=missing
        )
    unknown = [i for i in responses if i not in open_ids]
    if unknown:
        raise BuildResumeError(
            f"buildResumeArray: responses reference unknown interrupt ids: {_ids(unknown)}", unknown=unknown
        )
    entries = []
    for interrupt_id in open_ids:
        response = _wire(responses[interrupt_id])
        status = response.get("status", "resolved")
        entry: dict[str, Any] = {"interruptId": interrupt_id, "status": status}
        if status == "resolved" and response.get("payload") is not None:
            entry["payload"] = response["payload"]
        if response.get("metadata"):
            entry["metadata"] = response["metadata"]
        entries.append(entry)
    return entries


def parse_expires_at(value: Any) -> int | None:
    """``expiresAt`` as milliseconds since the epoch, or None if it cannot be read as a date.

    The schema leaves the format open; ISO 8601 is the convention (a trailing ``Z`` and a
    missing offset both mean UTC). Like the reference client, a value that is not a date
    never expires.
    """
    if not isinstance(value, str) or not value:
        return None
    try:
        when = _dt.datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.UTC)
    return int(when.timestamp() * 1000)


def is_expired(interrupt: Any, now_ms: int) -> bool:
    """True if the interrupt has an ``expiresAt`` at or before ``now_ms`` (reference: ``<= now``)."""
    expires = parse_expires_at(_wire(interrupt).get("expiresAt"))
    return expires is not None and expires <= now_ms


def resume_key(thread_id: str, entry: Any) -> str:
    """The idempotency key of one answer: a digest of ``(threadId, interruptId, status, payload)``.

    Two entries with the same key are the same decision — a double click, a retried POST — and
    must not act twice. ``metadata`` is envelope, not answer, so it is not part of the key.
    """
    e = _wire(entry)
    material = _canonical([thread_id, e.get("interruptId"), e.get("status"), e.get("payload")])
    return "resume:" + hashlib.sha256(material.encode()).hexdigest()[:32]


# ------------------------------------------------------------------------------------------
# validation of a resuming input
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResumeNotice:
    """A warning about a run input that the producer proceeds with anyway.

    ``code`` is stable (``resume.unrecognised-entry`` …); ``path`` a JSON Pointer into the run
    input (``/resume/1``); ``interrupt_id`` the id the entry named. ``owner_thread`` is for the
    producer's own log only — it is left out of :meth:`to_json`, because telling a client that an
    id exists on *another* thread would let it probe for other people's interrupts.
    """

    code: str
    message: str
    path: str = ""
    interrupt_id: str | None = None
    owner_thread: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The client-facing shape: ``{code, message, path[, interruptId]}``."""
        out: dict[str, Any] = {"code": self.code, "message": self.message, "path": self.path}
        if self.interrupt_id is not None:
            out["interruptId"] = self.interrupt_id
        return out


@dataclass(frozen=True)
class ResumeAnswer:
    """One pending interrupt and the entry that answers it."""

    interrupt: dict[str, Any]
    entry: dict[str, Any]
    key: str

    @property
    def interrupt_id(self) -> str:
        return str(self.interrupt["id"])

    @property
    def status(self) -> Status:
        status: Status = self.entry["status"]
        return status

    @property
    def payload(self) -> Json:
        return self.entry.get("payload")


@dataclass(frozen=True)
class ResumePlan:
    """What :func:`validate_resume` decided a run input is.

    * ``new`` — an ordinary run: the thread has nothing pending and the input resumes nothing.
    * ``resume`` — ``answers`` settle every pending interrupt of ``interrupted_run_id``.
    * ``replay`` — every entry repeats a decision already recorded (by run ``replay_of``): the
      caller answers from the record and must not act again.

    ``notices`` lists what was dropped or ignored on the way (the run proceeds without it);
    ``warnings`` is the same as plain sentences.
    """

    kind: Literal["new", "resume", "replay"]
    thread_id: str
    answers: tuple[ResumeAnswer, ...] = ()
    interrupted_run_id: str | None = None
    replay_of: str | None = None
    notices: tuple[ResumeNotice, ...] = field(default=())

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(n.message for n in self.notices)

    def answer_for(self, interrupt_id: str) -> ResumeAnswer | None:
        for answer in self.answers:
            if answer.interrupt_id == interrupt_id:
                return answer
        return None

    @property
    def entries(self) -> list[dict[str, Any]]:
        return [a.entry for a in self.answers]


def _check_payload(interrupt: dict[str, Any], entry: dict[str, Any], notices: list[ResumeNotice]) -> None:
    # The schema carries ``responseSchema`` opaquely ("the protocol does not constrain or
    # validate it", schema.json ``Interrupt.responseSchema``); the concept page lets the agent
    # validate the payload ("the agent may validate … and emit RunError on mismatch",
    # concepts/interrupts, "Contract rules" 6). This kit takes that MAY.
    schema = interrupt.get("responseSchema")
    if schema is None:
        return
    # Loaded here, not at module level, and without the format checkers it would build at
    # import (agentproto._schemas): no server or CLI start pays for a schema nobody sent.
    from agentproto._schemas import jsonschema as load_jsonschema

    jsonschema = load_jsonschema()

    try:
        validator_cls = jsonschema.validators.validator_for(schema)
        validator_cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:  # the producer's bug, not the consumer's
        notices.append(
            ResumeNotice(
                "resume.response-schema-unusable",
                f"Interrupt {interrupt['id']} has an unusable responseSchema "
                f"({exc.message}); payload not validated",
                interrupt_id=str(interrupt["id"]),
            )
        )
        return
    error = jsonschema.exceptions.best_match(validator_cls(schema).iter_errors(entry.get("payload")))
    if error is not None:
        where = "/" + "/".join(str(p) for p in error.absolute_path)
        raise PayloadSchemaError(
            f"Resume payload for interrupt {interrupt['id']} does not match its "
            f"responseSchema: {error.message} (at {where})",
            interruptId=interrupt["id"],
            path=where,
        )


def _without_cancelled_payload(
    entries: list[dict[str, Any]], notices: list[ResumeNotice]
) -> list[dict[str, Any]]:
    """``cancelled`` entries with their payload dropped, with a notice for each one dropped.

    The schema allows a payload on any entry (``ResumeEntry`` constrains ``payload`` only to
    not-null); the concept page says that for ``cancelled`` it "should be omitted"
    (concepts/interrupts, "Resuming a run"). A SHOULD broken by the sender is not grounds for
    refusing the input: the payload is ignored — an abandoned interrupt answers nothing — and
    the run proceeds with a warning. Dropping it before anything else also keeps the
    idempotency key of a repeated cancel equal to the recorded one.
    """
    out = []
    for index, entry in enumerate(entries):
        if entry.get("status") == "cancelled" and entry.get("payload") is not None:
            entry = {k: v for k, v in entry.items() if k != "payload"}
            notices.append(
                ResumeNotice(
                    "resume.cancelled-payload-ignored",
                    f"Resume entry for interrupt {entry.get('interruptId')} is cancelled but "
                    f"carries a payload; the payload was ignored (a cancelled interrupt is "
                    f"abandoned, not answered)",
                    path=f"/resume/{index}/payload",
                    interrupt_id=str(entry.get("interruptId")),
                )
            )
        out.append(entry)
    return out


def validate_resume(
    thread: ThreadRecord,
    run_input: Any,
    now_ms: int,
    *,
    owner_of: Callable[[str], str | None] | None = None,
    strict: bool = False,
) -> ResumePlan:
    """Check ``run_input`` against the thread's interrupts; return what kind of run it asks for.

    ``thread`` is the ledger of the thread the input names; ``now_ms`` judges ``expiresAt``;
    ``owner_of`` (optional) finds the thread an unrecognised interrupt id belongs to.

    **Producer side** (``strict=False``, the default; the server). An entry naming no interrupt
    open on this thread is dropped and the plan carries a :class:`ResumeNotice`: "the run SHOULD
    proceed without the entry, and the producer SHOULD surface a warning" (spec 1.1
    ``basic/patterns/interrupt-resume``, "Resuming") — every producer, stateful or not. A dropped
    entry never acts, so exactly-once holds. **Consumer side** (``strict=True``): the same entry
    breaks a MUST ("Each entry's ``interruptId`` MUST name an interrupt from the run being
    continued", same section) and raises. Both sides refuse an open interrupt left uncovered
    (the consumer MUST; a producer "MAY reject the input before the run starts" — we do), an
    expired one resolved, a payload off its ``responseSchema`` and two entries for one id.
    """
    data = _wire(run_input)
    thread_id = _check_same_thread(thread, data.get("threadId"))
    if data.get("resume") is None:
        _check_nothing_pending(thread)
        return ResumePlan("new", thread_id)

    notices: list[ResumeNotice] = []
    entries = _without_cancelled_payload([_wire(e) for e in data["resume"] or []], notices)
    _check_no_duplicates(entries)
    triage = _EntryTriage(thread, owner_of, strict, notices)
    for index, entry in enumerate(entries):
        triage.sort(index, entry)
    answers = triage.answers
    if triage.replays and not answers:
        # All usable entries repeat recorded decisions: idempotent replay of run `replay_of`.
        last = triage.replays[-1][1]
        return ResumePlan(
            "replay",
            thread_id,
            replay_of=last.settled_by,
            interrupted_run_id=last.run_id,
            notices=tuple(notices),
        )
    triage.drop_mixed_replays()

    _check_all_covered(thread, answers)
    if not answers:  # `resume: []` (or only ignored entries) on a thread with nothing open
        return ResumePlan("new", thread_id, notices=tuple(notices))
    for answer in answers:
        _check_answer(answer, now_ms, notices)
    return ResumePlan(
        "resume",
        thread_id,
        answers=tuple(answers),
        interrupted_run_id=thread.last_interrupted_run_id,
        notices=tuple(notices),
    )


def _check_same_thread(thread: ThreadRecord, thread_id: Any) -> str:
    """The input's ``threadId``, which must be the ledger's."""
    if thread_id != thread.thread_id:
        raise ThreadMismatchError(
            f"Run input is for thread {thread_id}, but the interrupts checked belong to "
            f"thread {thread.thread_id}",
            threadId=thread_id,
            expected=thread.thread_id,
        )
    return thread.thread_id


def _check_nothing_pending(thread: ThreadRecord) -> None:
    """An input without ``resume`` is a new run only on a thread with nothing open."""
    pending_ids = [r.id for r in thread.pending]
    if pending_ids:
        raise ResumeRequiredError(
            f"Thread {thread.thread_id} has {len(pending_ids)} pending interrupt(s) "
            f"({_ids(pending_ids)}); new input must carry resume entries answering them",
            pendingInterruptIds=pending_ids,
        )


def _check_no_duplicates(entries: list[dict[str, Any]]) -> None:
    """Two entries for one interrupt are ambiguous (spec prose, not a schema rule)."""
    counts: dict[str, int] = {}
    for entry in entries:
        counts[entry["interruptId"]] = counts.get(entry["interruptId"], 0) + 1
    repeated = [i for i, n in counts.items() if n > 1]
    if repeated:
        raise DuplicateEntryError(
            f"Resume answers interrupt(s) more than once: {_ids(repeated)}", interruptIds=repeated
        )


def _check_all_covered(thread: ThreadRecord, answers: list[ResumeAnswer]) -> None:
    """Every pending interrupt has an answer: omission is not abandonment."""
    answered = {a.interrupt_id for a in answers}
    uncovered = [r.id for r in thread.pending if r.id not in answered]
    if uncovered:
        raise UncoveredInterruptError(
            f"Thread has {len(uncovered)} pending interrupt(s) not addressed by resume: {_ids(uncovered)}",
            pendingInterruptIds=uncovered,
        )


def _check_answer(answer: ResumeAnswer, now_ms: int, notices: list[ResumeNotice]) -> None:
    """A known status; nothing resolved once expired (an expired interrupt can still be
    cancelled, spec 1.1); a resolved payload on its ``responseSchema``."""
    if answer.status == "cancelled":
        return
    if answer.status != "resolved":
        raise ResumeError(
            f"Resume entry for interrupt {answer.interrupt_id} has unknown status {answer.status!r}",
            interruptId=answer.interrupt_id,
        )
    if is_expired(answer.interrupt, now_ms):
        raise InterruptExpiredError(
            f"Interrupt {answer.interrupt_id} expired at {answer.interrupt['expiresAt']}",
            interruptId=answer.interrupt_id,
            expiresAt=answer.interrupt["expiresAt"],
        )
    _check_payload(answer.interrupt, answer.entry, notices)


@dataclass
class _EntryTriage:
    """Sorts resume entries: an answer to a pending interrupt, a repeat of a recorded answer,
    or an entry this thread cannot use — dropped with a notice, or refused when ``strict``."""

    thread: ThreadRecord
    owner_of: Callable[[str], str | None] | None
    strict: bool
    notices: list[ResumeNotice]
    answers: list[ResumeAnswer] = field(default_factory=list)
    replays: list[tuple[int, InterruptRecord]] = field(default_factory=list)

    def sort(self, index: int, entry: dict[str, Any]) -> None:
        thread, thread_id = self.thread, self.thread.thread_id
        record = thread.find(entry["interruptId"])
        if record is None:
            self._unrecognised(index, entry["interruptId"])
        elif record.status == "pending" and record.run_id == thread.last_interrupted_run_id:
            self.answers.append(ResumeAnswer(record.interrupt, entry, resume_key(thread_id, entry)))
        elif record.decision is not None and resume_key(thread_id, record.decision) == resume_key(
            thread_id, entry
        ):
            self.replays.append((index, record))
        elif record.run_id != thread.last_interrupted_run_id:
            self._stale(index, record)
        else:
            self._already_settled(index, record)

    def drop_mixed_replays(self) -> None:
        """Repeats mixed with new answers: the repeat is not acted on."""
        for index, record in self.replays:
            self._refuse_or_drop(
                StaleInterruptError(
                    f"Resume mixes new answers with interrupt(s) already settled: {record.id}",
                    interruptIds=[record.id],
                ),
                index,
                record.id,
                "resume.already-settled",
                f"it was already settled by run {record.settled_by}",
            )

    def _unrecognised(self, index: int, interrupt_id: str) -> None:
        thread_id = self.thread.thread_id
        owner = self.owner_of(interrupt_id) if self.owner_of else None
        elsewhere = owner is not None and owner != thread_id
        if self.strict and elsewhere:
            raise ThreadMismatchError(
                f"Interrupt {interrupt_id} belongs to thread {owner}, not to thread "
                f"{thread_id}; a resume must stay on the interrupted thread",
                interruptId=interrupt_id,
                threadId=thread_id,
                owner=owner,
            )
        pending_ids = [r.id for r in self.thread.pending]
        self._refuse_or_drop(
            UnknownInterruptError(
                f"Resume references unknown interrupt id(s): {interrupt_id} "
                f"(open on thread {thread_id}: {_ids(pending_ids) or 'none'})",
                interruptId=interrupt_id,
                pendingInterruptIds=pending_ids,
            ),
            index,
            interrupt_id,
            "resume.unrecognised-entry",
            f"thread {thread_id} never raised it",  # the same words whether or not the id
            owner if elsewhere else None,  # exists on another thread (see ResumeNotice)
        )

    def _stale(self, index: int, record: InterruptRecord) -> None:
        last = self.thread.last_interrupted_run_id
        self._refuse_or_drop(
            StaleInterruptError(
                f"Interrupt {record.id} belongs to run {record.run_id}, not to the most "
                f"recent interrupted run {last}",
                interruptId=record.id,
                runId=record.run_id,
                expectedRunId=last,
            ),
            index,
            record.id,
            "resume.stale-entry",
            f"it belongs to run {record.run_id}, not to the most recent interrupted run {last or '(none)'}",
        )

    def _already_settled(self, index: int, record: InterruptRecord) -> None:
        self._refuse_or_drop(
            ResumeConflictError(
                f"Interrupt {record.id} was already {record.status} by run {record.settled_by}; "
                f"a different answer cannot replace it",
                interruptId=record.id,
                settledBy=record.settled_by,
            ),
            index,
            record.id,
            "resume.already-settled",
            f"it was already {record.status} by run {record.settled_by}; a different answer "
            f"cannot replace it",
        )

    def _refuse_or_drop(
        self, error: ResumeError, index: int, interrupt_id: str, code: str, why: str, owner: str | None = None
    ) -> None:
        """Strict: raise ``error``. Otherwise drop the entry with a notice (spec "Resuming")."""
        if self.strict:
            raise error
        self.notices.append(
            ResumeNotice(
                code,
                f"Ignored resume entry for interrupt {interrupt_id}: {why}",
                path=f"/resume/{index}",
                interrupt_id=interrupt_id,
                owner_thread=owner,
            )
        )
