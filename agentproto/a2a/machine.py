"""The A2A task state machine, sans I/O.

Theory of operation
-------------------
A task is created by the server when an agent answers a message with work rather than with a
direct reply, and from then on it sits in exactly one of the eight valid ``TaskState`` values
(the ninth, ``TASK_STATE_UNSPECIFIED``, is never valid on the wire). Two things move it:

* the **agent**, which reports progress (``WORKING``), asks the client for something
  (``INPUT_REQUIRED``, ``AUTH_REQUIRED``), or finishes (``COMPLETED``, ``FAILED``, ``REJECTED``);
* the **client**, which can ask for ``CANCELED`` (``CancelTask``) or answer an interrupted task
  by sending a message with the task's ``taskId`` (and, if it sends one, the same ``contextId``).

The spec has no transition table. It states rules (A2A v1.0 spec and ``a2a.proto``):

1. Terminal states — COMPLETED, FAILED, CANCELED, REJECTED — are final. A follow-up starts a
   new task in the same context (§4.1.3 TaskState and the proto comments; §3.4.3;
   ``docs/topics/life-of-a-task.md``).
2. A message to a terminal task fails with ``UnsupportedOperationError`` (§3.1.1, §3.1.2).
3. Cancelling a terminal task fails with ``TaskNotCancelableError`` (§3.1.5); any other state,
   interrupted ones included, may be asked to cancel — success is not guaranteed (§3.1.5).
4. Subscribing to a terminal task fails with ``UnsupportedOperationError`` (§3.1.6).
5. An interrupted task (INPUT_REQUIRED, AUTH_REQUIRED) resumes when the client sends a message
   with the same ``taskId`` and ``contextId`` (§3.4.3); a message carrying only ``taskId`` gets
   the task's ``contextId`` (§3.4.2, "MUST infer"); a different ``contextId`` is rejected (the spec
   names no error; like a2a-sdk we use ``InvalidParamsError``, -32602).
6. REJECTED may happen at creation or later (proto comment on ``TASK_STATE_REJECTED``).

:data:`TRANSITIONS` is **our derived table**: the smallest table consistent with those rules,
written as data so that code, tests, docs and the notebook's state diagram all read the same
thing. ``None`` stands for "the task does not exist yet". A self-loop on WORKING is a progress
update; a self-loop on an interrupted state is the agent asking again. SUBMITTED is only ever an
entry state, and CANCELED is only reachable from an existing task (nothing to cancel before).

:class:`TaskMachine` applies the table to one task, stamping every transition with the injected
clock, so a task's life can be replayed and plotted. The clock is required: this module never
reads the system time (the service passes its clock — :class:`~agentproto.system.SystemClock`
in production, a :class:`~agentproto.clock.FakeClock` in tests and notebooks). It does no I/O
and knows nothing about JSON-RPC; the errors it raises already carry the A2A codes the server
answers with.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum

from agentproto.a2a.errors import (
    A2AError,
    InvalidAgentResponseError,
    InvalidParamsError,
    TaskNotCancelableError,
    UnsupportedOperationError,
)
from agentproto.a2a.states import ACTIVE_STATES, INTERRUPTED_STATES, TERMINAL_STATES, TaskState
from agentproto.clock import Clock

__all__ = [
    "TRANSITIONS",
    "CREATED",
    "Operation",
    "OPERATION_ERRORS",
    "Transition",
    "TaskMachine",
    "InvalidTransitionError",
    "why_refused",
    "edges",
    "ENTRY_NODE",
    "LifecycleDiagram",
    "lifecycle_diagram",
    "resolve_follow_up",
]

#: Marker for "no task yet" in :data:`TRANSITIONS` (the source of the creation transition).
CREATED = None

_S = TaskState
_ENDINGS = frozenset({_S.COMPLETED, _S.FAILED, _S.REJECTED})
_AFTER_START = frozenset({_S.WORKING, _S.INPUT_REQUIRED, _S.AUTH_REQUIRED, _S.CANCELED}) | _ENDINGS

#: DERIVED from the spec's rules (see the module docstring) — the spec itself has no table.
#: ``TRANSITIONS[source]`` is the set of states a task in ``source`` may move to next.
TRANSITIONS: dict[TaskState | None, frozenset[TaskState]] = {
    CREATED: frozenset({_S.SUBMITTED, _S.WORKING, _S.INPUT_REQUIRED, _S.AUTH_REQUIRED}) | _ENDINGS,
    _S.SUBMITTED: _AFTER_START,
    _S.WORKING: _AFTER_START,
    _S.INPUT_REQUIRED: _AFTER_START,
    _S.AUTH_REQUIRED: _AFTER_START,
    _S.COMPLETED: frozenset(),
    _S.FAILED: frozenset(),
    _S.CANCELED: frozenset(),
    _S.REJECTED: frozenset(),
}


class Operation(str, Enum):
    """The client operations whose legality depends on the task's state."""

    SEND_MESSAGE = "SendMessage"
    CANCEL = "CancelTask"
    SUBSCRIBE = "SubscribeToTask"


