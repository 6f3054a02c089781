"""Fixtures for the A2A tests: a service on a fake clock, live servers on loopback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agentproto.a2a.agents import Agent, make_agent
from agentproto.a2a.server import create_a2a_app
from agentproto.a2a.service import A2AService
from agentproto.clock import FakeClock, IdFactory
from agentproto.server import RunningServer


@pytest.fixture
def make_service(clock: FakeClock) -> Callable[..., A2AService]:
    """``make_service("travel")`` — a service on the fake clock with ids id-1, id-2, …"""

    def make(agent: str | Agent = "conformance", **kw: Any) -> A2AService:
        the_agent = make_agent(agent) if isinstance(agent, str) else agent
        kw.setdefault("ids", IdFactory("id"))
        return A2AService(the_agent, clock=clock, **kw)

    return make


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


@pytest.fixture(scope="module")
def travel(live_servers: Callable[[str], str]) -> str:
    """The URL of a live travel-desk agent, one per module."""
    return live_servers("travel")
