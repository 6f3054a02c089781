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
  acted on, to be answered from the record, never acted on twice). Every violation is a
  :class:`ResumeError` subclass with a stable ``code`` and an HTTP status, raised *before* the
  run starts, which is when the spec wants an uncovering or expired resume rejected.

The rules, and where each comes from (the seed lists eight; the spec is the authority):

====================================  ====================================  ====================
rule                                  source                                error
====================================  ====================================  ====================
resume on the same thread             spec "Resuming": same threadId        ThreadMismatchError
ids from the latest interrupted run   spec: "MUST name an interrupt from    UnknownInterruptError
                                      the run being continued"              StaleInterruptError
one entry per interrupt               spec: "one ResumeEntry per            DuplicateEntryError
                                      interrupt answered"
every pending interrupt covered       spec: "MUST cover every interrupt…    UncoveredInterruptError
                                      Omission is not abandonment"
pending interrupts need ``resume``    seed rule 4; spec: a producer MUST    ResumeRequiredError
                                      NOT continue past an open interrupt
replay is idempotent                  seed rule 5 (duplicate clicks)        → ``replay`` plan;
                                                                            a *different* answer:
                                                                            ResumeConflictError
payload matches ``responseSchema``    seed rule 6 (jsonschema)              PayloadSchemaError
no resolving after ``expiresAt``,     spec: expired ⇒ cannot be answered,   InterruptExpiredError
but cancelling is allowed             "can still be — and must be —
                                      abandoned" (the reference client
                                      wrongly refuses the cancel too)
``cancelled`` carries no payload      spec "Interrupts", schema             CancelledWithPayloadError
denial is a payload                   spec: ``{"approved": false}`` is an   (nothing to refuse)
                                      answer, not a status
====================================  ====================================  ====================

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

from agentproto.agui.errors import AGUIError

