"""Downgrading a 1.1 stream for a peer known to be older (spec ``basic/versioning``, "Downgrading").

A party that *knows* its peer is older — the version declared in-band or configured — MAY
translate what it sends into a shape the peer understands; one that does not know MUST treat
the peer as current ("Version negotiation"). This module is that translation for the one
construct 1.1 adds to 1.0 (spec ``changelog``, "Changes in 1.1"): ``encryptedValueType``, next
to every ``encryptedValue`` (the ``REASONING_ENCRYPTED_VALUE`` event, messages, tool calls).

The rules it follows, all from ``basic/versioning`` unless named otherwise:

* it removes or reshapes and never invents; it does not change the outcome, alter ids or
  reorder events (a downgrade selected by version MUST be a pure transformation);
* stripping ``encryptedValueType`` is treated as **lossy** — the kit's reading of two rules:
  ``events/reasoning`` says a path that cannot preserve ``encryptedValue`` is losing content and
  MUST warn, and that the type is handled as the value is; a lossy downgrade MUST warn
  (``basic/versioning``). So every strip is warned about, naming the shape and what to upgrade.
  The warnings MAY be silenced (``silence=True``) and are not by default;
* it does not repair a malformed value on the way past: a non-string ``encryptedValueType``, or
  one sent without ``encryptedValue`` (which a producer MUST NOT send), raises
  :class:`DowngradeError` instead of being stripped into something a 1.0 peer would accept;
* ``RUN_STARTED.protocolVersion`` is restated as ``"1.0"``: a translator declares what it
  emits, not what the original producer spoke. A stream that declared nothing is left so.

For a peer older than 1.0 the era shims of :mod:`agentproto.agui._eras` run after this one
(``subagentRunId`` stripped silently, ``SUBAGENT_*`` dropped with warnings), and the version
declaration is removed, since the 0.x line predates the field. Sans-I/O and pure: inputs are
never changed, and members that needed no change are shared, not copied.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentproto.agui._eras import downgrade_event, parse_dotted_version, shims_for
from agentproto.agui._eras import downgrade_input as era_downgrade_input
from agentproto.agui.errors import MalformedEventError, PipelineWarning
from agentproto.agui.events import PROTOCOL_VERSION

__all__ = ["Downgraded", "DowngradeError", "downgrade_stream", "downgrade_input"]

_TYPE = "encryptedValueType"
_VALUE = "encryptedValue"


class DowngradeError(MalformedEventError):
    """A value the downgrade would have to repair to pass it on: refused, not hidden."""

    rule = "downgrade.malformed-value"


@dataclass(slots=True)
class Downgraded:
    """A downgraded stream: the events, the lossy-downgrade warnings, what the result speaks."""

    events: list[dict[str, Any]]
    warnings: list[PipelineWarning] = field(default_factory=list)
    emits: str = PROTOCOL_VERSION
    silenced: int = 0  # warnings withheld because the caller asked (``silence=True``)


def _is_older(peer: str | None, than: tuple[int, int]) -> bool:
    if peer is None:  # unknown age: behave as though the peer were current
        return False
    version = parse_dotted_version(peer)  # ValueError for a version it cannot read
    width = max(len(version), 2)
    return version + (0,) * (width - len(version)) < than + (0,) * (width - 2)


class _Stripper:
    """Removes ``encryptedValueType`` from one document, warning per strip, refusing defects."""

    def __init__(self, index: int | None, event_type: str | None, peer: str) -> None:
        self.index, self.event_type, self.peer = index, event_type, peer
        self.warnings: list[PipelineWarning] = []

    def holder(self, obj: Any, path: str) -> Any:
        if not isinstance(obj, dict) or _TYPE not in obj:
            return obj
        kind = obj[_TYPE]
        where = f"{path}/{_TYPE}"
        if not isinstance(kind, str):
            self._refuse(where, f"{_TYPE} is {type(kind).__name__}, not a string")
        if _VALUE not in obj:
            self._refuse(where, f"{_TYPE} {kind!r} sent without encryptedValue (a producer MUST NOT)")
        self.warnings.append(
            PipelineWarning(
                self.index,
                where,
                f"lossy downgrade for an AG-UI {self.peer} peer: {_TYPE} {kind!r} dropped "
                f"({self.peer} has no such field), so the peer will return the encrypted value "
                f"without its type. Upgrade the peer to AG-UI 1.1 to keep it (spec "
                f"basic/versioning, 'Downgrading')",
            )
        )
        return {k: v for k, v in obj.items() if k != _TYPE}

    def _refuse(self, path: str, why: str) -> None:
        raise DowngradeError(
            f"cannot downgrade: {why}; a downgrade MUST NOT repair a malformed value "
            f"(spec basic/versioning, 'Downgrading')",
            path=path,
            reason=why,
            index=self.index,
            event_type=self.event_type,
        )

    def message(self, message: Any, path: str) -> Any:
        out = self.holder(message, path)
        calls = out.get("toolCalls") if isinstance(out, dict) else None
        if isinstance(calls, list):
            new = [self.holder(c, f"{path}/toolCalls/{j}") for j, c in enumerate(calls)]
            if any(a is not b for a, b in zip(new, calls)):
                out = {**out, "toolCalls": new}
        return out

    def messages(self, messages: Any, path: str) -> Any:
        if not isinstance(messages, list):
            return messages
        new = [self.message(m, f"{path}/{i}") for i, m in enumerate(messages)]
        return messages if all(a is b for a, b in zip(new, messages)) else new


def _replace(obj: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    return obj if obj.get(key) is value else {**obj, key: value}


def _strip_event(obj: dict[str, Any], strip: _Stripper) -> dict[str, Any]:
    kind = obj.get("type")
    if kind == "REASONING_ENCRYPTED_VALUE":
        return dict(strip.holder(obj, ""))
    if kind == "MESSAGES_SNAPSHOT":
        return _replace(obj, "messages", strip.messages(obj.get("messages"), "/messages"))
    if kind == "RUN_STARTED" and isinstance(obj.get("input"), dict):
        inp = obj["input"]
        return _replace(
            obj, "input", _replace(inp, "messages", strip.messages(inp.get("messages"), "/input/messages"))
        )
    return obj


def _restate_version(obj: dict[str, Any], pre_versioning: bool) -> dict[str, Any]:
    if obj.get("type") != "RUN_STARTED" or "protocolVersion" not in obj:
        return obj
    if pre_versioning:
        return {k: v for k, v in obj.items() if k != "protocolVersion"}
    return {**obj, "protocolVersion": "1.0"}


def downgrade_stream(
    events: Iterable[Mapping[str, Any]], peer_version: str | None, *, silence: bool = False
) -> Downgraded:
    """``events`` (wire dicts) as a peer whose maximum version is ``peer_version`` should get them.

    ``None`` — the peer's age is not known — and any version from 1.1 up return the events as
    they are. ``ValueError`` for a version that cannot be read; :class:`DowngradeError` for a
    malformed value the downgrade would otherwise have repaired.
    """
    if not _is_older(peer_version, (1, 1)):
        return Downgraded([dict(e) for e in events])
    pre_versioning = _is_older(peer_version, (1, 0))
    shims = shims_for(peer_version)
    out: list[dict[str, Any]] = []
    warnings: list[PipelineWarning] = []
    for index, event in enumerate(events):
        strip = _Stripper(index, str(event.get("type")), str(peer_version))
        obj = _restate_version(_strip_event(dict(event), strip), pre_versioning)
        warnings.extend(strip.warnings)
        kept = downgrade_event(obj, shims, index, warnings)
        if kept is not None:
            out.append(kept)
    emits = str(peer_version) if pre_versioning else "1.0"
    if silence:
        return Downgraded(out, [], emits, len(warnings))
    return Downgraded(out, warnings, emits)


def downgrade_input(
    body: Mapping[str, Any], peer_version: str | None, *, silence: bool = False
) -> tuple[dict[str, Any], list[PipelineWarning]]:
    """A ``RunAgentInput`` wire dict for a producer whose maximum version is ``peer_version``.

    The same rules as :func:`downgrade_stream`: ``encryptedValueType`` stripped from every
    message and tool call with a warning (``event`` is ``None``, ``path`` points into the
    input), ``protocolVersion`` restated as ``"1.0"`` (removed for a 0.x peer, with the era
    shims of :func:`agentproto.agui._eras.downgrade_input` applied). Pure.
    """
    if not _is_older(peer_version, (1, 1)):
        return dict(body), []
    strip = _Stripper(None, None, str(peer_version))
    out = _replace(dict(body), "messages", strip.messages(body.get("messages"), "/messages"))
    warnings = list(strip.warnings)
    if "protocolVersion" in out:
        out = {**out, "protocolVersion": "1.0"}
    shims = shims_for(peer_version)
    if shims:
        out, era_warnings = era_downgrade_input(out, shims)
        warnings.extend(era_warnings)
    return out, ([] if silence else warnings)
