"""Server plumbing the AG-UI and A2A adapters share, and the one description of a server.

======================  ===========================================================
module                  what it holds
======================  ===========================================================
:mod:`.config`          :class:`ServerConfig` — host, port, auth, limits, origins,
                        storage, bindings: what ``agentproto serve`` runs
:mod:`.guard`           :class:`HTTPGuard` — Host, Origin/CORS, media type, body size
:mod:`.running`         :class:`RunningServer` — an app under uvicorn on a free
                        loopback port, in a thread (tests, notebooks)
:mod:`._asgi`            the ASGI types (``Scope``, ``Receive``, ``Send``, ``ASGIApp``)
:mod:`._paths`           the well-known paths (Agent Card, token endpoint, JWK Set)
:mod:`._log`             the ``agentproto.http`` and ``agentproto.serve`` loggers
======================  ===========================================================

Nothing here knows a protocol: the bindings (``agentproto.a2a``, ``agentproto.agui``) import
this package, and :func:`agentproto.demo.app.create_app` builds all of them from a config.
Every name loads on first use (``RunningServer`` needs uvicorn, the ``server`` extra), so a
sans-I/O module that reads a path from :mod:`._paths` pulls in nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentproto._lazy import lazy_exports

if TYPE_CHECKING:  # each public name and its home module; loaded on first use
    from agentproto.server._log import log_event
    from agentproto.server._paths import AGENT_CARD_PATH, JWKS_PATH, TOKEN_PATH
    from agentproto.server.config import AuthConfig, Bindings, ServerConfig, WebhookPolicy
    from agentproto.server.guard import GuardConfig, HTTPGuard
    from agentproto.server.running import RunningServer, running_server

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

__getattr__, __dir__, _EXPORTS = lazy_exports(globals())
