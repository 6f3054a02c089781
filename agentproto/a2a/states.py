"""The nine A2A task states, shared by the whole kit.

Wire names are the ProtoJSON enum names of ``lf.a2a.v1.TaskState`` (A2A v1.0,
``specification/a2a.proto``). The orchestration simulations use the same enum so that the
kit speaks one vocabulary: a simulated sub-task is *working* or *input-required* in exactly the
sense an A2A task is.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["TaskState", "TERMINAL_STATES", "INTERRUPTED_STATES", "ACTIVE_STATES"]


class TaskState(str, Enum):
    """``TaskState`` as it appears on the wire (note ``CANCELED`` with one L)."""

    UNSPECIFIED = "TASK_STATE_UNSPECIFIED"
    SUBMITTED = "TASK_STATE_SUBMITTED"
    WORKING = "TASK_STATE_WORKING"
    COMPLETED = "TASK_STATE_COMPLETED"
    FAILED = "TASK_STATE_FAILED"
    CANCELED = "TASK_STATE_CANCELED"
    INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
    REJECTED = "TASK_STATE_REJECTED"
    AUTH_REQUIRED = "TASK_STATE_AUTH_REQUIRED"

    @property
    def short(self) -> str:
        """``TASK_STATE_INPUT_REQUIRED`` → ``input-required`` (the v0.3 spelling, for labels)."""
        return self.value.removeprefix("TASK_STATE_").lower().replace("_", "-")

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_STATES

    @property
    def is_interrupted(self) -> bool:
        return self in INTERRUPTED_STATES

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


#: A task in one of these states never changes again (spec §4.1.3 TaskState / proto comments).
TERMINAL_STATES = frozenset({TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED})
#: The agent is waiting for the client (more input, or credentials).
INTERRUPTED_STATES = frozenset({TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED})
#: Not terminal, not interrupted: the agent owns the next move.
ACTIVE_STATES = frozenset({TaskState.SUBMITTED, TaskState.WORKING})
