"""What an agent declares it can do before a run (spec 1.1 ``basic/capabilities``).

The declaration is the schema's ``AgentCapabilities``, here :class:`AGUICapabilities` (A2A has
an ``AgentCapabilities`` of its own, :class:`agentproto.a2a.AgentCapabilities`): eleven OPTIONAL
groups, each an object of OPTIONAL fields, under the wire names the 1.1 schema gives them
(``multiAgent``, ``humanInTheLoop``, ``documentationUrl`` …). Every capability object is closed
in the schema except two open ones, ``identity.metadata`` and ``custom``, which a consumer MUST
preserve whole ("``identity.metadata`` and ``custom``").

What the page obliges, and where it lives here:

* **Omitted means undeclared, not unsupported** ("Declaring"): :func:`declared` answers
  ``True``/``False`` only for what was said, ``None`` for what was not.
* **Unrecognised is not malformed** ("Error Handling"): a group or field this version does not
  define MUST NOT make a consumer reject the declaration; whether to keep or drop it is the
  implementation's business. *The kit's choice*: :func:`parse_capabilities` drops it, with a
  :class:`~agentproto.agui.errors.PipelineWarning` naming its JSON path, as enforcement does for
  events. A known field holding a value the schema rejects (a string where a boolean belongs,
  ``null``, a negative limit) is malformed: the consumer MUST NOT use the declaration, so
  :func:`parse_capabilities` raises :class:`MalformedCapabilitiesError`. Nothing is coerced.
* **A rejected or absent declaration MUST NOT prevent a run** ("Error Handling"):
  :func:`read_capabilities` never raises; it falls back to the empty declaration, which is how a
  consumer treats an agent that declared nothing.
* **Declarations are informative; the stream is authoritative** ("Declaring"): a consumer MUST
  NOT reject a stream for an event the declaration did not anticipate. :func:`audit_declaration`
  lists such contradictions as complaints about the producer, never as errors.
* **Retrieval is not defined** ("Retrieval"): no binding carries a capabilities exchange, but
  whatever means an implementation uses MUST carry this shape. *The kit's choice*: an in-process
  agent object may have a ``capabilities()`` method (the TypeScript client's agent has an optional
  ``getCapabilities()``); :func:`capabilities_of` reads it through :func:`read_capabilities`.

The 1.1 schema spells the subagent list ``subagents`` and its record ``SubagentInfo``; the
official SDKs' main branches spell them ``subAgents``/``SubAgentInfo``. This module follows the
schema, so a ``subAgents`` member is unrecognised material: dropped with a warning, not fatal.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from agentproto.agui.errors import AGUIError, PipelineWarning
from agentproto.agui.types import Metadata, Tool, _Model

__all__ = [
    "AGUICapabilities",
    "IdentityCapabilities",
    "TransportCapabilities",
    "ToolsCapabilities",
    "OutputCapabilities",
    "StateCapabilities",
    "MultiAgentCapabilities",
    "SubagentInfo",
    "ReasoningCapabilities",
    "MultimodalCapabilities",
    "MultimodalInputCapabilities",
    "MultimodalOutputCapabilities",
    "ExecutionCapabilities",
    "HumanInTheLoopCapabilities",
    "ParsedCapabilities",
    "MalformedCapabilitiesError",
    "parse_capabilities",
    "read_capabilities",
    "capabilities_of",
    "declared",
    "dump_capabilities",
    "audit_declaration",
]

_MAX_SAFE = 2**53 - 1  # the schema bounds the execution limits to JSON's safe integers
_SPEC = "spec basic/capabilities, 'Error Handling'"


class SubagentInfo(_Model):
    """A subagent the agent may invoke: a definition, not an invocation (no ``subagentRunId``)."""

    name: str
    description: str | None = None


class IdentityCapabilities(_Model):
    name: str | None = None
    type: str | None = None
    description: str | None = None
    version: str | None = None
    provider: str | None = None
    documentation_url: str | None = None
    metadata: Metadata | None = None  # open by key: preserved whole


class TransportCapabilities(_Model):
    streaming: bool | None = None
    websocket: bool | None = None
    http_binary: bool | None = None
    push_notifications: bool | None = None  # no standard binding honours it
    resumable: bool | None = None  # no standard binding honours it


class ToolsCapabilities(_Model):
    supported: bool | None = None
    items: list[Tool] | None = None  # the agent's own tools, never RunAgentInput.tools
    parallel_calls: bool | None = None
    client_provided: bool | None = None


class OutputCapabilities(_Model):
    structured_output: bool | None = None
    supported_mime_types: list[str] | None = None


class StateCapabilities(_Model):
    snapshots: bool | None = None
    deltas: bool | None = None
    memory: bool | None = None
    persistent_state: bool | None = None


class MultiAgentCapabilities(_Model):
    supported: bool | None = None
    delegation: bool | None = None
    handoffs: bool | None = None
    subagents: list[SubagentInfo] | None = None


class ReasoningCapabilities(_Model):
    supported: bool | None = None
    streaming: bool | None = None
    encrypted: bool | None = None


class MultimodalInputCapabilities(_Model):
    image: bool | None = None
    audio: bool | None = None
    video: bool | None = None
    pdf: bool | None = None
    file: bool | None = None


class MultimodalOutputCapabilities(_Model):
    image: bool | None = None
    audio: bool | None = None


class MultimodalCapabilities(_Model):
    input: MultimodalInputCapabilities | None = None
    output: MultimodalOutputCapabilities | None = None


class ExecutionCapabilities(_Model):
    code_execution: bool | None = None
    sandboxed: bool | None = None
    max_iterations: int | None = Field(default=None, ge=0, le=_MAX_SAFE)
    max_execution_time: int | None = Field(default=None, ge=0, le=_MAX_SAFE)  # milliseconds


class HumanInTheLoopCapabilities(_Model):
    supported: bool | None = None
    approvals: bool | None = None
    interventions: bool | None = None
    feedback: bool | None = None
    interrupts: bool | None = None
    approve_with_edits: bool | None = None


class AGUICapabilities(_Model):
    """The whole declaration, the schema's ``AgentCapabilities``. ``AGUICapabilities()`` is the
    empty one: nothing declared."""

    identity: IdentityCapabilities | None = None
    transport: TransportCapabilities | None = None
    tools: ToolsCapabilities | None = None
    output: OutputCapabilities | None = None
    state: StateCapabilities | None = None
    multi_agent: MultiAgentCapabilities | None = None
    reasoning: ReasoningCapabilities | None = None
    multimodal: MultimodalCapabilities | None = None
    execution: ExecutionCapabilities | None = None
    human_in_the_loop: HumanInTheLoopCapabilities | None = None
    custom: dict[str, Any] | None = None  # open by key: preserved whole


class MalformedCapabilitiesError(AGUIError):
    """A known capability field holds a value the schema rejects: the declaration is unusable.

    ``path`` is a JSON Pointer into the declaration, ``reason`` the complaint in words;
    ``warnings`` holds what was dropped as unrecognised before the fault was found.
    """

    rule = "capabilities.invalid-value"

    def __init__(self, message: str, *, path: str = "", reason: str = "", rule: str | None = None) -> None:
        super().__init__(message, rule=rule)
        self.path = path
        self.reason = reason
        self.warnings: list[PipelineWarning] = []


@dataclass(slots=True)
class ParsedCapabilities:
    """A validated declaration and the warnings for what was dropped on the way."""

    capabilities: AGUICapabilities
    warnings: list[PipelineWarning] = field(default_factory=list)


# -- parsing ----------------------------------------------------------------------------------


def _pointer(path: str, token: str | int) -> str:
    return f"{path}/{str(token).replace('~', '~0').replace('/', '~1')}"


def _malformed(
    path: str, reason: str, rule: str = "capabilities.invalid-value"
) -> MalformedCapabilitiesError:
    where = path or "the top level"
    message = (
        f"capabilities declaration rejected at {where}: {reason}. A consumer MUST NOT use a "
        f"declaration it cannot validate ({_SPEC})"
    )
    return MalformedCapabilitiesError(message, path=path, reason=reason, rule=rule)


def _fields(cls: type[BaseModel]) -> dict[str, tuple[str, Any]]:
    """Wire name → (python name, annotation) for a closed capability model."""
    return {(info.alias or name): (name, info.annotation) for name, info in cls.model_fields.items()}


def _model_in(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The closed model a field holds (and whether as a list), or ``(None, False)`` for a leaf."""
    for arg in typing.get_args(annotation) or (annotation,):
        if typing.get_origin(arg) is list:
            inner = typing.get_args(arg)[0]
            if isinstance(inner, type) and issubclass(inner, _Model):
                return inner, True
        elif isinstance(arg, type) and issubclass(arg, _Model):
            return arg, False
    return None, False


