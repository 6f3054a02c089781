"""Helpers that several test files build their fixtures from."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import create_app
from agentproto.server import RunningServer

REFUND = "check order A1024 and refund it if shipped"


@contextmanager
def demo_server(clock: FakeClock, ids: str = "srv") -> Iterator[RunningServer]:
    """The AG-UI demo app (no A2A agent) on a free loopback port, its own in-memory store.

    The app is kept on the running server as ``.app``, for the tests that look at its state.
    """
    app = create_app(clock=clock, ids=IdFactory(ids), a2a_agent=None)
    with RunningServer(app) as running:
        running.app = app  # type: ignore[attr-defined]
        yield running