#: What each operation meets on a terminal task (rules 2–4). On any other state it is allowed.
OPERATION_ERRORS: dict[Operation, type[A2AError]] = {
    Operation.SEND_MESSAGE: UnsupportedOperationError,  # spec §3.1.1
    Operation.CANCEL: TaskNotCancelableError,  # spec §3.1.5
    Operation.SUBSCRIBE: UnsupportedOperationError,  # spec §3.1.6
}


class InvalidTransitionError(InvalidAgentResponseError):
    """The agent tried a move the table does not allow (answered as -32006 if it reaches a
    client: the fault is the agent's, not the caller's)."""

    def __init__(self, source: TaskState | None, target: TaskState, task_id: str = "") -> None:
        self.source = source
        self.target = target
        self.task_id = task_id
        where = f"task {task_id} " if task_id else ""
        super().__init__(
            f"{where}cannot move {_name(source)} → {_name(target)}: {why_refused(source, target)}",
            metadata={"taskId": task_id, "from": _name(source), "to": _name(target)},
        )


def _name(state: TaskState | None) -> str:
    return "(new task)" if state is None else state.value


def why_refused(source: TaskState | None, target: TaskState) -> str | None:
    """``None`` if ``source → target`` is in the table, else the rule that forbids it."""
    if target in TRANSITIONS.get(source, frozenset()):
        return None
    if target is _S.UNSPECIFIED:
        return "TASK_STATE_UNSPECIFIED is not a valid state (proto: the default, never sent)"
    if source is not None and source in TERMINAL_STATES:
        return f"{source.value} is terminal: a task never leaves a terminal state (spec §4.1.3, §3.1.1)"
    if target is _S.SUBMITTED:
        return "SUBMITTED is an entry state only; a started task does not go back to it"
    if source is None and target is _S.CANCELED:
        return "a task must exist before it can be canceled (spec §3.1.5)"
    return "not in the derived transition table"  # pragma: no cover - table covers the rest


def edges() -> Iterator[tuple[TaskState | None, TaskState]]:
    """Every allowed ``(source, target)`` pair — the edges of the state diagram."""
    for source, targets in TRANSITIONS.items():
        for target in sorted(targets, key=lambda s: list(TaskState).index(s)):
            yield source, target


#: The diagram's name for "no task yet" (``None``, :data:`CREATED`, in :data:`TRANSITIONS`).
ENTRY_NODE = "(new)"


@dataclass(frozen=True)
class LifecycleDiagram:
    """What a picture of the task lifecycle needs, read from :data:`TRANSITIONS` and the state
    sets of :mod:`agentproto.a2a.states` — so a drawing cannot disagree with the machine.

    ``nodes`` are names: :data:`ENTRY_NODE` for "no task yet", then each state's short name
    (``input-required``); ``edges`` every allowed ``(source, target)`` move in table order,
    self-loops included (progress on ``working``, asking again on an interrupted state);
    ``groups`` the nodes by kind — ``entry``, ``active``, ``interrupted``, ``terminal`` — each in
    the order of :class:`~agentproto.a2a.states.TaskState`. Layout and colours are the
    drawer's business (the course's figure: :mod:`agentproto.course.a2a_lifecycle`).

    >>> d = lifecycle_diagram()
    >>> d.groups["interrupted"], d.kind("failed")
    (('input-required', 'auth-required'), 'terminal')
    >>> ("(new)", "submitted") in d.edges and ("completed", "working") not in d.edges
    True
    """

    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    groups: Mapping[str, tuple[str, ...]]

    def kind(self, node: str) -> str:
        """``entry``, ``active``, ``interrupted`` or ``terminal``."""
        for kind, members in self.groups.items():
            if node in members:
                return kind
        raise KeyError(node)

    def to_dict(self) -> dict[str, object]:
        """The same data as JSON-ready lists: ``{"nodes", "edges", "groups"}``."""
        return {
            "nodes": list(self.nodes),
            "edges": [list(e) for e in self.edges],
            "groups": {k: list(v) for k, v in self.groups.items()},
        }

    def to_mermaid(self) -> str:
        """A Mermaid ``stateDiagram-v2`` of the same nodes and edges (for docs and READMEs):
        the entry node is ``[*]``, every terminal state gets an arrow to the end ``[*]``."""

        def ident(node: str) -> str:
            return "[*]" if node == ENTRY_NODE else node.replace("-", "_")

        lines = ["stateDiagram-v2"]
        lines += [f'    state "{n}" as {ident(n)}' for n in self.nodes if n != ENTRY_NODE and "-" in n]
        lines += [f"    {ident(a)} --> {ident(b)}" for a, b in self.edges]
        lines += [f"    {ident(t)} --> [*]" for t in self.groups["terminal"]]
        return "\n".join(lines) + "\n"


