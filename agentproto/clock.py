"""Injected time and identifiers.

Every protocol core in agentproto takes a *clock* (something with ``now_ms()``) and an *id
factory* (a zero-argument callable returning a fresh string) instead of reading the system
clock or calling :func:`uuid.uuid4` itself. This module holds the pure side: the protocol,
:class:`FakeClock` and :class:`IdFactory`, which make every run of a notebook print the same
thing. The real wall clock and random ids, which adapters inject in production, live in
:mod:`agentproto.system`.
"""

from __future__ import annotations

import datetime as _dt
import functools
import itertools
from collections.abc import Callable
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "FakeClock", "IdFactory", "IdSource", "iso_utc"]


@runtime_checkable
class Clock(Protocol):
    """Anything that can tell the time in milliseconds since the Unix epoch."""

    def now_ms(self) -> int: ...


class FakeClock:
    """A clock that only moves when told to.

    >>> clock = FakeClock(start_ms=1_000)
    >>> clock.advance(250)
    1250
    >>> clock.now_ms()
    1250
    """

    #: 2026-01-01T00:00:00Z, a fixed and readable default origin.
    DEFAULT_START_MS = 1_767_225_600_000

    def __init__(self, start_ms: int = DEFAULT_START_MS, *, tick_ms: int = 0) -> None:
        self._now = int(start_ms)
        self.tick_ms = int(tick_ms)

    def now_ms(self) -> int:
        now = self._now
        self._now += self.tick_ms  # optional auto-advance on every read
        return now

    def now(self) -> _dt.datetime:
        return _dt.datetime.fromtimestamp(self.now_ms() / 1000, tz=_dt.UTC)

    def advance(self, ms: int | float) -> int:
        """Move time forward by ``ms`` milliseconds and return the new time."""
        if ms < 0:
            raise ValueError("time does not run backwards")
        self._now += int(ms)
        return self._now

    def set(self, ms: int) -> None:
        if ms < self._now:
            raise ValueError("time does not run backwards")
        self._now = int(ms)


class IdFactory:
    """Deterministic ids: ``IdFactory("run")()`` gives ``run-1``, ``run-2``, …

    >>> ids = IdFactory("msg")
    >>> ids(), ids()
    ('msg-1', 'msg-2')
    """

    def __init__(self, prefix: str = "id", start: int = 1) -> None:
        self.prefix = prefix
        self._counter = itertools.count(start)

    def __call__(self) -> str:
        return f"{self.prefix}-{next(self._counter)}"


IdSource = Callable[[], str]


def iso_utc(ms: int) -> str:
    """Milliseconds since the epoch as ISO 8601 UTC with millisecond precision and ``Z``.

    >>> iso_utc(FakeClock.DEFAULT_START_MS)
    '2026-01-01T00:00:00.000Z'
    """
    seconds, millis = divmod(ms, 1000)
    return f"{_iso_seconds(seconds)}.{millis:03d}Z"


@functools.lru_cache(maxsize=1)
def _iso_seconds(seconds: int) -> str:
    """The seconds part of :func:`iso_utc` (kept for the second that is being stamped)."""
    return _dt.datetime.fromtimestamp(seconds, tz=_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
