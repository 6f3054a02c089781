"""Fixtures for the A2A tests: a service on a fake clock, a JSON-RPC caller, live servers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agentproto.a2a.agents import Agent, make_agent
from agentproto.a2a.jsonrpc import JSONRPCDispatcher
from agentproto.a2a.server import create_a2a_app
from agentproto.a2a.service import A2AService
from agentproto.clock import FakeClock, IdFactory
from agentproto.testing import RunningServer

V1 = {"A2A-Version": "1.0"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_service(clock: FakeClock) -> Callable[..., A2AService]:
    """``make_service("travel")`` — a service on the fake clock with ids id-1, id-2, …"""

    def make(agent: str | Agent = "conformance", **kw: Any) -> A2AService:
        the_agent = make_agent(agent) if isinstance(agent, str) else agent
        kw.setdefault("ids", IdFactory("id"))
        return A2AService(the_agent, clock=clock, **kw)

    return make


def rpc(method: str, params: dict[str, Any] | None = None, id: int | str = 1) -> dict[str, Any]:
    """A JSON-RPC request object."""
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}


def msg(text: str = "hello", message_id: str = "m-1", **extra: Any) -> dict[str, Any]:
    """A user message in wire form."""
    return {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}], **extra}


async def call(dispatcher: JSONRPCDispatcher, method: str, params: dict[str, Any] | None = None,
               headers: dict[str, str] | None = None) -> dict[str, Any]:
    """Dispatch one request; for a stream, collect every frame into ``{"frames": [...]}``."""
    out = await dispatcher.dispatch(rpc(method, params), V1 if headers is None else headers)
    if isinstance(out, dict):
        return out
    return {"frames": [frame async for frame in out]}


def error_code(response: dict[str, Any]) -> int | None:
    return response.get("error", {}).get("code")


@pytest.fixture(scope="module")
def live_servers() -> Iterator[Callable[[str], str]]:
    """``url = live_servers("conformance")`` — one real uvicorn server per agent per module."""
    started: dict[str, RunningServer] = {}

    def get(agent: str) -> str:
        if agent not in started:
            app = create_a2a_app(agent=agent, clock=FakeClock(), ids=IdFactory(agent))
            started[agent] = RunningServer(app).start()
        return started[agent].url

    yield get
    for server in started.values():
        server.stop()


def run(coro: Any) -> Any:
    """Run a coroutine to completion (for sync tests that need one async step)."""
    return asyncio.run(coro)
