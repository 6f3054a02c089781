"""How big the reliability tests run: small in ``make test``, large with ``AGENTPROTO_SOAK=1``."""

from __future__ import annotations

import os

SOAK = os.environ.get("AGENTPROTO_SOAK", "") not in ("", "0")


def size(small: int, soak: int) -> int:
    """``small`` normally, ``soak`` when ``AGENTPROTO_SOAK=1``."""
    return soak if SOAK else small
