"""agentproto — a reference implementation and teaching kit for AG-UI and A2A.

Sub-packages:

* :mod:`agentproto.agui` — AG-UI events, SSE, chunk expansion, verification, state, interrupts.
* :mod:`agentproto.a2a` — A2A v1.0 types, task state machine, JSON-RPC binding.
* :mod:`agentproto.orchestration` — deterministic simulations of multi-agent engineering.
* :mod:`agentproto.security` — tokens and Agent Card signing.
* :mod:`agentproto.course` — notebook helpers (trace tables, quizzes, self-checks, plots).

The protocol cores are sans-I/O: time and ids are injected (see :mod:`agentproto.clock`).
Every exception the package raises is an :class:`AgentProtoError` (:mod:`agentproto.errors`).
"""

from agentproto.clock import Clock, FakeClock, IdFactory
from agentproto.errors import AgentProtoError
from agentproto.system import SystemClock, uuid_ids

__version__ = "0.1.0"

__all__ = ["AgentProtoError", "Clock", "FakeClock", "IdFactory", "SystemClock", "uuid_ids", "__version__"]