def _drop_unrecognised(value: Any, cls: type[BaseModel], path: str, warnings: list[PipelineWarning]) -> Any:
    """A copy of ``value`` without the members ``cls`` does not name; nulls are refused."""
    if not isinstance(value, dict):
        return value  # strict validation names the type that was expected
    known = _fields(cls)
    by_python = {name: wire for wire, (name, _) in known.items()}
    out: dict[str, Any] = {}
    for key, item in value.items():
        here = _pointer(path, key)
        if key not in known:
            hint = f" (the wire name is {by_python[key]!r})" if key in by_python else ""
            warnings.append(
                PipelineWarning(None, here, f"unrecognised capability member {key!r} dropped{hint}")
            )
            continue
        if item is None:
            raise _malformed(here, "null is not a value here; omit the field to leave it undeclared")
        model, many = _model_in(known[key][1])
        if model is not None and many and isinstance(item, list):
            item = [_drop_unrecognised(x, model, _pointer(here, i), warnings) for i, x in enumerate(item)]
        elif model is not None and not many:
            item = _drop_unrecognised(item, model, here, warnings)
        out[key] = item
    return out


def _decode(obj: Any) -> Any:
    if isinstance(obj, (str, bytes, bytearray)):
        try:
            return json.loads(obj)
        except (ValueError, RecursionError) as exc:
            raise _malformed("", f"not valid JSON ({exc})", "capabilities.unreadable") from None
    return obj