__all__ = [
    # records and plans
    "InterruptRecord",
    "ThreadRecord",
    "ResumeAnswer",
    "ResumePlan",
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
    # errors
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
# errors
# ------------------------------------------------------------------------------------------


class ResumeError(AGUIError):
    """A resume (or a new input) that the interrupt contract forbids.

    ``code`` is stable (``resume.incomplete`` …) and doubles as the ``RUN_ERROR.code`` when the
    refusal has to travel in-stream; ``http_status`` is what a server answers when it can
    still refuse before opening the stream. ``details`` holds the ids involved.
    """

    rule = "resume.invalid"
    http_status = 409

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.details = details

    @property
    def code(self) -> str:
        return self.rule

    def to_json(self) -> dict[str, Any]:
        """The JSON body of the HTTP error: ``{"error": {"code", "message", …details}}``."""
        return {"error": {"code": self.code, "message": self.message, **self.details}}


class BuildResumeError(ResumeError):
    """The consumer's answers do not match the open interrupts one-for-one."""

    rule = "resume.build"
    http_status = 400


class ThreadMismatchError(ResumeError):
    """The resume names an interrupt that belongs to another thread."""

    rule = "resume.wrong-thread"


class UnknownInterruptError(ResumeError):
    """The resume names an interrupt this thread never raised."""

    rule = "resume.unknown-interrupt"


class StaleInterruptError(ResumeError):
    """The resume names an interrupt of an earlier run, not of the most recent interrupted one."""

    rule = "resume.stale-interrupt"


class DuplicateEntryError(ResumeError):
    """Two resume entries answer the same interrupt."""

    rule = "resume.duplicate-entry"
    http_status = 422


class UncoveredInterruptError(ResumeError):
    """Some pending interrupt has no entry: omission is not abandonment."""

    rule = "resume.incomplete"


class ResumeRequiredError(ResumeError):
    """New input arrived on a thread with pending interrupts but carried no ``resume``."""

    rule = "resume.required"


class ResumeConflictError(ResumeError):
    """An interrupt already answered is answered again, differently."""

    rule = "resume.conflict"


class PayloadSchemaError(ResumeError):
    """A ``resolved`` payload does not match the interrupt's ``responseSchema``."""

    rule = "resume.payload-invalid"
    http_status = 422


class InterruptExpiredError(ResumeError):
    """A ``resolved`` entry answers an interrupt past its ``expiresAt`` (cancelling is allowed)."""

    rule = "resume.expired"


class CancelledWithPayloadError(ResumeError):
    """A ``cancelled`` entry carries a payload; abandoning an interrupt answers nothing."""

    rule = "resume.cancelled-with-payload"
    http_status = 422


class InterruptSpecError(AGUIError):
    """A producer tried to build an interrupt outcome the schema forbids (no interrupts,
    duplicate ids)."""

    rule = "interrupt.invalid"


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
    """A response that abandons an interrupt (``status: "cancelled"``, never a payload)."""
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
    """

    kind: Literal["new", "resume", "replay"]
    thread_id: str
    answers: tuple[ResumeAnswer, ...] = ()
    interrupted_run_id: str | None = None
    replay_of: str | None = None
    warnings: tuple[str, ...] = field(default=())

    def answer_for(self, interrupt_id: str) -> ResumeAnswer | None:
        for answer in self.answers:
            if answer.interrupt_id == interrupt_id:
                return answer
        return None

    @property
    def entries(self) -> list[dict[str, Any]]:
        return [a.entry for a in self.answers]


def _check_payload(interrupt: dict[str, Any], entry: dict[str, Any], warnings: list[str]) -> None:
    schema = interrupt.get("responseSchema")
    if schema is None:
        return
    # Imported here, not at module level: importing jsonschema costs over a second (its
    # format checkers build parsers at import), which every server process and CLI start
    # would otherwise pay even when no interrupt carries a schema.
    import jsonschema
    import jsonschema.exceptions

    try:
        validator_cls = jsonschema.validators.validator_for(schema)
        validator_cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:  # the producer's bug, not the consumer's
        warnings.append(
            f"Interrupt {interrupt['id']} has an unusable responseSchema "
            f"({exc.message}); payload not validated"
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


def validate_resume(
    thread: ThreadRecord,
    run_input: Any,
    now_ms: int,
    *,
    owner_of: Callable[[str], str | None] | None = None,
    strict: bool = True,
) -> ResumePlan:
    """Check ``run_input`` against the thread's interrupts; return what kind of run it asks for.

    ``thread`` is the ledger of the thread the input names; ``now_ms`` judges ``expiresAt``;
    ``owner_of`` (optional) finds the thread an unknown interrupt id belongs to, for a precise
    wrong-thread error. With ``strict=False`` an entry naming an interrupt nobody raised is
    dropped with a warning, as the spec suggests a *stateless* producer do; a gatekeeper that
    knows the thread (``strict=True``, the default) refuses it instead.

    Raises a :class:`ResumeError` subclass for every rule in the table of the module docstring.
    """
    data = _wire(run_input)
    thread_id = data.get("threadId")
    if thread_id != thread.thread_id:
        raise ThreadMismatchError(
            f"Run input is for thread {thread_id}, but the interrupts checked belong to "
            f"thread {thread.thread_id}",
            threadId=thread_id,
            expected=thread.thread_id,
        )

    entries = [_wire(e) for e in (data.get("resume") or [])]
    pending = thread.pending
    pending_ids = [r.id for r in pending]
    warnings: list[str] = []

    if "resume" not in data or data.get("resume") is None:
        if pending:
            raise ResumeRequiredError(
                f"Thread {thread_id} has {len(pending)} pending interrupt(s) "
                f"({_ids(pending_ids)}); new input must carry resume entries answering them",
                pendingInterruptIds=pending_ids,
            )
        return ResumePlan("new", thread_id)

    counts: dict[str, int] = {}
    for entry in entries:
        counts[entry["interruptId"]] = counts.get(entry["interruptId"], 0) + 1
    repeated = [i for i, n in counts.items() if n > 1]
    if repeated:
        raise DuplicateEntryError(
            f"Resume answers interrupt(s) more than once: {_ids(repeated)}", interruptIds=repeated
        )

    # Classify every entry: an answer to a pending interrupt, or a repeat of a recorded one.
    answers: list[ResumeAnswer] = []
    replays: list[InterruptRecord] = []
    for entry in entries:
        interrupt_id = entry["interruptId"]
        record = thread.find(interrupt_id)
        if record is None:
            owner = owner_of(interrupt_id) if owner_of else None
            if owner is not None and owner != thread_id:
                raise ThreadMismatchError(
                    f"Interrupt {interrupt_id} belongs to thread {owner}, not to thread "
                    f"{thread_id}; a resume must stay on the interrupted thread",
                    interruptId=interrupt_id,
                    threadId=thread_id,
                    owner=owner,
                )
            if strict:
                raise UnknownInterruptError(
                    f"Resume references unknown interrupt id(s): {interrupt_id} "
                    f"(open on thread {thread_id}: {_ids(pending_ids) or 'none'})",
                    interruptId=interrupt_id,
                    pendingInterruptIds=pending_ids,
                )
            warnings.append(f"Ignored resume entry for unknown interrupt {interrupt_id}")
            continue
        if record.status == "pending" and record.run_id == thread.last_interrupted_run_id:
            answers.append(ResumeAnswer(record.interrupt, entry, resume_key(thread_id, entry)))
            continue
        if record.decision is not None and resume_key(thread_id, record.decision) == resume_key(
            thread_id, entry
        ):
            replays.append(record)
            continue
        if record.run_id != thread.last_interrupted_run_id:
            raise StaleInterruptError(
                f"Interrupt {interrupt_id} belongs to run {record.run_id}, not to the most "
                f"recent interrupted run {thread.last_interrupted_run_id}",
                interruptId=interrupt_id,
                runId=record.run_id,
                expectedRunId=thread.last_interrupted_run_id,
            )
        raise ResumeConflictError(
            f"Interrupt {interrupt_id} was already {record.status} by run {record.settled_by}; "
            f"a different answer cannot replace it",
            interruptId=interrupt_id,
            settledBy=record.settled_by,
        )

    if replays and not answers:
        # All entries repeat recorded decisions: idempotent replay of run `replay_of`.
        return ResumePlan(
            "replay",
            thread_id,
            replay_of=replays[-1].settled_by,
            interrupted_run_id=replays[-1].run_id,
            warnings=tuple(warnings),
        )
    if replays:
        stale = [r.id for r in replays]
        raise StaleInterruptError(
            f"Resume mixes new answers with interrupt(s) already settled: {_ids(stale)}", interruptIds=stale
        )

    answered = {a.interrupt_id for a in answers}
    uncovered = [i for i in pending_ids if i not in answered]
    if uncovered:
        raise UncoveredInterruptError(
            f"Thread has {len(uncovered)} pending interrupt(s) not addressed by resume: {_ids(uncovered)}",
            pendingInterruptIds=uncovered,
        )
    if not answers:  # `resume: []` (or only ignored entries) on a thread with nothing open
        return ResumePlan("new", thread_id, warnings=tuple(warnings))

    for answer in answers:
        if answer.status == "cancelled":
            if "payload" in answer.entry and answer.entry["payload"] is not None:
                raise CancelledWithPayloadError(
                    f"Resume entry for interrupt {answer.interrupt_id} is cancelled but carries "
                    f"a payload; a cancelled interrupt is abandoned, not answered",
                    interruptId=answer.interrupt_id,
                )
            continue  # an expired interrupt can still be cancelled (spec 1.1)
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
        _check_payload(answer.interrupt, answer.entry, warnings)

    return ResumePlan(
        "resume",
        thread_id,
        answers=tuple(answers),
        interrupted_run_id=thread.last_interrupted_run_id,
        warnings=tuple(warnings),
    )
