"""The HTTP tap (agentproto.agui.client_tap): the raw SSE bytes, and a real disconnect."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from agentproto.agui.client import AGUIClient
from agentproto.agui.client_tap import TapTransport
from agentproto.agui.sse import SSEDecoder
from agentproto.clock import IdFactory
from tests.fixtures import demo_server

REFUND = "check order A1024 and refund it if shipped"
TIMEOUT = httpx.Timeout(30.0, read=None)  # a loaded machine must not look like a dropped stream


@pytest.fixture
def server(clock):
    with demo_server(clock) as running:
        yield running


def test_tap_records_the_raw_sse_bytes_exactly_as_the_client_decodes_them(server, clock):
    async def scenario():
        tap = TapTransport()
        async with AGUIClient(
            server.url,
            ids=IdFactory("ui"),
            clock=clock,
            http=httpx.AsyncClient(transport=tap, timeout=TIMEOUT),
        ) as c:
            result = await c.send("t-1", REFUND)
        return tap, result

    tap, result = asyncio.run(scenario())
    capture = tap.streams[-1]
    assert capture.request_json["threadId"] == "t-1"
    assert capture.headers["x-accel-buffering"] == "no"
    assert capture.headers["cache-control"] == "no-cache"
    assert capture.raw.startswith(b"data: {")
    decoded = [json.loads(f) for f in SSEDecoder().feed(capture.raw)]
    assert not result.recovered and result.types[-1] == "RUN_FINISHED"
    assert [e["type"] for e in decoded] == result.types


def test_a_dropped_stream_is_recovered_from_the_snapshot_and_the_run_still_completes(server, clock):
    async def scenario():
        tap = TapTransport()
        async with AGUIClient(
            server.url,
            ids=IdFactory("ui"),
            clock=clock,
            http=httpx.AsyncClient(transport=tap, timeout=TIMEOUT),
        ) as c:
            tap.drop_next(after_events=5)
            result = await c.send("t-1", REFUND)
            snapshot = await c.snapshot("t-1")
            return tap, result, c.thread("t-1"), snapshot

    tap, result, view, snapshot = asyncio.run(scenario())
    assert tap.streams[-1].dropped and tap.streams[-1].frames_delivered == 5
    assert result.recovered and result.outcome == "interrupt"
    assert view.state == snapshot["state"] and view.messages == snapshot["messages"]
    store = server.app.state.store
    events = store.events("t-1", result.run_id)
    assert events[-1]["type"] == "RUN_FINISHED"  # disconnect is not cancel
    assert len(events) > 5


def test_dropping_after_zero_events_delivers_nothing_and_the_client_still_recovers(server, clock):
    async def scenario():
        tap = TapTransport()
        async with AGUIClient(
            server.url,
            ids=IdFactory("ui"),
            clock=clock,
            http=httpx.AsyncClient(transport=tap, timeout=TIMEOUT),
        ) as c:
            tap.drop_next(after_events=0)
            return tap, await c.send("t-1", REFUND)

    tap, result = asyncio.run(scenario())
    assert tap.streams[-1].raw == b"" and tap.streams[-1].dropped
    assert result.events == [] and result.recovered and result.outcome == "interrupt"


def test_an_unterminated_last_frame_passes_through_the_tap():
    class Body(httpx.AsyncByteStream):
        async def __aiter__(self):
            yield b'data: {"a":1}\n\ndata: {"b"'

    class Inner(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request):
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())

    async def scenario():
        tap = TapTransport(Inner())
        tap.drop_next(after_events=5)
        async with httpx.AsyncClient(transport=tap) as http:
            response = await http.post("http://test/agent", json={"x": 1})
        return tap, response.content

    tap, body = asyncio.run(scenario())
    assert body == b'data: {"a":1}\n\ndata: {"b"' == tap.last.raw
    assert tap.last.request_json == {"x": 1} and not tap.last.dropped


def test_drop_next_refuses_a_negative_count():
    with pytest.raises(ValueError):
        TapTransport().drop_next(-1)
