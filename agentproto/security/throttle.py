"""Backoff after failed client authentications, without I/O (time from an injected clock).

A token endpoint that answers every guess at once lets anyone try hundreds of secrets a second.
:class:`FailureBackoff` counts failures per *key* and, after ``free_failures`` of them, refuses
further attempts on that key for a time that doubles with each new failure (``base_s``,
``2 × base_s`` … capped at ``max_s``). A success clears its key; failures older than
``forget_s`` are forgotten. The table is bounded (``max_keys``, least recently used out), so a
flood of made-up client ids cannot grow memory.

Which keys to use is the caller's choice; :class:`~agentproto.security.oauth.AuthorizationServer`
uses two per request (see :data:`PAIR_LIMIT`, :data:`PEER_LIMIT`):

* ``(address, client_id)`` — the guesses one address makes at one client's secret. Keyed by
  the pair, not by the client id alone, so that a stranger on another address cannot lock the
  legitimate client out (the price: a guesser that changes address starts afresh, and is
  stopped by the second key only per address);
* ``(address,)`` — every failure from one address, whatever client ids it tries (spraying).

Every process on one machine shares the loopback address, so on a shared machine a local
guesser can still make a local client wait; that is the trade-off this choice makes.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from agentproto.clock import Clock
from agentproto.security.errors import OAuthThrottled

__all__ = [
    "ClientAuthThrottle",
    "FailureBackoff",
    "BackoffPolicy",
    "PAIR_LIMIT",
    "PEER_LIMIT",
    "MAX_KEYS",
]

#: Keys the table remembers at most (least recently used forgotten first).
MAX_KEYS = 4096


@dataclass(frozen=True)
class BackoffPolicy:
    """``free_failures`` answered as usual, then ``base_s`` doubling up to ``max_s``."""

    free_failures: int = 5
    base_s: float = 1.0
    max_s: float = 300.0
    forget_s: float = 900.0

    def delay_s(self, failures: int) -> float:
        """How long to refuse after the ``failures``-th failure (0 while still free)."""
        extra = failures - self.free_failures
        if extra <= 0:
            return 0.0
        return float(min(self.max_s, self.base_s * 2 ** min(extra - 1, 62)))


#: One address guessing one client's secret: 5 free failures, then 1 s, 2 s, 4 s … 300 s.
PAIR_LIMIT = BackoffPolicy(free_failures=5, base_s=1.0, max_s=300.0)
#: One address, any client ids: 20 free failures, then 1 s, 2 s, 4 s … 300 s.
PEER_LIMIT = BackoffPolicy(free_failures=20, base_s=1.0, max_s=300.0)


@dataclass
class _Entry:
    failures: int
    last_ms: int
    locked_until_ms: int


class FailureBackoff:
    """Failure counts per key with exponential backoff (see the module docstring)."""

    def __init__(self, clock: Clock, policy: BackoffPolicy = PAIR_LIMIT, *, max_keys: int = MAX_KEYS) -> None:
        self.clock = clock
        self.policy = policy
        self.max_keys = max_keys
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def _entry(self, key: Hashable, now: int) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if now - entry.last_ms > self.policy.forget_s * 1000 and now >= entry.locked_until_ms:
            del self._entries[key]
            return None
        return entry

    def retry_after_s(self, key: Hashable) -> int:
        """Whole seconds until ``key`` may try again (0: it may try now)."""
        now = self.clock.now_ms()
        entry = self._entry(key, now)
        if entry is None or now >= entry.locked_until_ms:
            return 0
        return max(1, math.ceil((entry.locked_until_ms - now) / 1000))

    def failed(self, key: Hashable) -> int:
        """Count one failure for ``key``; return the seconds it must now wait (0 if none)."""
        now = self.clock.now_ms()
        entry = self._entry(key, now)
        if entry is None:
            entry = self._entries[key] = _Entry(0, now, 0)
        entry.failures += 1
        entry.last_ms = now
        delay = self.policy.delay_s(entry.failures)
        entry.locked_until_ms = now + int(delay * 1000)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_keys:
            self._entries.popitem(last=False)
        return math.ceil(delay)

    def succeeded(self, key: Hashable) -> None:
        """Forget ``key``'s failures."""
        self._entries.pop(key, None)

    def failures(self, key: Hashable) -> int:
        """Failures counted for ``key`` (and not yet forgotten)."""
        entry = self._entry(key, self.clock.now_ms())
        return 0 if entry is None else entry.failures


class ClientAuthThrottle:
    """The two backoffs a token endpoint keeps: per ``(address, client_id)`` and per address.

    :meth:`check` raises :class:`~agentproto.security.errors.OAuthThrottled` while either key
    waits; :meth:`failed` counts a wrong secret (or unknown client id) on both keys;
    :meth:`succeeded` clears the pair (the address's count only decays, so a guesser cannot
    reset it with a valid secret of its own).
    """

    #: Characters of a presented client id kept in a key (ids are attacker-chosen).
    ID_CHARS = 200

    def __init__(
        self,
        clock: Clock,
        *,
        pair: BackoffPolicy = PAIR_LIMIT,
        peer: BackoffPolicy = PEER_LIMIT,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self.pair = FailureBackoff(clock, pair, max_keys=max_keys)
        self.peer = FailureBackoff(clock, peer, max_keys=max_keys)

    def _keys(self, address: str, client_id: str) -> tuple[Hashable, Hashable]:
        return (address, client_id[: self.ID_CHARS]), (address,)

    def check(self, address: str, client_id: str) -> None:
        pair, peer = self._keys(address, client_id)
        wait = self.pair.retry_after_s(pair)
        if wait:
            raise OAuthThrottled(
                f"Too many failed authentications for this client from this address; retry after {wait} s",
                retry_after_s=wait,
            )
        wait = self.peer.retry_after_s(peer)
        if wait:
            raise OAuthThrottled(
                f"Too many failed client authentications from this address; retry after {wait} s",
                retry_after_s=wait,
            )

    def failed(self, address: str, client_id: str) -> int:
        """Count a failure; the seconds the pair or the address must now wait (0 if none)."""
        pair, peer = self._keys(address, client_id)
        return max(self.pair.failed(pair), self.peer.failed(peer))

    def succeeded(self, address: str, client_id: str) -> None:
        self.pair.succeeded(self._keys(address, client_id)[0])
