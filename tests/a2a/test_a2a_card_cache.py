"""Agent Card caching (spec §8.6): fresh copies are used without asking, stale ones revalidated.

The cache itself is pure bookkeeping on an injected clock; the clients drive it over HTTP.
"""

from __future__ import annotations

import pytest

from agentproto.a2a.card_cache import CardCache, max_age
from agentproto.a2a.client import A2AClient, A2AHTTPError, SyncA2AClient
from agentproto.a2a.server import create_a2a_app
from agentproto.a2a.types import AgentCard
from agentproto.clock import FakeClock, IdFactory
from agentproto.server import RunningServer, running_server

URL = "http://agent.example/.well-known/agent-card.json"
CARD = AgentCard(name="Weather", description="Forecasts", version="1.0.0", capabilities={})


@pytest.fixture(scope="module")
def travel_url():
    server = RunningServer(create_a2a_app(agent="travel", clock=FakeClock(), ids=IdFactory("t"))).start()
    yield server.url
    server.stop()


# --------------------------------------------------------------------------- the bookkeeping


def test_an_empty_cache_has_nothing_fresh_and_sends_an_unconditional_request(clock):
    cache = CardCache(clock=clock)
    assert cache.lookup(URL) is None
    assert cache.conditional_headers(URL) == {}
    assert cache.log == []


def test_a_stored_card_is_fresh_until_max_age_then_revalidated_with_its_etag(clock):
    cache = CardCache(clock=clock)
    cache.store(URL, CARD, {"Cache-Control": "public, max-age=300", "ETag": '"v1"'})
    clock.advance(299_999)
    assert cache.lookup(URL) is CARD
    clock.advance(1)
    assert cache.lookup(URL) is None
    assert cache.conditional_headers(URL) == {"If-None-Match": '"v1"'}


def test_a_304_renews_the_copy_for_another_max_age(clock):
    cache = CardCache(clock=clock)
    cache.store(URL, CARD, {"cache-control": "max-age=60", "etag": '"v1"'})
    clock.advance(61_000)
    assert cache.not_modified(URL, {"cache-control": "max-age=60"}) is CARD
    clock.advance(59_000)
    assert cache.lookup(URL) is CARD
    assert [(f.how, f.status, f.etag) for f in cache.log] == [
        ("downloaded", 200, '"v1"'),
        ("revalidated", 304, '"v1"'),
        ("fresh", None, '"v1"'),
    ]


def test_a_card_without_cache_headers_is_revalidated_every_time(clock):
    cache = CardCache(clock=clock)
    cache.store(URL, CARD, {"ETag": '"v1"'})
    assert cache.lookup(URL) is None
    assert cache.conditional_headers(URL) == {"If-None-Match": '"v1"'}


def test_a_card_without_an_etag_is_downloaded_again_when_stale(clock):
    cache = CardCache(clock=clock)
    cache.store(URL, CARD, {"Cache-Control": "max-age=10"})
    clock.advance(10_000)
    assert cache.conditional_headers(URL) == {}


def test_a_304_for_a_card_never_cached_is_refused(clock):
    with pytest.raises(KeyError, match="no copy"):
        CardCache(clock=clock).not_modified(URL, {})


def test_forget_drops_the_copy(clock):
    cache = CardCache(clock=clock)
    cache.store(URL, CARD, {"Cache-Control": "max-age=300", "ETag": '"v1"'})
    cache.forget(URL)
    assert cache.lookup(URL) is None and cache.conditional_headers(URL) == {}


@pytest.mark.parametrize(
    "header, seconds",
    [
        ("public, max-age=300", 300),
        ("max-age=0", 0),
        ("no-cache, max-age=60", 0),
        ("no-store", 0),
        ("", 0),
        ("max-age=soon", 0),
        ("max-age=-5", 0),
        ("MAX-AGE=7", 7),
    ],
)
def test_max_age_is_read_from_cache_control(header, seconds):
    assert max_age(header) == seconds


# --------------------------------------------------------------------------- over HTTP


def test_the_sync_client_downloads_once_serves_fresh_copies_and_revalidates_after_max_age(travel_url, clock):
    cache = CardCache(clock=clock)
    first = SyncA2AClient.fetch_card(travel_url, cache=cache)
    clock.advance(299_000)
    assert SyncA2AClient.fetch_card(travel_url, cache=cache) is first
    clock.advance(2_000)
    assert SyncA2AClient.fetch_card(travel_url, cache=cache) is first
    assert [(f.how, f.status) for f in cache.log] == [
        ("downloaded", 200),
        ("fresh", None),
        ("revalidated", 304),
    ]
    clock.advance(100_000)  # renewed by the 304: fresh again
    SyncA2AClient.fetch_card(travel_url, cache=cache)
    assert cache.counts() == {"downloaded": 1, "revalidated": 1, "fresh": 2}


def test_discovery_goes_through_the_cache_too(travel_url, clock):
    cache = CardCache(clock=clock)
    with (
        SyncA2AClient.discover(travel_url, cache=cache) as one,
        SyncA2AClient.discover(travel_url, cache=cache) as two,
    ):
        assert one.card is two.card
    assert cache.counts()["fresh"] == 1


@pytest.mark.anyio
async def test_the_async_client_uses_the_same_cache_rules(travel_url, clock):
    cache = CardCache(clock=clock)
    first = await A2AClient.fetch_card(travel_url, cache=cache)
    clock.advance(400_000)
    assert await A2AClient.fetch_card(travel_url, cache=cache) is first
    assert [f.how for f in cache.log] == ["downloaded", "revalidated"]


def test_a_missing_card_is_an_http_error_and_nothing_is_cached(clock):
    from starlette.applications import Starlette

    cache = CardCache(clock=clock)
    with running_server(Starlette()) as url:
        with pytest.raises(A2AHTTPError) as info:
            SyncA2AClient.fetch_card(url, cache=cache)
    assert info.value.status_code == 404
    assert cache.log == [] and cache.lookup(url + "/.well-known/agent-card.json") is None
