"""Fixtures for the course tests: a demo server with a client, and figures closed after each test."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from agentproto.agui.client import SyncAGUIClient
from agentproto.clock import FakeClock, IdFactory
from agentproto.server import RunningServer
from tests.fixtures import REFUND, demo_server


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


@pytest.fixture
def server(clock: FakeClock) -> Iterator[RunningServer]:
    with demo_server(clock) as running:
        yield running


@pytest.fixture
def client(server: RunningServer, clock: FakeClock) -> Iterator[SyncAGUIClient]:
    with SyncAGUIClient(server.url, ids=IdFactory("ui"), clock=clock) as sync:
        yield sync


@pytest.fixture
def interrupted(client: SyncAGUIClient):
    """A thread whose first run ended asking to approve the refund of A1024."""
    first = client.send("t-1", REFUND)
    assert first.outcome == "interrupt"
    return first
