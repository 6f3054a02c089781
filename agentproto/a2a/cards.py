"""Check an Agent Card against A2A v1.0 — beyond "does it parse".

:class:`~agentproto.a2a.types.AgentCard` parses leniently, as a ProtoJSON reader must: unknown
fields are ignored (spec §5.7) and REQUIRED lists may be missing because ProtoJSON writers drop
empty ones. That is right for a client reading someone else's card and wrong for an author
checking their own. :func:`check_card` is the author's view: every problem, each with the JSON
path it concerns and what v1.0 expects instead.

>>> [p.path for p in check_card({"name": "x"})][:3]
['description', 'version', 'capabilities']
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agentproto.a2a.types import PROTOCOL_VERSION, AgentCard, AgentInterface

__all__ = ["CardProblem", "check_card", "V03_FIELDS", "KNOWN_BINDINGS", "with_bindings"]

#: Standard ``protocolBinding`` values (spec §5.3); anything else must be a URI.
KNOWN_BINDINGS = frozenset({"JSONRPC", "GRPC", "HTTP+JSON"})

#: Fields of older cards, and what v1.0 uses instead (spec "what's new in v1.0").
V03_FIELDS: dict[str, str] = {
    "url": "the endpoint is supportedInterfaces[].url",
    "preferredTransport": "list supportedInterfaces in order of preference",
    "additionalInterfaces": "every endpoint is a supportedInterfaces entry",
    "protocolVersion": "each supportedInterfaces entry has its own protocolVersion",
    "supportsAuthenticatedExtendedCard": "use capabilities.extendedAgentCard",
    "security": "renamed securityRequirements",
    "authentication": "declare named securitySchemes and reference them in securityRequirements",
}

_MEDIA_TYPE = re.compile(r"^[\w.+-]+/[\w.+*-]+(;.*)?$")
_VERSION = re.compile(r"^\d+\.\d+$")
_GRPC_TARGET = re.compile(r"^(dns:///)?(\[[0-9a-fA-F:]+\]|[\w.-]+):\d+$")


@dataclass(frozen=True)
class CardProblem:
    """One problem: where (a JSON path like ``skills.0.tags``) and what is wrong."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def check_card(data: dict[str, Any] | AgentCard) -> list[CardProblem]:
    """Every way ``data`` falls short of a v1.0 Agent Card (an empty list: it is fine).

    The findings come rule by rule, in this order: fields older versions had, what the lenient
    parser rejects, REQUIRED lists, the interfaces, skill tags and media types, then security
    requirements. All but the parser's read the raw JSON, so they also run on a card that failed
    to parse.
    """
    wire = data.to_wire() if isinstance(data, AgentCard) else data
    if not isinstance(wire, dict):
        return [CardProblem("", "an Agent Card is a JSON object")]
    problems = _old_fields(wire) + _parse_problems(wire)
    problems += _required_lists(wire, problems)
    problems += _interface_problems(_objects(wire.get("supportedInterfaces")))
    skills = _objects(wire.get("skills"))
    problems += _skill_tag_problems(skills)
    problems += _media_type_problems(wire, skills)
    problems += _security_problems(wire, skills)
    return problems


def _old_fields(wire: dict[str, Any]) -> list[CardProblem]:
    """Fields of pre-1.0 cards, each with what v1.0 uses instead."""
    problems = [
        CardProblem(name, f"not an A2A v1.0 field: {instead}")
        for name, instead in V03_FIELDS.items()
        if name in wire
    ]
    capabilities = wire.get("capabilities")
    if isinstance(capabilities, dict) and "stateTransitionHistory" in capabilities:
        problems.append(CardProblem("capabilities.stateTransitionHistory", "removed in v1.0"))
    return problems


def _parse_problems(wire: dict[str, Any]) -> list[CardProblem]:
    """What :meth:`AgentCard.from_wire` rejects, one finding per validation error."""
    try:
        AgentCard.from_wire(wire)
    except ValidationError as exc:
        problems = []
        for e in exc.errors(include_url=False):
            path = ".".join(str(p) for p in e["loc"])
            msg = "is REQUIRED" if e["type"] == "missing" else e["msg"].removeprefix("Value error, ")
            problems.append(CardProblem(path, msg))
        return problems
    return []


def _required_lists(wire: dict[str, Any], found: list[CardProblem]) -> list[CardProblem]:
    """REQUIRED lists that are absent or empty (an absent one the parser already named is not repeated)."""
    problems = []
    for key in ("supportedInterfaces", "defaultInputModes", "defaultOutputModes", "skills"):
        if key in wire and not wire[key]:
            problems.append(CardProblem(key, "is REQUIRED and must not be empty"))
        elif key not in wire and not any(p.path == key for p in found):
            problems.append(CardProblem(key, "is REQUIRED"))
    return problems