def _first_error(exc: ValidationError) -> tuple[str, str, str]:
    err = exc.errors()[0]
    path = "".join(_pointer("", part) for part in err["loc"] if not str(part).startswith("function-"))
    rule = "capabilities.missing-field" if err["type"] == "missing" else "capabilities.invalid-value"
    return path, err["msg"], rule


def parse_capabilities(obj: Mapping[str, Any] | str | bytes | Any) -> ParsedCapabilities:
    """Validate a declaration (a dict or JSON text): unrecognised members dropped with a warning,
    a malformed known value raised as :class:`MalformedCapabilitiesError`."""
    data = _decode(obj)
    if not isinstance(data, dict):
        kind = "array" if isinstance(data, list) else type(data).__name__ if data is not None else "null"
        raise _malformed("", f"expected an object, received {kind}", "capabilities.not-an-object")
    warnings: list[PipelineWarning] = []
    try:
        kept = _drop_unrecognised(data, AGUICapabilities, "", warnings)
        caps = AGUICapabilities.model_validate(kept, strict=True, by_alias=True, by_name=False)
    except MalformedCapabilitiesError as exc:
        exc.warnings = warnings
        raise
    except ValidationError as exc:
        path, reason, rule = _first_error(exc)
        malformed = _malformed(path, reason, rule)
        malformed.warnings = warnings
        raise malformed from None
    return ParsedCapabilities(caps, warnings)


def read_capabilities(obj: Any) -> tuple[AGUICapabilities, list[PipelineWarning]]:
    """What a consumer acts on: the declaration, or the empty one if it is absent or rejected.

    Never raises: a rejected declaration becomes one warning, and the run proceeds as for an
    agent that declared nothing.
    """
    if obj is None:
        return AGUICapabilities(), []
    if isinstance(obj, AGUICapabilities):
        return obj, []
    try:
        parsed = parse_capabilities(obj)
    except MalformedCapabilitiesError as exc:
        fallback = PipelineWarning(None, exc.path, f"{exc.message}; proceeding as if nothing was declared")
        return AGUICapabilities(), [*exc.warnings, fallback]
    return parsed.capabilities, parsed.warnings


def capabilities_of(agent: Any) -> tuple[AGUICapabilities, list[PipelineWarning]]:
    """The kit's in-process retrieval: ``agent.capabilities()`` if the agent has that method,
    read with :func:`read_capabilities`; an agent without one declared nothing."""
    method = getattr(agent, "capabilities", None)
    if not callable(method):
        return AGUICapabilities(), []
    try:
        declaration = method()
    except Exception as exc:  # a failed retrieval must not prevent the run either
        why = f"the agent's capabilities() raised {type(exc).__name__}: {exc}"
        return AGUICapabilities(), [
            PipelineWarning(None, "", f"{why}; proceeding as if nothing was declared")
        ]
    return read_capabilities(declaration)


