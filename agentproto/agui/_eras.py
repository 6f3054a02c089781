"""Era shims: what a consumer changes for a peer pinned to an older protocol (spec ``basic/versioning``).

The spec lets a party that *knows* its peer is older — "declared in-band, or configured" — select
a downgrade on that basis, and forbids guessing: a peer of unknown age is treated as current
(``basic/versioning``, "Version negotiation"). A downgrade removes or reshapes, never invents;
a *lossy* one MUST warn, naming what was lost and what to upgrade ("Downgrading"); and one
selected by version MUST be a pure transformation: it does not change the outcome, alter ids
or reorder events.

This module is the sans-I/O half: pure functions on wire dicts, selected by the peer's
configured maximum version and called by the client adapter
(:class:`agentproto.agui.client.AGUIClient`, ``max_protocol_version=``). The thresholds and
what each shim does are those of the reference TypeScript client's era middlewares, which it
inserts when the agent's ``maxVersion`` is at or below a version
(``compareVersions(maxVersion, "0.0.39") <= 0``):

==========  ================================================================================
peer ≤      what changes
==========  ================================================================================
``0.0.57``  ``BackwardCompatibility_0_0_57`` (pre-subagent agents). Outgoing: the top-level
            ``subagentRunId`` of every input message is stripped (lossless, silent).
            Incoming: ``SUBAGENT_STARTED``/``FINISHED``/``ERROR`` are dropped, each with a
            warning (a lifecycle event is lost); ``subagentRunId`` is stripped from every
            other event, from ``MESSAGES_SNAPSHOT`` and ``RUN_STARTED.input`` messages and
            from ``RUN_FINISHED`` interrupts, so subagent work flattens into the parent thread.
``0.0.39``  ``BackwardCompatibility_0_0_39``. Outgoing only: ``parentRunId`` is removed, and
            message content given as a list of parts becomes the concatenation of its text
            parts (absent content becomes ``""``, the empty value the old schema requires).
            Parts other than text are lost, so that is warned (the reference is silent; the
            spec's lossy rule is not).
``< 1.0``   Not a reference middleware: the 0.x line predates ``protocolVersion``, so the
            input omits it rather than hand an old parser an unknown member
            (``basic/run-input``, "protocolVersion").
==========  ================================================================================

The shims are cumulative: a peer pinned at 0.0.39 gets every row. The reference's other two
era middlewares need nothing here: ``THINKING_*`` → ``REASONING_*`` (0.0.45) is translated for
every peer by the always-on :class:`~agentproto.agui._compat.CompatibilityBoundary`, and the
0.0.47 one upgrades legacy ``binary`` input parts, which the client does for every peer
(:func:`~agentproto.agui._compat.upgrade_binary_parts`, before these shims run).

One deliberate difference: the reference 0.0.39 shim also turns content that is neither a
string nor a list (``null``, a number) into ``""``. That would repair a malformed value on the
way past, which a downgrade MUST NOT do (``basic/versioning``, "Downgrading"), so such content
is passed through for the enforcement in front of the peer to judge.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentproto.agui.errors import PipelineWarning

__all__ = [
    "EraShim",
    "ERA_SHIMS",
    "EraDowngrade",
    "parse_dotted_version",
    "shims_for",
    "downgrade_input",
    "downgrade_event",
    "flatten_content",
]

_VERSION = re.compile(r"^\d+(\.\d+)*$")


def parse_dotted_version(version: str) -> tuple[int, ...]:
    """``"0.0.39"`` → ``(0, 0, 39)``, ``"1.1"`` → ``(1, 1)``; ``ValueError`` for anything else.

    Not :func:`agentproto.agui._compat.parse_protocol_version`, which reads only the spec's
    ``MAJOR.MINOR`` declaration and answers ``None`` for anything it cannot interpret: a peer's
    *maximum* version here may be an SDK release with three components.

    Both the spec's ``MAJOR.MINOR`` identifiers and the 0.x SDK versions the reference's era
    middlewares are keyed on are accepted, compared numerically component by component
    (``1.10`` is newer than ``1.9``; a missing component counts as 0).
    """
    if not isinstance(version, str) or not _VERSION.match(version):
        raise ValueError(
            f"cannot interpret protocol version {version!r} (expected digits and dots, e.g. '0.0.39')"
        )
    return tuple(int(x) for x in version.split("."))


def _at_most(version: tuple[int, ...], limit: tuple[int, ...]) -> bool:
    width = max(len(version), len(limit))
    return version + (0,) * (width - len(version)) <= limit + (0,) * (width - len(limit))


@dataclass(frozen=True, slots=True)
class EraShim:
    """One era's downgrade: selected when the peer's maximum version is ≤ ``upto``
    (``< upto`` when ``inclusive`` is false)."""

    name: str
    upto: str
    inclusive: bool
    reference: str  # the reference TypeScript middleware it follows ("" if none)
    summary: str

    def applies(self, version: tuple[int, ...]) -> bool:
        limit = parse_dotted_version(self.upto)
        if self.inclusive:
            return _at_most(version, limit)
        return _at_most(version, limit) and not _at_most(limit, version)


#: Every era shim, newest era first (the order they are applied in).
ERA_SHIMS: tuple[EraShim, ...] = (
    EraShim(
        "pre-versioning",
        "1.0",
        False,
        "",
        "omit RunAgentInput.protocolVersion: a 0.x peer predates the field",
    ),
    EraShim(
        "0.0.57",
        "0.0.57",
        True,
        "BackwardCompatibility_0_0_57",
        "strip subagentRunId (input messages, events, snapshots, interrupts); drop SUBAGENT_* "
        "events with a warning",
    ),
    EraShim(
        "0.0.39",
        "0.0.39",
        True,
        "BackwardCompatibility_0_0_39",
        "remove RunAgentInput.parentRunId; flatten message content parts to their text "
        "(warned when anything but text is lost)",
    ),
)


def shims_for(max_protocol_version: str | None) -> tuple[EraShim, ...]:
    """The shims for a peer whose maximum version is ``max_protocol_version``.

    ``None`` (the peer's age is not known) selects none: the spec forbids guessing downward.
    """
    if max_protocol_version is None:
        return ()
    version = parse_dotted_version(max_protocol_version)
    return tuple(s for s in ERA_SHIMS if s.applies(version))


# -- content ------------------------------------------------------------------------------


def _is_text_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)


def flatten_content(content: Any) -> tuple[Any, list[str]]:
    """The 0.0.39 reshaping of one message's ``content``: ``(new content, what was lost)``.

    A list of parts becomes the concatenation of its text parts' ``text`` (no separator, as
    the reference does); anything else is returned as it is. ``lost`` names what did not
    survive: every part other than text (``"image part"``, …), text parts' ids and metadata,
    and the boundaries between several text parts.
    """
    if not isinstance(content, list):
        return content, []
    texts: list[str] = []
    lost: list[str] = []
    for part in content:
        if _is_text_part(part):
            texts.append(part["text"])
            if "id" in part or "metadata" in part:
                lost.append("text part id/metadata")
        else:
            kind = part.get("type") if isinstance(part, dict) else None
            lost.append(f"{kind} part" if isinstance(kind, str) else "malformed part")
    if len(texts) > 1:
        lost.append("boundaries between text parts")
    return "".join(texts), lost


# -- outgoing -----------------------------------------------------------------------------


def _strip_attribution(item: Any) -> Any:
    if isinstance(item, dict) and "subagentRunId" in item:
        return {k: v for k, v in item.items() if k != "subagentRunId"}
    return item


def _strip_list(items: Any) -> Any:
    if not isinstance(items, list):
        return items
    out = [_strip_attribution(x) for x in items]
    return items if all(a is b for a, b in zip(out, items)) else out


def downgrade_input(
    body: Mapping[str, Any], shims: tuple[EraShim, ...]
) -> tuple[dict[str, Any], list[PipelineWarning]]:
    """The ``RunAgentInput`` wire dict as a peer of the shims' era should receive it.

    Pure: ``body`` is not changed, the result shares every member it did not need to change.
    Warnings (``event`` is ``None``, ``path`` a JSON Pointer into the input) name what a
    lossy reshaping lost.
    """
    out = dict(body)
    warnings: list[PipelineWarning] = []
    names = {s.name for s in shims}
    if "pre-versioning" in names:
        out.pop("protocolVersion", None)
    messages = out.get("messages")
    if "0.0.57" in names and isinstance(messages, list):
        messages = _strip_list(messages)
    if "0.0.39" in names:
        out.pop("parentRunId", None)
        if isinstance(messages, list):
            flattened: list[Any] = []
            for i, message in enumerate(messages):
                if isinstance(message, dict) and "content" not in message:
                    message = {**message, "content": ""}  # the empty value the old schema requires
                elif isinstance(message, dict) and isinstance(message["content"], list):
                    text, lost = flatten_content(message["content"])
                    message = {**message, "content": text}
                    if lost:
                        warnings.append(PipelineWarning(None, f"/messages/{i}/content", _flattened(lost)))
                flattened.append(message)
            messages = flattened
    if messages is not out.get("messages"):
        out["messages"] = messages
    return out, warnings


def _flattened(lost: list[str]) -> str:
    # "DROPS non-text parts" is the reference client's phrase for the same loss; said only when
    # a part other than text really was dropped (ids, metadata or boundaries are lesser losses).
    dropped = any(not x.startswith(("text part", "boundaries")) for x in lost)
    what = "; this DROPS non-text parts" if dropped else ""
    return (
        f"content parts flattened to text for a peer pinned to protocol 0.0.39 or older{what}; "
        f"lost: {', '.join(dict.fromkeys(lost))}. Upgrade the agent's AG-UI integration to one "
        f"that accepts content parts (spec basic/versioning, 'Downgrading')"
    )


# -- incoming -----------------------------------------------------------------------------

_SUBAGENT_EVENTS = frozenset({"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"})


def _dropped_lifecycle(kind: str) -> str:
    # The reference shim's console warning, minus its sentence about an environment variable.
    return (
        f"AG-UI is dropping {kind} because the target agent predates subagent support. To "
        f"remove this warning, upgrade your AG-UI integration package."
    )


def downgrade_event(
    obj: dict[str, Any], shims: tuple[EraShim, ...], index: int | None, warnings: list[PipelineWarning]
) -> dict[str, Any] | None:
    """One incoming wire event as the shims' era defines it; ``None`` when it is dropped.

    Runs before the parser, as middleware must (spec ``basic/processing``, "Where middleware
    sits"). Pure: ``obj`` is not changed; warnings for what was dropped go to ``warnings``.
    """
    if not any(s.name == "0.0.57" for s in shims):
        return obj
    kind = obj.get("type")
    if kind in _SUBAGENT_EVENTS:
        warnings.append(PipelineWarning(index, "", _dropped_lifecycle(str(kind))))
        return None
    out: dict[str, Any] = _strip_attribution(obj)
    if kind == "MESSAGES_SNAPSHOT":
        messages = _strip_list(out.get("messages"))
        if messages is not out.get("messages"):
            out = {**out, "messages": messages}
    elif kind == "RUN_STARTED" and isinstance(out.get("input"), dict):
        messages = _strip_list(out["input"].get("messages"))
        if messages is not out["input"].get("messages"):
            out = {**out, "input": {**out["input"], "messages": messages}}
    elif kind == "RUN_FINISHED" and isinstance(out.get("outcome"), dict):
        interrupts = _strip_list(out["outcome"].get("interrupts"))
        if interrupts is not out["outcome"].get("interrupts"):
            out = {**out, "outcome": {**out["outcome"], "interrupts": interrupts}}
    return out


class EraDowngrade:
    """The era shims for one peer, selected once from its maximum version.

    ``max_protocol_version`` is what the application knows (configures) about the peer;
    ``None`` selects nothing. An uninterpretable value raises ``ValueError`` here, at
    configuration time.
    """

    def __init__(self, max_protocol_version: str | None = None) -> None:
        self.max_protocol_version = max_protocol_version
        self.shims = shims_for(max_protocol_version)
        self._events = any(s.name == "0.0.57" for s in self.shims)

    @property
    def active(self) -> bool:
        """True when any shim applies."""
        return bool(self.shims)

    def input(self, body: Mapping[str, Any]) -> tuple[dict[str, Any], list[PipelineWarning]]:
        """:func:`downgrade_input` with this peer's shims."""
        if not self.shims:
            return dict(body), []
        return downgrade_input(body, self.shims)

    def event(
        self, obj: dict[str, Any], index: int | None, warnings: list[PipelineWarning]
    ) -> dict[str, Any] | None:
        """:func:`downgrade_event` with this peer's shims (identity when none touches events)."""
        if not self._events:
            return obj
        return downgrade_event(obj, self.shims, index, warnings)

    def describe(self) -> list[dict[str, str]]:
        """The selected shims as rows (``shim``, ``reference``, ``summary``) for display."""
        return [{"shim": s.name, "reference": s.reference, "summary": s.summary} for s in self.shims]