def _interface_problems(interfaces: list[tuple[int, dict[str, Any]]]) -> list[CardProblem]:
    """Each interface's url, protocolBinding and protocolVersion; then whether any is a standard 1.0 one."""
    problems = []
    for i, itf in interfaces:
        where = f"supportedInterfaces.{i}"
        parts = urllib.parse.urlsplit(str(itf.get("url", "")))
        binding = str(itf.get("protocolBinding", ""))
        if binding == "GRPC" and _GRPC_TARGET.match(str(itf.get("url", ""))):
            pass  # a gRPC target is host:port (what gRPC channels take), or a URL
        elif parts.scheme not in ("http", "https") or not parts.netloc:
            problems.append(CardProblem(f"{where}.url", "must be an absolute http(s) URL"))
        if binding not in KNOWN_BINDINGS and ":" not in binding:
            problems.append(
                CardProblem(f"{where}.protocolBinding", "JSONRPC, GRPC, HTTP+JSON, or a URI for a custom one")
            )
        if not _VERSION.match(str(itf.get("protocolVersion", ""))):
            problems.append(
                CardProblem(f"{where}.protocolVersion", 'Major.Minor, e.g. "1.0" (no patch number)')
            )
    if interfaces and not any(
        i.get("protocolBinding") in KNOWN_BINDINGS
        and str(i.get("protocolVersion", "")).split(".")[:2] == PROTOCOL_VERSION.split(".")
        for _, i in interfaces
    ):
        problems.append(
            CardProblem(
                "supportedInterfaces",
                "no standard 1.0 interface (allowed, but this kit's client "
                "speaks only JSONRPC, HTTP+JSON and GRPC)",
            )
        )
    return problems


def _skill_tag_problems(skills: list[tuple[int, dict[str, Any]]]) -> list[CardProblem]:
    """Skills whose REQUIRED ``tags`` list is missing or empty."""
    return [
        CardProblem(f"skills.{i}.tags", "is REQUIRED and must not be empty")
        for i, skill in skills
        if not skill.get("tags")
    ]


def _media_type_problems(wire: dict[str, Any], skills: list[tuple[int, dict[str, Any]]]) -> list[CardProblem]:
    """Entries of the card's default modes, then of each skill's modes, that are not media types."""
    modes = [
        ("defaultInputModes", wire.get("defaultInputModes")),
        ("defaultOutputModes", wire.get("defaultOutputModes")),
    ]
    for i, skill in skills:
        modes += [
            (f"skills.{i}.inputModes", skill.get("inputModes")),
            (f"skills.{i}.outputModes", skill.get("outputModes")),
        ]
    problems = []
    for where, values in modes:
        for j, mode in enumerate(_list(values)):
            if not isinstance(mode, str) or not _MEDIA_TYPE.match(mode):
                problems.append(
                    CardProblem(f"{where}.{j}", f"{mode!r} is not a media type (e.g. text/plain)")
                )
    return problems


def _security_problems(wire: dict[str, Any], skills: list[tuple[int, dict[str, Any]]]) -> list[CardProblem]:
    """Security requirements (the card's, then each skill's) naming a scheme ``securitySchemes`` lacks."""
    declared = set(wire.get("securitySchemes") or {})
    requirements = [("securityRequirements", wire.get("securityRequirements"))]
    requirements += [(f"skills.{i}.securityRequirements", s.get("securityRequirements")) for i, s in skills]
    problems = []
    for where, reqs in requirements:
        for j, req in enumerate(_list(reqs)):
            for name in (req.get("schemes") or {}) if isinstance(req, dict) else ():
                if name not in declared:
                    problems.append(
                        CardProblem(f"{where}.{j}.schemes.{name}", "names a scheme not in securitySchemes")
                    )
    return problems


def _list(value: Any) -> list[Any]:
    """The dict and str items of ``value`` if it is a list, else an empty list."""
    return [v for v in value if isinstance(v, dict) or isinstance(v, str)] if isinstance(value, list) else []


def _objects(value: Any) -> list[tuple[int, dict[str, Any]]]:
    """The object items of ``value`` with their positions, if it is a list (the parser names the
    items that are not objects)."""
    return [(i, v) for i, v in enumerate(value) if isinstance(v, dict)] if isinstance(value, list) else []


def with_bindings(card: AgentCard, *, rest_url: str | None = None, grpc_url: str | None = None) -> AgentCard:
    """``card`` with HTTP+JSON and gRPC interfaces added after its own, in that order.

    The card's first interface (the JSON-RPC one the agents declare) stays first: the list is in
    order of preference (spec §8.3). New entries copy its ``protocolVersion`` and ``tenant``.

    >>> card = AgentCard.from_wire({"name": "x", "description": "d", "version": "1",
    ...     "capabilities": {}, "supportedInterfaces": [{"url": "http://h/a2a",
    ...     "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]})
    >>> c = with_bindings(card, rest_url="http://h/a2a/rest", grpc_url="127.0.0.1:50051")
    >>> [i.protocol_binding for i in c.supported_interfaces]
    ['JSONRPC', 'HTTP+JSON', 'GRPC']
    """
    interfaces = list(card.supported_interfaces)
    version = interfaces[0].protocol_version if interfaces else PROTOCOL_VERSION
    tenant = interfaces[0].tenant if interfaces else ""
    for binding, url in (("HTTP+JSON", rest_url), ("GRPC", grpc_url)):
        if url and not any(i.protocol_binding == binding for i in interfaces):
            interfaces.append(
                AgentInterface(url=url, protocol_binding=binding, protocol_version=version, tenant=tenant)
            )
    return card.model_copy(update={"supported_interfaces": interfaces})
