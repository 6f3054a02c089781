"""A2A v1.0 (agent ↔ agent): types, the task state machine and the JSON-RPC binding."""

from agentproto.a2a.states import INTERRUPTED_STATES, TERMINAL_STATES, TaskState

__all__ = ["TaskState", "TERMINAL_STATES", "INTERRUPTED_STATES"]
