"""Where the HTTP guard was first importable from; it lives in :mod:`agentproto.server.guard`
(with the structured log line in :mod:`agentproto.server.log`)."""

from __future__ import annotations

from agentproto.server.guard import LOOPBACK_HOSTS, GuardConfig, HTTPGuard, parse_host, socket_base_url
from agentproto.server.log import log_event

__all__ = ["HTTPGuard", "GuardConfig", "LOOPBACK_HOSTS", "log_event", "parse_host", "socket_base_url"]
