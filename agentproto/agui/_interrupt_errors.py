"""The refusals of the interrupt contract (spec 1.1 ``basic/patterns/interrupt-resume``).

Each :class:`ResumeError` has a stable ``rule`` (its ``code``, also the ``RUN_ERROR.code`` when
a refusal travels in-stream) and the HTTP status a server answers before opening the stream.
:mod:`agentproto.agui.interrupts` raises them and re-exports them; import them from there.
"""

from __future__ import annotations

from typing import Any

from agentproto.agui.errors import AGUIError

__all__ = [
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
    """The ledger checked belongs to another thread than the input, or (``strict=True``) the
    resume names an interrupt of another thread."""

    rule = "resume.wrong-thread"


class UnknownInterruptError(ResumeError):
    """The resume names an interrupt this thread never raised (``strict=True`` only: a producer
    drops such an entry with a :class:`ResumeNotice`)."""

    rule = "resume.unknown-interrupt"


class StaleInterruptError(ResumeError):
    """The resume names an interrupt of an earlier run, not of the most recent interrupted one
    (``strict=True`` only)."""

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
    """An interrupt already answered is answered again, differently (``strict=True`` only)."""

    rule = "resume.conflict"


class PayloadSchemaError(ResumeError):
    """A ``resolved`` payload does not match the interrupt's ``responseSchema``."""

    rule = "resume.payload-invalid"
    http_status = 422


class InterruptExpiredError(ResumeError):
    """A ``resolved`` entry answers an interrupt past its ``expiresAt`` (cancelling is allowed)."""

    rule = "resume.expired"


class CancelledWithPayloadError(ResumeError):
    """A ``cancelled`` entry carries a payload.

    No longer raised: the concept page only says the payload "should be omitted", so
    :func:`validate_resume` ignores it with a :class:`ResumeNotice`. Kept so code that catches
    it still imports."""

    rule = "resume.cancelled-with-payload"
    http_status = 422


class InterruptSpecError(AGUIError):
    """A producer tried to build an interrupt outcome the schema forbids (no interrupts,
    duplicate ids)."""

    rule = "interrupt.invalid"