def _node(state: TaskState | None) -> str:
    return ENTRY_NODE if state is None else state.short


def lifecycle_diagram() -> LifecycleDiagram:
    """The task lifecycle's drawing data (:class:`LifecycleDiagram`), derived from the table."""

    def ordered(states: frozenset[TaskState]) -> tuple[str, ...]:
        return tuple(s.short for s in TaskState if s in states)

    groups = {
        "entry": (ENTRY_NODE,),
        "active": ordered(ACTIVE_STATES),
        "interrupted": ordered(INTERRUPTED_STATES),
        "terminal": ordered(TERMINAL_STATES),
    }
    nodes = tuple(n for members in groups.values() for n in members)
    return LifecycleDiagram(nodes, tuple((_node(a), _node(b)) for a, b in edges()), groups)


@dataclass(frozen=True)
class Transition:
    """One recorded move: ``source`` is ``None`` for the creation of the task."""

    source: TaskState | None
    target: TaskState
    at_ms: int
    reason: str = ""


@dataclass
class TaskMachine:
    """The state of one task, with its full timestamped history.

    >>> from agentproto.clock import FakeClock
    >>> m = TaskMachine("t-1", clock=FakeClock(start_ms=0))
    >>> m.create().target.short, m.advance(TaskState.WORKING).target.short
    ('submitted', 'working')
    >>> m.advance(TaskState.COMPLETED).target.is_terminal
    True
    """

    task_id: str = ""
    clock: Clock = field(kw_only=True)  #: stamps every transition; injected, never defaulted
    history: list[Transition] = field(default_factory=list)

    @property
    def state(self) -> TaskState | None:
        """The current state (``None`` before :meth:`create`)."""
        return self.history[-1].target if self.history else None

    @property
    def is_terminal(self) -> bool:
        return self.state in TERMINAL_STATES

    @property
    def is_interrupted(self) -> bool:
        return self.state in INTERRUPTED_STATES

    def allowed(self) -> frozenset[TaskState]:
        """States reachable from here in one step."""
        return TRANSITIONS[self.state]

    def can(self, target: TaskState) -> bool:
        return target in TRANSITIONS[self.state]

    def create(self, state: TaskState = TaskState.SUBMITTED, *, reason: str = "") -> Transition:
        """Bring the task into existence (conventionally in SUBMITTED)."""
        if self.history:
            raise InvalidAgentResponseError(
                f"task {self.task_id} already exists (in {_name(self.state)})",
                metadata={"taskId": self.task_id},
            )
        return self._record(state, reason)

    def advance(self, target: TaskState, *, reason: str = "") -> Transition:
        """Move to ``target`` or raise :class:`InvalidTransitionError` (state unchanged)."""
        if not self.history:
            return self.create(target, reason=reason)
        return self._record(target, reason)

    def check(self, operation: Operation) -> None:
        """Raise the spec's error if ``operation`` is not allowed on the task as it is now."""
        if self.is_terminal:
            raise OPERATION_ERRORS[operation](
                f"Task {self.task_id} is in terminal state: {self.state.value}",  # type: ignore[union-attr]
                metadata={"taskId": self.task_id, "state": self.state.value},  # type: ignore[union-attr]
            )

    @classmethod
    def restore(cls, task_id: str, history: list[Transition], clock: Clock) -> TaskMachine:
        """Rebuild a machine from a stored history (validated against the table); ``clock``
        stamps the moves made from now on."""
        machine = cls(task_id, clock=clock)
        prev: TaskState | None = None
        for t in history:
            if t.source != prev or t.target not in TRANSITIONS[prev]:
                raise InvalidTransitionError(prev, t.target, task_id)
            prev = t.target
        machine.history = list(history)
        return machine

    def _record(self, target: TaskState, reason: str) -> Transition:
        source = self.state
        if target not in TRANSITIONS[source]:
            raise InvalidTransitionError(source, target, self.task_id)
        t = Transition(source, target, self.clock.now_ms(), reason)
        self.history.append(t)
        return t


def resolve_follow_up(
    task_id: str, task_context_id: str, task_state: TaskState, message_context_id: str
) -> str:
    """Check a message that names an existing task; return the ``contextId`` it belongs to.

    Rules 2 and 5 of the module docstring: a terminal task takes no more messages
    (``UnsupportedOperationError``), a missing ``contextId`` is inferred from the task, and a
    different one is refused (``InvalidParamsError``).
    """
    if task_state in TERMINAL_STATES:
        raise UnsupportedOperationError(
            f"Task {task_id} is in terminal state: {task_state.value}; "
            "start a new task in the same context instead",
            metadata={"taskId": task_id, "state": task_state.value},
        )
    if message_context_id and message_context_id != task_context_id:
        raise InvalidParamsError(
            f"Context {message_context_id} does not match context {task_context_id} of task {task_id}",
            metadata={"taskId": task_id, "contextId": message_context_id},
            violations=[("message.contextId", "must equal the contextId of the task")],
        )
    return task_context_id
