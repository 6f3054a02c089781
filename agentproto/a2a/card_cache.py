"""A client-side Agent Card cache that honours ``Cache-Control`` and ``ETag``, sans I/O.

The spec asks servers to send ``Cache-Control: max-age`` and an ``ETag`` with the card and
clients to follow HTTP caching (spec §8.6, RFC 9111). While a copy is younger than ``max-age``
it is used without asking; after that the client *revalidates*: it sends ``If-None-Match`` with
the tag it holds, and a ``304 Not Modified`` renews the copy without downloading the card again.

:class:`CardCache` is that bookkeeping and nothing else — it never opens a connection, and time
comes from the injected clock (so a notebook can jump past ``max-age``). An HTTP adapter drives
it in three steps; :meth:`agentproto.a2a.client.SyncA2AClient.fetch_card` (and the async
client's) do exactly this when given ``cache=``::

    card = cache.lookup(url)                        # fresh copy: no request at all
    if card is None:
        response = http.get(url, headers=cache.conditional_headers(url))
        if response.status_code == 304:
            card = cache.not_modified(url, response.headers)
        else:                                       # 200, card parsed by the adapter
            card = cache.store(url, AgentCard.from_wire(response.json()), response.headers)

>>> from agentproto.clock import FakeClock
>>> clock = FakeClock()
>>> cache = CardCache(clock=clock)
>>> url = "http://127.0.0.1:8000/.well-known/agent-card.json"
>>> cache.lookup(url) is None, cache.conditional_headers(url)
(True, {})
>>> card = AgentCard(name="x", description="x", version="1", capabilities={})
>>> _ = cache.store(url, card, {"Cache-Control": "max-age=60", "ETag": '"v1"'})
>>> cache.lookup(url) is card
True
>>> _ = clock.advance(60_000)
>>> cache.lookup(url) is None, cache.conditional_headers(url)
(True, {'If-None-Match': '"v1"'})
>>> [f.how for f in cache.log]
['downloaded', 'fresh']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agentproto.a2a.types import AgentCard
from agentproto.clock import Clock

__all__ = ["CardCache", "CardFetch", "max_age", "HOW"]

#: The three ways a card can be obtained, as :attr:`CardFetch.how` spells them.
HOW = ("downloaded", "revalidated", "fresh")


@dataclass(frozen=True)
class CardFetch:
    """One card obtained through the cache: how, at which (injected) time, with which tag."""

    at_ms: int
    how: str  #: ``downloaded`` (200), ``revalidated`` (304) or ``fresh`` (no request at all)
    status: int | None  #: the HTTP status, ``None`` when no request was made
    etag: str


@dataclass(frozen=True)
class _Entry:
    card: AgentCard
    etag: str
    stored_ms: int
    max_age_s: int


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return ""


def max_age(cache_control: str) -> int:
    """``max-age`` in seconds from a ``Cache-Control`` value; 0 if absent, malformed,
    ``no-cache`` or ``no-store`` (the copy must be revalidated before every use).

    >>> max_age("public, max-age=300"), max_age("no-cache, max-age=60"), max_age("")
    (300, 0, 0)
    """
    directives = [d.strip().lower() for d in cache_control.split(",")]
    if "no-cache" in directives or "no-store" in directives:
        return 0
    for d in directives:
        if d.startswith("max-age="):
            try:
                return max(int(d.split("=", 1)[1]), 0)
            except ValueError:
                return 0
    return 0


class CardCache:
    """Agent Cards by URL, with their ``ETag`` and freshness lifetime; :attr:`log` records
    every card handed out (:class:`CardFetch`)."""

    def __init__(self, *, clock: Clock) -> None:
        self.clock = clock
        self._entries: dict[str, _Entry] = {}
        self.log: list[CardFetch] = []

    def lookup(self, url: str) -> AgentCard | None:
        """The cached card if it is still fresh (logged as ``fresh``), else ``None``."""
        entry = self._entries.get(url)
        now = self.clock.now_ms()
        if entry is not None and now - entry.stored_ms < entry.max_age_s * 1000:
            self.log.append(CardFetch(now, "fresh", None, entry.etag))
            return entry.card
        return None

    def conditional_headers(self, url: str) -> dict[str, str]:
        """Headers for the GET: ``If-None-Match`` when a tagged (stale) copy is held."""
        entry = self._entries.get(url)
        return {"If-None-Match": entry.etag} if entry is not None and entry.etag else {}

    def not_modified(self, url: str, headers: Mapping[str, str]) -> AgentCard:
        """Apply a ``304 Not Modified``: the held copy is renewed for the new ``max-age``.

        Raises ``KeyError`` if nothing is held for ``url`` (a server must not answer 304 to a
        request without ``If-None-Match``).
        """
        entry = self._entries.get(url)
        if entry is None:
            raise KeyError(f"304 Not Modified for {url}, but no copy is cached")
        etag = _header(headers, "etag") or entry.etag
        now = self.clock.now_ms()
        self._entries[url] = _Entry(entry.card, etag, now, max_age(_header(headers, "cache-control")))
        self.log.append(CardFetch(now, "revalidated", 304, etag))
        return entry.card

    def store(self, url: str, card: AgentCard, headers: Mapping[str, str]) -> AgentCard:
        """Keep a freshly downloaded card (a ``200``) with its tag and lifetime."""
        etag = _header(headers, "etag")
        now = self.clock.now_ms()
        self._entries[url] = _Entry(card, etag, now, max_age(_header(headers, "cache-control")))
        self.log.append(CardFetch(now, "downloaded", 200, etag))
        return card

    def forget(self, url: str) -> None:
        """Drop the copy held for ``url`` (the next fetch downloads it again)."""
        self._entries.pop(url, None)

    def counts(self) -> dict[str, int]:
        """How many cards were downloaded, revalidated and served fresh."""
        out = dict.fromkeys(HOW, 0)
        for f in self.log:
            out[f.how] += 1
        return out
