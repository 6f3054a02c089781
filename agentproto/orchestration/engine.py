"""A tiny discrete-event engine: a virtual clock and a time-ordered agenda.

Theory of operation
-------------------
A :class:`Simulation` holds the current virtual time ``now`` (a float, in whatever unit the
model chooses — seconds in most notebooks) and an agenda of callbacks keyed by the time they
fire. :meth:`Simulation.run` pops the earliest entry, moves ``now`` to it and calls it; the
callback may schedule more work. Ties fire in the order they were scheduled (a sequence number
breaks ties), so a run is fully determined by the model and the seed of :attr:`rng`.

Nothing here sleeps or starts a thread: simulated hours take milliseconds of real time.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Simulation", "AgendaEntry"]


@dataclass(order=True)
class AgendaEntry:
    """One agenda entry. Cancel it with :meth:`cancel` before it fires."""

    time: float
    seq: int
    action: Callable[[], Any] = field(compare=False)
    label: str = field(default="", compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class Simulation:
    """Virtual clock plus agenda.

    >>> sim = Simulation(seed=1)
    >>> seen = []
    >>> _ = sim.schedule(2.0, lambda: seen.append(("b", sim.now)))
    >>> _ = sim.schedule(1.0, lambda: seen.append(("a", sim.now)))
    >>> sim.run()
    2.0
    >>> seen
    [('a', 1.0), ('b', 2.0)]
    """

    def __init__(self, seed: int | None = 0, start: float = 0.0) -> None:
        self.now: float = float(start)
        self.rng = random.Random(seed)
        # (time, seq, entry): plain tuples compare in C, several times faster than the dataclass
        self._agenda: list[tuple[float, int, AgendaEntry]] = []
        self._seq = itertools.count()
        self.fired = 0

    # -- scheduling -----------------------------------------------------------------
    def schedule(self, delay: float, action: Callable[[], Any], label: str = "") -> AgendaEntry:
        """Run ``action`` ``delay`` time units from now (``delay`` ≥ 0)."""
        if delay < 0:
            raise ValueError(f"cannot schedule in the past (delay={delay})")
        return self.at(self.now + delay, action, label)

    def at(self, time: float, action: Callable[[], Any], label: str = "") -> AgendaEntry:
        """Run ``action`` at absolute virtual ``time`` (not before ``now``)."""
        if time < self.now:
            raise ValueError(f"cannot schedule at {time} < now={self.now}")
        entry = AgendaEntry(float(time), next(self._seq), action, label)
        heapq.heappush(self._agenda, (entry.time, entry.seq, entry))
        return entry

    @property
    def pending(self) -> int:
        return sum(1 for _t, _s, e in self._agenda if not e.cancelled)

    def peek(self) -> float | None:
        """Time of the next live entry, or ``None`` when the agenda is empty."""
        while self._agenda and self._agenda[0][2].cancelled:
            heapq.heappop(self._agenda)
        return self._agenda[0][0] if self._agenda else None

    # -- running --------------------------------------------------------------------
    def step(self) -> bool:
        """Fire the next entry. Returns ``False`` when nothing is left."""
        if self.peek() is None:
            return False
        entry = heapq.heappop(self._agenda)[2]
        self.now = entry.time
        self.fired += 1
        entry.action()
        return True

    def run(self, until: float | None = None, max_events: int = 1_000_000) -> float:
        """Fire entries in time order until the agenda is empty, ``until`` is reached, or
        ``max_events`` have fired (a guard against models that never stop). Returns ``now``."""
        fired = 0
        while fired < max_events:
            nxt = self.peek()
            if nxt is None or (until is not None and nxt > until):
                break
            self.step()
            fired += 1
        else:
            raise RuntimeError(f"simulation did not settle within {max_events} events")
        if until is not None and self.now < until:
            self.now = float(until)
        return self.now
