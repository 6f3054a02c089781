"""Where :class:`RunningServer` and :func:`running_server` were first importable from (the
notebooks and scripts still import them here); they live in :mod:`agentproto.server.running`."""

from __future__ import annotations

from agentproto.server.running import RunningServer, running_server

__all__ = ["RunningServer", "running_server"]