def dump_capabilities(caps: AGUICapabilities) -> dict[str, Any]:
    """The declaration as JSON-ready wire data: camelCase, undeclared fields left out."""
    return caps.model_dump(mode="json", by_alias=True)


# -- reading a declaration --------------------------------------------------------------------


def declared(caps: AGUICapabilities, path: str) -> Any:
    """The value declared at a dotted wire path (``"humanInTheLoop.interrupts"``), or ``None``
    when nothing was declared there — which is *not* ``False``.

    Raises ``KeyError`` for a path the schema does not name, so a typo is not read as "undeclared".

    >>> caps = parse_capabilities({"reasoning": {"supported": False}}).capabilities
    >>> declared(caps, "reasoning.supported"), declared(caps, "reasoning.streaming")
    (False, None)
    """
    node: Any = caps
    cls: type[BaseModel] | None = AGUICapabilities
    for step in path.split("."):
        known = _fields(cls) if cls is not None else {}
        if step not in known:
            wire = {name: w for w, (name, _) in known.items()}.get(step)
            hint = f" (the wire name is {wire!r})" if wire else ""
            raise KeyError(f"{path!r}: the capabilities schema names no {step!r} here{hint}")
        name, annotation = known[step]
        node = getattr(node, name) if node is not None else None
        model, many = _model_in(annotation)
        cls = model if not many else None
    return node


# -- the stream is authoritative -----------------------------------------------------------------

#: (wire path of a boolean, the event types that contradict it being ``false``).
_CONTRADICTIONS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "reasoning.supported",
        frozenset(
            {
                "REASONING_START",
                "REASONING_MESSAGE_START",
                "REASONING_MESSAGE_CONTENT",
                "REASONING_MESSAGE_CHUNK",
                "REASONING_ENCRYPTED_VALUE",
            }
        ),
    ),
    ("state.snapshots", frozenset({"STATE_SNAPSHOT"})),
    ("state.deltas", frozenset({"STATE_DELTA"})),
    ("tools.supported", frozenset({"TOOL_CALL_START", "TOOL_CALL_CHUNK"})),
    ("multiAgent.supported", frozenset({"SUBAGENT_STARTED"})),
)


def _is_interrupt(event: Mapping[str, Any]) -> bool:
    outcome = event.get("outcome")
    return (
        event.get("type") == "RUN_FINISHED"
        and isinstance(outcome, dict)
        and outcome.get("type") == "interrupt"
    )


def _wire(event: Any) -> Mapping[str, Any]:
    if isinstance(event, BaseModel):
        return event.model_dump(mode="json", by_alias=True)
    return event if isinstance(event, Mapping) else {}


def audit_declaration(caps: AGUICapabilities, events: Iterable[Any]) -> list[PipelineWarning]:
    """Where a stream did what its declaration said it would not: one complaint per field, at the
    first event that contradicts it. Only an explicit ``false`` can be contradicted; a declared
    capability that goes unexercised is no complaint. Never a reason to reject the stream."""
    checks = [(p, kinds) for p, kinds in _CONTRADICTIONS if declared(caps, p) is False]
    interrupts_off = declared(caps, "humanInTheLoop.interrupts") is False
    found: dict[str, PipelineWarning] = {}
    for index, raw in enumerate(events):
        event = _wire(raw)
        kind = event.get("type")
        hits = [p for p, kinds in checks if kind in kinds]
        if interrupts_off and _is_interrupt(event):
            hits.append("humanInTheLoop.interrupts")
        for p in hits:
            if p not in found:
                pointer = "/" + p.replace(".", "/")
                message = (
                    f"{kind} contradicts the declaration {p}: false; a complaint about the "
                    f"producer, not a reason to reject the stream (spec basic/capabilities, 'Declaring')"
                )
                found[p] = PipelineWarning(index, pointer, message)
    order = [p for p, _ in _CONTRADICTIONS] + ["humanInTheLoop.interrupts"]
    return [found[p] for p in order if p in found]
