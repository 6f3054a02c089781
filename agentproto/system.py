"""The real world, for adapters to inject: the wall clock and random ids.

The protocol cores never import this module; servers, clients and the CLI pass
:class:`SystemClock` and :func:`uuid_ids` where tests and notebooks pass
:class:`~agentproto.clock.FakeClock` and :class:`~agentproto.clock.IdFactory`.
"""

from __future__ import annotations

import datetime as _dt
import time
import uuid

__all__ = ["SystemClock", "uuid_ids"]


class SystemClock:
    """The real wall clock."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def now(self) -> _dt.datetime:
        return _dt.datetime.fromtimestamp(self.now_ms() / 1000, tz=_dt.UTC)


def uuid_ids() -> str:
    """A fresh random UUID4 string (the production id factory)."""
    return str(uuid.uuid4())
