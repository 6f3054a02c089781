"""The root of every exception agentproto raises: ``except AgentProtoError`` catches them all.

Each protocol, and each simulation, keeps its own family under the root, so a caller catches at
the level it cares about — everything, one protocol, one stage, or one precise refusal::

    AgentProtoError
    ├── AGUIError                 agentproto.agui: decode, schema, chunks, lifecycle rules,
    │                             guards, UI intents, resume; AGUIHTTPError (the AG-UI client)
    ├── A2AError                  agentproto.a2a: one class per JSON-RPC / A2A error code …
    │   ├── InvalidTransitionError    … the task machine refusing a transition (-32006)
    │   └── A2AClientError            … and what goes wrong *below* the protocol on the client
    │       ├── A2AConnectionError        side: unreachable, an HTTP error without an A2A
    │       ├── A2AHTTPError              error, a timeout, an answer that is not A2A
    │       ├── A2ATimeoutError ── NoProgressError
    │       └── InvalidResponseError
    ├── ArtifactAssemblyError     A2A artifact chunks that do not fit (also a ValueError)
    ├── SecurityError             agentproto.security: tokens, card signatures, OAuth
    ├── SSEDecodeError            bytes that are not an event stream (also a ValueError);
    │                             AG-UI's DecodeError is both this and an AGUIError
    ├── LimitError, StoreError    input limits, SQLite persistence
    └── the simulations'          SchedulingError, IdempotencyError, PlanError, SemanticError,
                                  DeadlockError, HitlError, FeedbackError (ValueErrors where
                                  the problem is a bad argument)

Why the A2A client errors sit under :class:`~agentproto.a2a.errors.A2AError`: a caller writes
``except A2AError`` to mean "the A2A call did not work", and a refused connection is the first
thing that happens to such a call. The client's classes keep a family of their own
(``except A2AClientError``) for the caller who wants to tell "the agent said no" (a JSON-RPC
code) from "we never got an answer". An ``A2AClientError`` has no code on the wire; if one
escapes from inside a server it is answered as an internal error.

Three attributes are shared where they apply (``None`` where they do not):

* ``rule`` — a stable identifier of the kind of problem (``text.content-unopened``,
  ``token.expired``, ``deadlock.cyclic-plan``): what tests, the CLI and the notebooks key on;
* ``code`` — the code the problem has on a wire, in that protocol's own type: an ``int``
  JSON-RPC code for A2A (``-32001``), a ``str`` for AG-UI's ``RUN_ERROR`` / resume codes
  (``resume.incomplete``) and gRPC status names;
* ``http_status`` — the HTTP status a server answers the problem with, where it has one.

This module imports nothing: every layer of the package may import it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AgentProtoError"]


class AgentProtoError(Exception):
    """Base class of every exception raised by agentproto.

    ``rule``, ``code`` and ``http_status`` are ``None`` unless a subclass (or the raiser) says
    what they are; see the module docstring for what each means.

    >>> from agentproto.a2a import A2AConnectionError, A2AError, TaskNotFoundError
    >>> issubclass(A2AConnectionError, A2AError) and issubclass(A2AError, AgentProtoError)
    True
    >>> e = TaskNotFoundError()
    >>> (e.code, e.http_status)
    (-32001, 404)
    """

    #: A stable identifier of the kind of problem, or ``None``.
    rule: str | None = None
    #: The problem's code on a wire (``int`` JSON-RPC code, ``str`` stable code), or ``None``.
    code: Any = None
    #: The HTTP status a server answers with, or ``None``.
    http_status: int | None = None
