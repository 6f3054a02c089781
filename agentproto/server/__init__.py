"""Server plumbing the AG-UI and A2A adapters share, and the one description of a server.

======================  ===========================================================
module                  what it holds
======================  ===========================================================
:mod:`.config`          :class:`ServerConfig` — host, port, auth, limits, origins,
                        storage, bindings: what ``agentproto serve`` runs
:mod:`.guard`           :class:`HTTPGuard` — Host, Origin/CORS, media type, body size
:mod:`.running`         :class:`RunningServer` — an app under uvicorn on a free
                        loopback port, in a thread (tests, notebooks)
:mod:`.asgi`            the ASGI types (``Scope``, ``Receive``, ``Send``, ``ASGIApp``)
:mod:`.paths`           the well-known paths (Agent Card, token endpoint, JWK Set)
:mod:`.log`             the ``agentproto.http`` and ``agentproto.serve`` loggers
======================  ===========================================================

Nothing here knows a protocol: the bindings (``agentproto.a2a``, ``agentproto.agui``) import
this package, and :func:`agentproto.demo.app.create_app` builds all of them from a config.
``RunningServer`` needs uvicorn (the ``server`` extra) and is loaded on first use.
"""

from __future__ import annotations

from typing import Any

from agentproto.server.config import AuthConfig, Bindings, ServerConfig, WebhookPolicy
from agentproto.server.guard import GuardConfig, HTTPGuard
from agentproto.server.log import log_event
from agentproto.server.paths import AGENT_CARD_PATH, JWKS_PATH, TOKEN_PATH

__all__ = [
    "ServerConfig",
    "AuthConfig",
    "Bindings",
    "WebhookPolicy",
    "HTTPGuard",
    "GuardConfig",
    "RunningServer",
    "running_server",
    "log_event",
    "AGENT_CARD_PATH",
    "TOKEN_PATH",
    "JWKS_PATH",
]


def __getattr__(name: str) -> Any:
    if name in ("RunningServer", "running_server"):
        from agentproto.server import running

        return getattr(running, name)
    raise AttributeError(f"module 'agentproto.server' has no attribute {name!r}")
