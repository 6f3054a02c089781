"""The sample files under ``data/a2a/``, generated from the code so they cannot drift.

A tool, not part of the protocol core (it runs the service and writes files):
``python -m agentproto.a2a.cli_samples [DIR]`` (default ``data/a2a``) writes:

* ``cards/travel-desk.json``, ``cards/conformance.json`` — valid v1.0 Agent Cards, exactly as
  the shipped agents serve them from ``http://127.0.0.1:8000``;
* ``cards/v0.3-travel-desk.json`` — the same agent as an A2A v0.3 card (top-level ``url``,
  ``preferredTransport``, ``protocolVersion``), for the "what changed" lesson;
* ``cards/seed-004-flight-agent.json`` — the card of seed 004 §2, translated: not valid v1.0
  (``authentication`` instead of ``securitySchemes``, no interfaces, skills without
  descriptions or tags);
* ``streams/travel-desk.sse`` — a real ``SendStreamingMessage`` answer of the travel desk
  (fake clock and ids, so it is the same every time), one JSON-RPC response per ``data:`` line;
* ``errors.json`` — one JSON-RPC error response per error code.

The tests compare the files on disk with what this module produces.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import sys
from typing import Any

from agentproto.a2a.agents import ConformanceAgent, TravelDeskAgent
from agentproto.a2a.errors import ERRORS_BY_CODE
from agentproto.a2a.jsonrpc import JSONRPCDispatcher
from agentproto.a2a.service import A2AService
from agentproto.clock import FakeClock, IdFactory

__all__ = ["sample_files", "write_samples", "v03_card", "seed_card", "BASE_URL"]

BASE_URL = "http://127.0.0.1:8000"


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def v03_card() -> dict[str, Any]:
    """The travel desk as an A2A v0.3 card (written to ``cards/v0.3-travel-desk.json``)."""
    card = TravelDeskAgent().card(BASE_URL + "/a2a").to_wire()
    iface = card.pop("supportedInterfaces")[0]
    caps = card["capabilities"]
    return {
        "protocolVersion": "0.3.0",
        "name": card["name"],
        "description": card["description"],
        "url": iface["url"],
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": iface["url"], "transport": "JSONRPC"}],
        "provider": card["provider"],
        "version": card["version"],
        "capabilities": {
            "streaming": caps["streaming"],
            "pushNotifications": caps["pushNotifications"],
            "stateTransitionHistory": True,
        },
        "supportsAuthenticatedExtendedCard": True,
        "defaultInputModes": card["defaultInputModes"],
        "defaultOutputModes": card["defaultOutputModes"],
        "skills": card["skills"],
    }


def seed_card() -> dict[str, Any]:
    """Seed 004 §2's card in English, its shape and mistakes kept (``cards/seed-004-flight-agent.json``)."""
    return {
        "name": "Flight search agent",
        "description": "Searches domestic and international flights",
        "version": "1.0.0",
        "capabilities": {"streaming": True, "pushNotifications": True},
        "skills": [
            {
                "id": "search_flight",
                "name": "Search flights",
                "inputModes": ["text"],
                "outputModes": ["text", "structured_data"],
            }
        ],
        "authentication": {"type": "oauth2", "authorizationUrl": "https://auth.example.com/oauth/authorize"},
    }


async def _travel_stream() -> str:
    clock = FakeClock()
    svc = A2AService(TravelDeskAgent(), clock=clock, ids=IdFactory("id"))
    dispatcher = JSONRPCDispatcher(svc)
    headers = {"A2A-Version": "1.0"}
    text = "Plan my trip to Sanya from 2026-04-08 to 2026-04-12"
    frames = await dispatcher.dispatch(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendStreamingMessage",
            "params": {"message": {"messageId": "msg-1", "role": "ROLE_USER", "parts": [{"text": text}]}},
        },
        headers,
    )
    out = []
    async for frame in frames:  # type: ignore[union-attr]
        out.append("data: " + json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n\n")
    await svc.aclose()
    return "".join(out)


def _errors() -> str:
    return _dump({str(code): cls().response(1) for code, cls in sorted(ERRORS_BY_CODE.items(), reverse=True)})


def sample_files() -> dict[str, str]:
    """Relative path → file content."""
    return {
        "cards/travel-desk.json": _dump(TravelDeskAgent().card(BASE_URL + "/a2a").to_wire()),
        "cards/conformance.json": _dump(ConformanceAgent().card(BASE_URL + "/a2a").to_wire()),
        "cards/v0.3-travel-desk.json": _dump(v03_card()),
        "cards/seed-004-flight-agent.json": _dump(seed_card()),
        "streams/travel-desk.sse": asyncio.run(_travel_stream()),
        "errors.json": _errors(),
    }


def write_samples(directory: str | pathlib.Path = "data/a2a") -> list[pathlib.Path]:
    """Write every sample under ``directory``; return the paths written."""
    root = pathlib.Path(directory)
    written = []
    for rel, content in sample_files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover
    for p in write_samples(sys.argv[1] if len(sys.argv) > 1 else "data/a2a"):
        print(p)
