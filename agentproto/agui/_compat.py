"""The compatibility boundary: retired 0.x shapes and tolerated nulls become 1.x (spec ``basic/versioning``).

Runs *before* enforcement, which would otherwise treat retired material as unknown and strip
it (spec ``basic/versioning``, "Retired shapes"):

* ``THINKING_*`` events become their ``REASONING_*`` replacements, with a warning. The retired
  events carried no ids, so ids are minted from an injected id factory — and the warning says
  so, because an id the producer never wrote can later surface in a verification error.
* The whole-optional ``null`` fields that 1.0 clients have always tolerated become absent
  fields, warned once per field per run. Anywhere else an optional ``null`` stays fatal.
* Outgoing, :func:`upgrade_binary_parts` turns the retired 0.x ``binary`` content part of a
  message the application hands the client into the typed media part that replaced it, for
  every peer (the current protocol does not describe ``binary``, so sending it as it is
  would hand the peer unrecognised material).

This mirrors the reference TypeScript client's ``CompatibilityBoundary``. Protocol version
*declarations* (``RUN_STARTED.protocolVersion``) are judged by :func:`version_warning`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from agentproto.agui.errors import PipelineWarning
from agentproto.agui.events import PROTOCOL_VERSION
from agentproto.clock import IdFactory

__all__ = [
    "CompatibilityBoundary",
    "RETIRED_EVENTS",
    "version_warning",
    "parse_protocol_version",
    "upgrade_binary_parts",
]

#: Retired event type → the type it translates to.
RETIRED_EVENTS: dict[str, str] = {
    "THINKING_START": "REASONING_START",
    "THINKING_END": "REASONING_END",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
}

#: Whole optional fields that 1.0 clients have always read as absent when sent as ``null``
#: (the reference client's compatibility table). Anywhere else, an optional ``null`` is fatal.
_TOLERATED_NULLS: dict[str, tuple[str, ...]] = {
    "*": ("rawEvent",),
    "RUN_STARTED": ("parentRunId", "input"),
    "RUN_FINISHED": ("result", "outcome"),
    "RUN_ERROR": ("usage",),
    "SUBAGENT_FINISHED": ("result",),
    "TOOL_CALL_START": ("parentMessageId",),
    "TOOL_CALL_CHUNK": ("parentMessageId",),
    "TOOL_CALL_RESULT": ("role",),
}
_TOLERATED_OUTCOME_NULLS = ("pendingToolCallIds",)
_TOLERATED_USAGE_NULLS = ("provider", "reasoningTokens", "cachedInputTokens", "cacheWriteInputTokens")
_TOLERATED_INPUT_NULLS = ("forwardedProps",)
_TOLERATED_TOOL_NULLS = ("parameters",)
_TOLERATED_RESUME_NULLS = ("payload",)
_MEDIA_PARTS = frozenset({"image", "audio", "video", "document"})


class CompatibilityBoundary:
    """Translates retired 0.x shapes into 1.x before enforcement (always on, like the reference).

    ``THINKING_*`` events carried no ids; the translation takes them from ``ids`` (a
    zero-argument callable, deterministic by default) and says so in a warning, because an
    id the producer never wrote can later surface in a verification error.
    Tolerated optional ``null`` fields become absent, warned once per field per run.
    """

    def __init__(self, ids: Callable[[], str] | None = None) -> None:
        self._ids = ids or IdFactory("thinking")
        self._span: str | None = None
        self._message: str | None = None
        self._noticed: set[str] = set()

    def new_run(self) -> None:
        """A RUN_STARTED went by: tolerated nulls are warned about afresh in each run."""
        self._noticed.clear()

    def translate(
        self, obj: dict[str, Any], index: int | None, warnings: list[PipelineWarning]
    ) -> dict[str, Any]:
        kind = obj.get("type")
        if kind == "RUN_STARTED":
            self.new_run()
        obj = self._nulls(obj, kind, index, warnings)
        if isinstance(kind, str) and kind in RETIRED_EVENTS:
            obj = self._thinking(obj, kind, index, warnings)
        return obj

    # -- nulls ---------------------------------------------------------------------------
    def _drop_nulls(
        self,
        obj: Any,
        keys: tuple[str, ...],
        where: str,
        base: str,
        index: int | None,
        warnings: list[PipelineWarning],
    ) -> Any:
        if not isinstance(obj, dict):
            return obj
        out = None
        for key in keys:
            if key in obj and obj[key] is None:
                if out is None:
                    out = dict(obj)
                del out[key]
                label = f"{where}.{key}"
                if label not in self._noticed:
                    self._noticed.add(label)
                    warnings.append(
                        PipelineWarning(
                            index,
                            f"{base}/{key}",
                            f"{label}: null read as an absent field (compatibility shim for "
                            f"pre-1.0 producers; send no field instead)",
                        )
                    )
        return obj if out is None else out

    def _nulls(
        self, obj: dict[str, Any], kind: Any, index: int | None, warnings: list[PipelineWarning]
    ) -> dict[str, Any]:
        drop = self._drop_nulls
        obj = drop(obj, _TOLERATED_NULLS["*"], "event", "", index, warnings)
        if not isinstance(kind, str):
            return obj
        fields = _TOLERATED_NULLS.get(kind)
        if fields:
            obj = drop(obj, fields, kind, "", index, warnings)
        if kind == "RUN_FINISHED":
            outcome = obj.get("outcome")
            new = drop(outcome, _TOLERATED_OUTCOME_NULLS, "RUN_FINISHED.outcome", "/outcome", index, warnings)
            usage = obj.get("usage")
            new_usage = usage
            if isinstance(usage, list):
                new_usage = [
                    drop(u, _TOLERATED_USAGE_NULLS, "RUN_FINISHED.usage[]", f"/usage/{i}", index, warnings)
                    for i, u in enumerate(usage)
                ]
                if all(a is b for a, b in zip(new_usage, usage)):
                    new_usage = usage
            if new is not outcome or new_usage is not usage:
                obj = dict(obj)
                if new is not outcome:
                    obj["outcome"] = new
                if new_usage is not usage:
                    obj["usage"] = new_usage
        elif kind == "RUN_STARTED" and isinstance(obj.get("input"), dict):
            new_input = self.translate_input(obj["input"], "/input", index, warnings)
            if new_input is not obj["input"]:
                obj = {**obj, "input": new_input}
        elif kind == "MESSAGES_SNAPSHOT" and isinstance(obj.get("messages"), list):
            msgs = self._message_nulls(obj["messages"], "/messages", index, warnings)
            if msgs is not obj["messages"]:
                obj = {**obj, "messages": msgs}
        return obj

    def translate_input(
        self, inp: dict[str, Any], base: str, index: int | None, warnings: list[PipelineWarning]
    ) -> dict[str, Any]:
        """A ``RunAgentInput`` (at ``base`` in its document) with tolerated nulls made absent."""
        drop = self._drop_nulls
        out: dict[str, Any] = drop(inp, _TOLERATED_INPUT_NULLS, "RunAgentInput", base, index, warnings)
        for key, keys, label in (
            ("tools", _TOLERATED_TOOL_NULLS, "Tool"),
            ("resume", _TOLERATED_RESUME_NULLS, "ResumeEntry"),
        ):
            items = out.get(key)
            if isinstance(items, list):
                new = [
                    drop(x, keys, label, f"{base}/{key}/{i}", index, warnings) for i, x in enumerate(items)
                ]
                if any(a is not b for a, b in zip(new, items)):
                    out = {**out, key: new}
        msgs = out.get("messages")
        if isinstance(msgs, list):
            new_msgs = self._message_nulls(msgs, f"{base}/messages", index, warnings)
            if new_msgs is not msgs:
                out = {**out, "messages": new_msgs}
        return out

    def _message_nulls(
        self, msgs: list[Any], base: str, index: int | None, warnings: list[PipelineWarning]
    ) -> list[Any]:
        changed = False
        out: list[Any] = []
        for i, msg in enumerate(msgs):
            content = msg.get("content") if isinstance(msg, dict) else None
            if isinstance(content, list):
                parts = [
                    self._drop_nulls(
                        p,
                        ("metadata",),
                        f"{p.get('type')} input content",
                        f"{base}/{i}/content/{j}",
                        index,
                        warnings,
                    )
                    if isinstance(p, dict) and p.get("type") in _MEDIA_PARTS
                    else p
                    for j, p in enumerate(content)
                ]
                if any(a is not b for a, b in zip(parts, content)):
                    msg = {**msg, "content": parts}
                    changed = True
            out.append(msg)
        return out if changed else msgs

    # -- THINKING_* ----------------------------------------------------------------------
    def _mint(
        self, what: str, established: str | None, index: int | None, warnings: list[PipelineWarning]
    ) -> str:
        if established is not None:
            return established
        minted = self._ids()
        warnings.append(
            PipelineWarning(
                index,
                "/messageId",
                f"minted messageId {minted!r} for {what}: no THINKING opener preceded it, so "
                f"the id is this consumer's invention, not the producer's",
            )
        )
        return minted

    def _thinking(
        self, obj: dict[str, Any], kind: str, index: int | None, warnings: list[PipelineWarning]
    ) -> dict[str, Any]:
        new_kind = RETIRED_EVENTS[kind]
        warnings.append(
            PipelineWarning(
                index,
                "/type",
                f"retired event {kind} translated to {new_kind} (spec basic/versioning, 'Retired shapes')",
            )
        )
        out = dict(obj)
        out["type"] = new_kind
        if kind == "THINKING_START":
            self._span = self._ids()
            out["messageId"] = self._span
            if "title" in out:
                title = out.pop("title")
                warnings.append(
                    PipelineWarning(
                        index,
                        "/title",
                        f"THINKING_START.title {title!r} dropped: REASONING_START has no title, "
                        f"so the span's label is lost",
                    )
                )
        elif kind == "THINKING_TEXT_MESSAGE_START":
            self._message = self._ids()
            out["messageId"] = self._message
            out["role"] = "reasoning"
        elif kind == "THINKING_TEXT_MESSAGE_CONTENT":
            out["messageId"] = self._mint(kind, self._message, index, warnings)
        elif kind == "THINKING_TEXT_MESSAGE_END":
            out["messageId"] = self._mint(kind, self._message, index, warnings)
            self._message = None
        else:  # THINKING_END
            out["messageId"] = self._mint(kind, self._span, index, warnings)
            self._span = None
        return out


# -- outgoing: the retired ``binary`` content part --------------------------------------------

_BINARY_SOURCES = (("data", "data"), ("url", "url"), ("id", "file"))  # legacy field, source type


def _media_kind(mime_type: str) -> str:
    for kind in ("image", "audio", "video"):
        if mime_type.startswith(kind + "/"):
            return kind
    return "document"


def _upgrade_binary(part: dict[str, Any]) -> tuple[dict[str, Any], list[str]] | None:
    """One legacy ``{"type": "binary", mimeType, data|url|id, filename?}`` part as a media part.

    ``None`` when the part is not a readable legacy part (no ``mimeType`` string, no source
    field): a translation must not repair a malformed value, so it is left for the peer's
    enforcement to judge. ``lost`` names the legacy fields the typed part has no place for.
    """
    mime_type = part.get("mimeType")
    found = [(key, kind) for key, kind in _BINARY_SOURCES if isinstance(part.get(key), str)]
    if not isinstance(mime_type, str) or not mime_type or not found:
        return None
    key, kind = found[0]
    upgraded = {
        "type": _media_kind(mime_type),
        "source": {"type": kind, "value": part[key], "mimeType": mime_type},
    }
    lost = [f"{other} {part[other]!r}" for other, _ in found[1:]]
    if "filename" in part:
        lost.append(f"filename {part['filename']!r}")
    return upgraded, lost


def upgrade_binary_parts(messages: Any, base: str = "/messages") -> tuple[Any, list[PipelineWarning]]:
    """Outgoing input messages with every retired ``binary`` part upgraded to a media part.

    A ``binary`` part becomes an ``image``/``audio``/``video`` part by its MIME type (anything
    else a ``document``), with a ``data``, ``url`` or — for the legacy ``id`` handle — ``file``
    source carrying the same value and ``mimeType``, as spec ``basic/versioning`` ("Retired
    shapes") asks: translate a retired shape rather than drop it, and warn when the
    translation loses something (a ``filename``, a second source). Pure: ``messages`` is not
    changed, and is returned as it is when nothing needed upgrading.
    """
    if not isinstance(messages, list):
        return messages, []
    warnings: list[PipelineWarning] = []
    out: list[Any] = []
    changed = False
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") == "binary" for p in content
        ):
            parts: list[Any] = []
            for j, part in enumerate(content):
                done = (
                    _upgrade_binary(part) if isinstance(part, dict) and part.get("type") == "binary" else None
                )
                if done is None:
                    parts.append(part)
                    continue
                parts.append(done[0])
                if done[1]:
                    warnings.append(
                        PipelineWarning(
                            None,
                            f"{base}/{i}/content/{j}",
                            f"retired binary content part upgraded to a {done[0]['type']} part; lost: "
                            f"{', '.join(done[1])}. Send typed media parts instead (spec "
                            f"basic/versioning, 'Retired shapes')",
                        )
                    )
            if parts != content:
                message = {**message, "content": parts}
                changed = True
        out.append(message)
    return (out if changed else messages), warnings


_VERSION_RE = re.compile(r"^(\d+)\.(\d+)$")


def parse_protocol_version(version: str) -> tuple[int, int] | None:
    """``"1.10"`` → ``(1, 10)``; None for a declaration that is not ``MAJOR.MINOR``.

    Spec basic/versioning, "Version negotiation": the value is "the segment a frozen version
    lives under, ``MAJOR.MINOR``, compared numerically component by component"; anything else
    (``"v1"``, ``"latest"``, ``"1"``, ``"1.0.0"``) is a declaration a party cannot interpret.
    """
    m = _VERSION_RE.match(version)
    return None if m is None else (int(m.group(1)), int(m.group(2)))


#: This package's own (MAJOR, MINOR).
_OURS = parse_protocol_version(PROTOCOL_VERSION) or (1, 0)


def version_warning(version: str, index: int | None) -> PipelineWarning | None:
    """Spec basic/versioning: a newer or uninterpretable declaration proceeds, with a warning.

    ``None`` when ``version`` is one this package speaks (``PROTOCOL_VERSION`` or older).
    """
    declared = parse_protocol_version(version)
    if declared is None:
        return PipelineWarning(
            index,
            "/protocolVersion",
            f"cannot interpret protocolVersion {version!r} (expected "
            f"MAJOR.MINOR); proceeding as if it were newer than "
            f"{PROTOCOL_VERSION}",
        )
    if declared > _OURS:
        return PipelineWarning(
            index,
            "/protocolVersion",
            f"producer speaks protocol {version}; this consumer speaks "
            f"{PROTOCOL_VERSION}. Unrecognised material will be stripped",
        )
    return None
