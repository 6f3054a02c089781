"""Errors and warnings of the AG-UI consumer pipeline.

The AG-UI processing model (spec 1.1, ``basic/processing``) draws one line through everything
a consumer can meet: *unrecognised material is not an error, a malformed known value is*. This
module turns that line into types.

* Fatal problems are exceptions, all subclasses of :class:`AGUIError` (itself under the
  library's root :class:`agentproto.errors.AgentProtoError`), so a caller can catch
  "anything AG-UI" or one precise stage::

      AGUIError
      ├── DecodeError          bytes → text → JSON failed (SSE framing, UTF-8, JSON syntax)
      ├── MalformedEventError  a known field holds a value the schema rejects
      │   └── PatchError       … in particular a structurally broken JSON Patch
      ├── ChunkError           a *_CHUNK event cannot be expanded
      ├── VerificationError    the event sequence breaks a lifecycle rule
      ├── GuardError           an optional guard rail refused an update (off by default)
      │   └── ResyncNeeded     a version gap: the consumer must ask for a snapshot
      └── UIIntentError        a front end refused a UI intent carried in a CUSTOM event
          ├── IntentTooLargeError, IntentEnvelopeError, UnknownComponentError
          └── UnsafeContentError, IntentPropsError

* Recoverable problems are *data*: a :class:`PipelineWarning` names the event number and the
  JSON path it concerns. The spec asks consumers to SHOULD-warn (unknown event types, stripped
  fields, patches that do not apply) and to carry on, so warnings are collected, never raised.

Every exception carries a stable ``rule`` id (``text.content-unopened``, ``schema.invalid-value``)
that the CLI, the notebooks and the conformance fixtures key on, plus the zero-based ``index`` of
the offending event when it is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentproto.errors import AgentProtoError
from agentproto.sse import SSEDecodeError

__all__ = [
    "AGUIError",
    "DecodeError",
    "MalformedEventError",
    "PatchError",
    "ChunkError",
    "VerificationError",
    "GuardError",
    "ResyncNeeded",
    "UIIntentError",
    "IntentTooLargeError",
    "IntentEnvelopeError",
    "UnknownComponentError",
    "UnsafeContentError",
    "IntentPropsError",
    "PipelineWarning",
]


class AGUIError(AgentProtoError):
    """Base class of every fatal AG-UI problem.

    ``rule`` is a stable identifier for the kind of problem; ``index`` is the zero-based
    number of the event (in arrival order) that triggered it, or ``None`` when the problem
    is not tied to one event (for example a truncated stream).
    """

    rule: str = "agui.error"

    def __init__(
        self,
        message: str,
        *,
        rule: str | None = None,
        index: int | None = None,
        event_type: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if rule is not None:
            self.rule = rule
        self.index = index
        self.event_type = event_type

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        """The ``{event, type, rule, message}`` object the lint report prints."""
        return {"event": self.index, "type": self.event_type, "rule": self.rule, "message": self.message}


class DecodeError(AGUIError, SSEDecodeError):
    """The bytes could not be turned into event objects.

    Raised for invalid UTF-8, a frame whose ``data`` is not JSON, a JSON value that is not
    an object, or a stream that ends in the middle of a frame. Nothing of the stream that
    decoded before the bad frame is lost: the decoder has already returned it.
    """

    rule = "decode.error"


class MalformedEventError(AGUIError):
    """A field the protocol describes carries a value the schema rejects.

    The processing model (spec ``basic/processing``, "The rule") makes this fatal: the
    consumer MUST fail the run rather than repair, coerce or ignore the value. ``path`` is a
    JSON Pointer into the event (``/outcome/interrupts/0/id``) and ``reason`` the schema's
    complaint in words.
    """

    rule = "schema.invalid-value"

    def __init__(
        self,
        message: str,
        *,
        path: str = "",
        reason: str = "",
        rule: str | None = None,
        index: int | None = None,
        event_type: str | None = None,
    ) -> None:
        super().__init__(message, rule=rule, index=index, event_type=event_type)
        self.path = path
        self.reason = reason
        #: Warnings the parser had already produced for this event (stripped fields, …).
        self.warnings: list[PipelineWarning] = []


class PatchError(MalformedEventError):
    """A JSON Patch document is malformed (not an array, an op missing a member, a bad pointer).

    Fatal per spec ``basic/patterns/snapshots`` ("Malformed patches"), unlike a well-formed
    patch that merely fails to apply, which keeps the prior state and warns.
    """

    rule = "patch.malformed"


class ChunkError(AGUIError):
    """A ``*_CHUNK`` event cannot be expanded into start/content/end events.

    The messages are those of the reference TypeScript client (``chunks/transform.ts``),
    e.g. ``First TEXT_MESSAGE_CHUNK must have a messageId``.
    """

    rule = "chunk.error"


class VerificationError(AGUIError):
    """The event sequence breaks a rule of the run lifecycle.

    ``message`` is, character for character, the string the reference TypeScript client's
    ``verifyEvents`` raises for the same violation, so that a learner can search for it.
    """

    rule = "verify.error"

    def __init__(self, rule: str, index: int | None, event_type: str | None, message: str) -> None:
        super().__init__(message, rule=rule, index=index, event_type=event_type)


class GuardError(AGUIError):
    """An optional guard rail (path allow-list, version check) refused an update.

    Guard rails are not protocol rules; they are the application protecting itself, which
    the notebooks teach. They are off unless a caller turns them on.
    """

    rule = "guard.refused"


class ResyncNeeded(GuardError):
    """The state version jumped or went backwards: ask the producer for a fresh snapshot."""

    rule = "guard.resync-needed"

    def __init__(
        self,
        message: str,
        *,
        expected: int | None = None,
        got: int | None = None,
        index: int | None = None,
        event_type: str | None = None,
    ) -> None:
        super().__init__(message, index=index, event_type=event_type)
        self.expected = expected
        self.got = got


class UIIntentError(AGUIError):
    """A UI intent (a ``CUSTOM`` event asking the front end to draw a component) was refused.

    The protocol does not look inside ``CUSTOM`` values, so this is the front end's own
    boundary (:func:`agentproto.agui.ui_intent.validate_ui_intent`). ``rule`` says which check
    refused it (stable ids ``intent.*``); ``path`` is a JSON Pointer into the intent value
    (``/props/label``; ``""`` for the intent as a whole) and ``component`` the component the
    intent named, when it got that far.
    """

    rule = "intent.invalid"

    def __init__(
        self, message: str, *, path: str = "", component: str | None = None, index: int | None = None
    ) -> None:
        super().__init__(message, index=index, event_type="CUSTOM")
        self.path = path
        self.component = component


class IntentTooLargeError(UIIntentError):
    """The intent is larger than the front end accepts."""

    rule = "intent.too-large"


class IntentEnvelopeError(UIIntentError):
    """The ``CUSTOM`` value is not ``{component, props[, version]}``."""

    rule = "intent.envelope"


class UnknownComponentError(UIIntentError):
    """The intent names a component that is not on the allow-list."""

    rule = "intent.unknown-component"


class UnsafeContentError(UIIntentError):
    """A prop (or a prop's key) carries markup, a script URL or an inline event handler."""

    rule = "intent.unsafe-content"


class IntentPropsError(UIIntentError):
    """The props do not match the component's JSON Schema."""

    rule = "intent.invalid-props"


@dataclass(frozen=True, slots=True)
class PipelineWarning:
    """A recoverable problem: the pipeline carried on, but you should know.

    ``event`` is the zero-based arrival number of the event concerned (``None`` for the
    stream as a whole), ``path`` a JSON Pointer into that event (``""`` for the event
    itself), ``message`` a sentence for a person.

    This is the one shape of a warning everywhere — the parser's, the reducer's, a
    :class:`~agentproto.agui.pipeline.LintReport`'s and a client ``RunResult``'s. It reads
    as an attribute or by key (``w.message``, ``w["message"]``, ``dict(w)``), and
    :meth:`to_dict` is its JSON form (``agentproto lint --json``).

    >>> w = PipelineWarning(3, "/delta/0", "patch did not apply")
    >>> (w.message == w["message"], dict(w) == w.to_dict())
    (True, True)
    """

    event: int | None
    path: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        """``{"event", "path", "message"}``: the JSON form."""
        return {"event": self.event, "path": self.path, "message": self.message}

    def keys(self) -> tuple[str, ...]:
        """The field names, so that ``dict(warning)`` works."""
        return _WARNING_KEYS

    def __getitem__(self, key: str) -> Any:
        if key not in _WARNING_KEYS:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        """``warning[key]``, or ``default`` for a key a warning does not have."""
        return getattr(self, key) if key in _WARNING_KEYS else default


_WARNING_KEYS = ("event", "path", "message")


#: Alias kept for readers who know the name from the design notes (not in ``__all__``).
Warning_ = PipelineWarning
