"""Streams, fan-out and resource limits of :class:`~agentproto.a2a.service.A2AService`.

Theory of operation
-------------------
The service keeps a :class:`LiveTask` in memory for every task that is not terminal (or still
has open streams): the task, its machine, its agent's run, and one queue (:data:`Subscriber`)
per consumer of its events. A blocking ``SendMessage`` waits on such a queue;
``SendStreamingMessage`` and ``SubscribeToTask`` turn one into a :class:`ClientStream`.
:meth:`LiveTasks.publish` puts each event on every queue of the task, in one order for all
(spec §3.5.2), then hands it to the task's webhooks (:mod:`agentproto.a2a.push`).

Everything a caller can make the server hold is bounded (findings F3, F4 of the 2026-12-01
attack), each by a module constant that :class:`ServiceLimits` gathers (one value per field;
pass your own to ``A2AService(limits=…)``):

===================================  =======  ==================================================
limit                                default  beyond it
===================================  =======  ==================================================
:data:`MAX_STREAMS_PER_CALLER`       32       the new stream: ``ResourceExhaustedError``
:data:`MAX_STREAMS_PER_TASK`         8        the new stream: ``ResourceExhaustedError``
:data:`MAX_QUEUED_EVENTS`            256      the lagging stream ends with ``ResourceExhausted``
:data:`MAX_STREAM_SECONDS`           3600     the stream ends cleanly (subscribe again)
:data:`SUBSCRIBE_HISTORY_LENGTH`     0        a subscription's first Task carries no history
:data:`MAX_OPEN_TASKS_PER_CALLER`    200      a new task: ``ResourceExhaustedError``
:data:`MAX_OPEN_TASKS`               10 000   a new task: ``ResourceExhaustedError``
:data:`MAX_TASK_HISTORY`             1 000    a follow-up: ``UnsupportedOperationError``
:data:`LIST_DEFAULT_HISTORY_LENGTH`  1        ListTasks without ``historyLength``
:data:`MAX_LIST_RESPONSE_BYTES`      2 MB     the ListTasks page is cut short (next token)
===================================  =======  ==================================================

``ResourceExhaustedError`` (:mod:`agentproto.a2a.errors`) is ``-32603`` with ErrorInfo reason
``RESOURCE_EXHAUSTED`` on JSON-RPC, ``429`` + ``Retry-After`` on HTTP+JSON and the gRPC status
``RESOURCE_EXHAUSTED``; it tells the client to wait :data:`RETRY_AFTER_SECONDS`.

A stream is counted against the caps from the moment it is handed out until it ends, which
:class:`ClientStream` makes happen exactly once — on its end, on an error, or on ``aclose`` by a
binding whose client went away (also for a stream nobody ever iterated). An interrupted task
that nobody runs or watches leaves memory (:meth:`LiveTasks.maybe_evict`); it stays in
the store, and the service reloads it when a client next touches it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.errors import A2AError, InternalError, ResourceExhaustedError, TaskNotFoundError
from agentproto.a2a.jsonrpc import ANONYMOUS, CallerScope
from agentproto.a2a.machine import TaskMachine, Transition
from agentproto.a2a.push import PushNotifier
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import StreamResponse, Task, TaskPushNotificationConfig
from agentproto.clock import Clock

__all__ = [
    "ServiceLimits",
    "DEFAULT_SERVICE_LIMITS",
    "MAX_STREAMS_PER_CALLER",
    "MAX_STREAMS_PER_TASK",
    "MAX_QUEUED_EVENTS",
    "MAX_STREAM_SECONDS",
    "SUBSCRIBE_HISTORY_LENGTH",
    "MAX_OPEN_TASKS_PER_CALLER",
    "MAX_OPEN_TASKS",
    "MAX_TASK_HISTORY",
    "LIST_DEFAULT_HISTORY_LENGTH",
    "MAX_LIST_RESPONSE_BYTES",
    "RETRY_AFTER_SECONDS",
    "LiveTask",
    "ClientStream",
    "LiveTasks",
    "Subscriber",
]

log = logging.getLogger("agentproto.a2a.service")  # the service's log lines keep their logger

#: Streams (SendStreamingMessage + SubscribeToTask) one caller may hold open at once.
MAX_STREAMS_PER_CALLER = 32
#: Streams one task may have open at once (all callers; only its owner can open them).
MAX_STREAMS_PER_TASK = 8
#: Events a stream's consumer may fall behind before the stream is dropped (ended with
#: ``ResourceExhaustedError``; the client can SubscribeToTask again and gets the current Task).
MAX_QUEUED_EVENTS = 256
#: A stream's maximum lifetime in seconds; then it ends cleanly and the client resubscribes.
MAX_STREAM_SECONDS = 3600.0
#: Messages of history in the first ``Task`` of a SubscribeToTask stream. The request has no
#: ``historyLength`` (a2a.proto), so §3.2.4's "unset: the server's default amount" applies;
#: ours is none — GetTask with ``historyLength`` reads the history.
SUBSCRIBE_HISTORY_LENGTH = 0
#: Non-terminal tasks one caller may have at once; the next new task gets ResourceExhausted.
MAX_OPEN_TASKS_PER_CALLER = 200
#: Non-terminal tasks of all callers together. A caller names its own tenant, so the quota
#: above alone does not bound the server: 200 per tenant name is unbounded (≈ 8.6 KB of memory
#: per live task, benchmarks/bench_memory.py: this cap bounds them near 90 MB).
MAX_OPEN_TASKS = 10_000
#: Messages of one task's history after which a follow-up message is refused (start a new task
#: in the same context). The agent's answer to the last one accepted may pass it by one turn.
#: ≈ 3.6 KB of memory per 100-character message (benchmarks/bench_memory.py); retrying never
#: helps, so the answer is UnsupportedOperationError (the task cannot accept further messages,
#: as an ended task cannot, spec §3.1.1), not "exhausted".
MAX_TASK_HISTORY = 1_000
#: Messages of history per task in a ListTasks answer when ``historyLength`` is unset (§3.2.4).
LIST_DEFAULT_HISTORY_LENGTH = 1
#: Serialized bytes of the tasks in one ListTasks answer: the page is cut short (with a
#: ``nextPageToken``) before it passes this; one task is always returned. Below gRPC's
#: default 4 MB send limit.
MAX_LIST_RESPONSE_BYTES = 2_000_000
#: What a refused caller is told to wait (ErrorInfo ``retryAfterSeconds``; REST Retry-After).
RETRY_AFTER_SECONDS = 5

#: A subscriber's queue: stream events, then ``None`` when the stream must close (or an error
#: that ends it: the consumer fell too far behind).
Subscriber = asyncio.Queue[StreamResponse | A2AError | None]


@dataclass(frozen=True)
class ServiceLimits:
    """Per-caller and per-task resource limits of ``A2AService`` (module constants)."""

    max_streams_per_caller: int = MAX_STREAMS_PER_CALLER
    max_streams_per_task: int = MAX_STREAMS_PER_TASK
    max_queued_events: int = MAX_QUEUED_EVENTS
    max_stream_seconds: float = MAX_STREAM_SECONDS
    subscribe_history_length: int = SUBSCRIBE_HISTORY_LENGTH
    max_open_tasks_per_caller: int = MAX_OPEN_TASKS_PER_CALLER
    max_open_tasks: int = MAX_OPEN_TASKS
    max_task_history: int = MAX_TASK_HISTORY
    list_default_history_length: int = LIST_DEFAULT_HISTORY_LENGTH
    max_list_response_bytes: int = MAX_LIST_RESPONSE_BYTES
    retry_after_s: int = RETRY_AFTER_SECONDS


DEFAULT_SERVICE_LIMITS = ServiceLimits()

#: The states a caller's open-task quota counts.
_OPEN_STATES = (TaskState.SUBMITTED, TaskState.WORKING, TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED)


@dataclass
class LiveTask:
    """A task the service is tracking in memory (non-terminal, or with open streams)."""

    task: Task
    machine: TaskMachine
    subscribers: list[Subscriber] = field(default_factory=list)
    run: asyncio.Task[None] | None = None
    push_configs: list[TaskPushNotificationConfig] | None = None  # cached; None = not loaded
    starting: bool = False  # a follow-up is waiting for the agent's first update
    #: The client's acceptedOutputModes for the current run (empty: anything).
    accepted: list[str] = field(default_factory=list)
    #: SubscribeToTask streams: they end only at a terminal state (spec §3.1.6), not when the
    #: task is interrupted — another client may answer it while they watch.
    watchers: list[Subscriber] = field(default_factory=list)
    #: Who owns the task: only this scope may see or touch it.
    scope: CallerScope = ANONYMOUS
    #: The queues behind client streams (SendStreamingMessage, SubscribeToTask), for the caps.
    streams: list[Subscriber] = field(default_factory=list)
    #: Changes not yet in the store (:meth:`LiveTasks.changed`): the task differs from its
    #: stored row, by these transitions ``(n, t)`` (perhaps none: an artifact, a message).
    unsaved: list[tuple[int, Transition]] | None = None
    #: A new task whose context is not yet recorded as its owner's (done by its first save).
    claim_context: bool = False
    #: Blocking ``SendMessage`` calls waiting for the task's answer (:meth:`LiveTasks.answer`).
    answers: list[asyncio.Future[None]] = field(default_factory=list)

    @property
    def state(self) -> TaskState:
        """The task's current state (a live task always has one)."""
        state = self.machine.state
        if state is None:  # pragma: no cover - LiveTask is built right after create()
            raise InternalError(f"task {self.task.id} has no state yet")
        return state

    @property
    def running(self) -> bool:
        return self.starting or (self.run is not None and not self.run.done())


class LiveTasks:
    """The tasks :class:`~agentproto.a2a.service.A2AService` holds in memory, and who listens.

    One per service. It finds a caller's task (loading it from the store when it is not in
    memory), subscribes consumers to it, fans each event out to them and to the task's
    webhooks, enforces the stream and open-task caps, and forgets an interrupted task nobody
    runs or watches."""

    def __init__(self, store: TaskStore, push: PushNotifier, clock: Clock, limits: ServiceLimits) -> None:
        self.store, self.push, self.clock, self.limits = store, push, clock, limits
        #: The tasks in memory, by id.
        self.live: dict[str, LiveTask] = {}
        #: Open client streams per caller, and open (non-terminal) tasks per caller (seeded
        #: from the store the first time a caller creates a task).
        self.streams_of: dict[CallerScope, int] = {}
        self.open_tasks: dict[CallerScope, int] = {}
        #: Open tasks of all callers (seeded from the store when the first task is admitted).
        self.open_total: int | None = None
        #: The tasks with changes not yet in the store, by id (:meth:`changed`, :meth:`save`).
        self.unsaved: dict[str, LiveTask] = {}

    # ------------------------------------------------------------------ writing to the store

    def changed(self, live: LiveTask, transition: tuple[int, Transition] | None = None) -> None:
        """Note that ``live``'s task changed (by ``transition``, if one): :meth:`save` writes it."""
        if live.unsaved is None:
            live.unsaved = []
            self.unsaved[live.task.id] = live
        if transition is not None:
            live.unsaved.append(transition)

    def save(self, live: LiveTask) -> None:
        """Write ``live``'s unsaved changes, the task and its new transitions, in one transaction
        (nothing if there are none). May raise ``TaskConflictError``; the changes stay unsaved."""
        if live.unsaved is None:
            return
        self.store.save(
            live.task,
            status_ms=live.machine.history[-1].at_ms if live.machine.history else self.clock.now_ms(),
            scope=live.scope,
            transitions=live.unsaved,
            claim_context=live.claim_context,
        )
        live.unsaved, live.claim_context = None, False
        self.unsaved.pop(live.task.id, None)

    def save_all(self) -> None:
        """Write every task's unsaved changes (before the store is read as a whole)."""
        for live in list(self.unsaved.values()):
            self.save(live)

    # ------------------------------------------------------------------ finding a task

    def snapshot(self, live: LiveTask) -> Task:
        """A copy of the live task that later updates do not change."""
        t = live.task
        return t.model_copy(update={"artifacts": list(t.artifacts), "history": list(t.history)})

    def current(self, task_id: str, scope: CallerScope) -> Task:
        """``scope``'s task as it is now, from memory or the store; TaskNotFound otherwise."""
        live = self.live.get(task_id)
        if live is not None and live.scope == scope:
            self.save(live)  # what a client is told is stored
            return self.snapshot(live)
        task = self.store.load(task_id, scope) if live is None else None
        if task is None:  # unknown, or another scope's: the same answer (§13.1)
            raise TaskNotFoundError(f"Task {task_id} not found", metadata={"taskId": task_id})
        return task

    def live_task(self, task_id: str, scope: CallerScope) -> LiveTask:
        """The in-memory record of ``scope``'s task, loaded from the store if needed."""
        live = self.live.get(task_id)
        if live is not None:
            if live.scope != scope:
                raise TaskNotFoundError(f"Task {task_id} not found", metadata={"taskId": task_id})
            return live
        task = self.store.load(task_id, scope)
        if task is None:
            raise TaskNotFoundError(f"Task {task_id} not found", metadata={"taskId": task_id})
        history = self.store.transitions(task_id)
        machine = (
            TaskMachine.restore(task_id, history, self.clock)
            if history
            else TaskMachine(task_id, clock=self.clock)
        )
        if not history:  # a task stored without transitions: adopt its current state
            machine.create(task.status.state, reason="restored")
        live = LiveTask(task, machine, scope=scope)
        if not machine.is_terminal:
            self.live[task_id] = live
        return live

    # ------------------------------------------------------------------ fan-out

    def subscribe(self, live: LiveTask) -> Subscriber:
        queue: Subscriber = asyncio.Queue()
        live.subscribers.append(queue)
        return queue

    def unsubscribe(self, live: LiveTask, queue: Subscriber) -> None:
        if queue in live.subscribers:
            live.subscribers.remove(queue)
        if queue in live.watchers:
            live.watchers.remove(queue)

    def listened(self, live: LiveTask) -> bool:
        """Does anyone hear the task's events (a queue, a webhook)? If not, they are not built."""
        return bool(live.subscribers) or bool(self.webhooks(live))

    def wait_for_answer(self, live: LiveTask) -> asyncio.Future[None]:
        """A future done when the task has an answer for a blocking ``SendMessage`` (spec
        §3.2.2): a terminal or interrupted state, or its streams' end (:meth:`answer`)."""
        answer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        live.answers.append(answer)
        return answer

    def stop_waiting(self, live: LiveTask, answer: asyncio.Future[None]) -> None:
        if answer in live.answers:
            live.answers.remove(answer)

    def answer(self, live: LiveTask) -> None:
        """Wake the blocking ``SendMessage`` calls waiting on the task."""
        for waiting in live.answers:
            if not waiting.done():
                waiting.set_result(None)
        live.answers.clear()

    def publish(self, live: LiveTask, event: StreamResponse) -> None:
        """``event`` on every queue of the task, in one order for all (§3.5.2), then to its webhooks.

        The task is saved first if the event leaves the service: on a client stream, to a
        webhook, or in a state where a blocking ``SendMessage`` answers (terminal or
        interrupted). Otherwise its changes wait for that moment, so a request whose agent
        answers at once writes its task once (:meth:`changed`)."""
        m = live.machine
        if live.streams or live.push_configs or m.is_terminal or m.is_interrupted:
            self.save(live)
        limit = self.limits.max_queued_events
        for queue in list(live.subscribers):
            if queue.qsize() >= limit:  # a consumer that does not read: drop it, free its queue
                self._drop(live, queue, limit)
            else:
                queue.put_nowait(event)
        self.notify_push(live, event)

    def _drop(self, live: LiveTask, queue: Subscriber, limit: int) -> None:
        while not queue.empty():
            queue.get_nowait()
        log.warning("task %s: a stream fell %d events behind and was dropped", live.task.id, limit)
        queue.put_nowait(
            ResourceExhaustedError(
                f"stream dropped: its consumer fell more than {limit} events behind; "
                "SubscribeToTask again for the current task",
                retry_after_s=self.limits.retry_after_s,
                metadata={"limit": "queuedEvents", "max": limit, "taskId": live.task.id},
            )
        )
        self.unsubscribe(live, queue)

    def webhooks(self, live: LiveTask) -> list[TaskPushNotificationConfig]:
        """The task's push configs (read from the store the first time)."""
        if live.push_configs is None:
            live.push_configs = self.store.push_configs(live.task.id, live.scope)
        return live.push_configs

    def notify_push(self, live: LiveTask, event: StreamResponse) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # e.g. recovery at start-up: nobody to deliver with yet
            return
        configs = self.webhooks(live)
        if configs:  # a webhook is told: the task is saved first
            self.save(live)
        for config in configs:
            self.push.enqueue(config, event)

    def close_streams(self, live: LiveTask, *, keep_watchers: bool = False) -> None:
        """End the task's streams (``keep_watchers``: all but the SubscribeToTask ones) and
        answer its blocking callers."""
        self.answer(live)
        kept = [q for q in live.subscribers if keep_watchers and q in live.watchers]
        for queue in live.subscribers:
            if queue not in kept:
                queue.put_nowait(None)
        live.subscribers[:] = kept
        live.watchers[:] = kept

    def maybe_evict(self, live: LiveTask) -> None:
        """Forget an interrupted task nobody is running or watching (F4): it stays in the store,
        and the service reloads it when a client next touches it."""
        if (
            live.machine.is_interrupted
            and not live.running
            and not live.subscribers
            and not live.answers
            and self.live.get(live.task.id) is live
        ):
            self.save(live)  # out of memory, the store is all there is
            del self.live[live.task.id]

    def retire(self, live: LiveTask) -> None:
        """A terminal task: its streams end, its webhooks retire, memory and quota let it go."""
        self.save(live)  # out of memory, the store is all there is
        self.close_streams(live)
        self.push.retire(live.task.id)
        self.live.pop(live.task.id, None)
        if live.scope in self.open_tasks:
            self.open_tasks[live.scope] = max(0, self.open_tasks[live.scope] - 1)
        if self.open_total is not None:
            self.open_total = max(0, self.open_total - 1)

    # ------------------------------------------------------------------ caps

    def admit_stream(self, scope: CallerScope, live: LiveTask | None) -> None:
        """Refuse a new stream beyond the per-caller or per-task cap (ResourceExhausted)."""
        lim = self.limits
        if self.streams_of.get(scope, 0) >= lim.max_streams_per_caller:
            raise ResourceExhaustedError(
                f"too many open streams: at most {lim.max_streams_per_caller} per caller",
                retry_after_s=lim.retry_after_s,
                metadata={"limit": "streamsPerCaller", "max": lim.max_streams_per_caller},
            )
        if live is not None and len(live.streams) >= lim.max_streams_per_task:
            raise ResourceExhaustedError(
                f"too many open streams on task {live.task.id}: at most {lim.max_streams_per_task} per task",
                retry_after_s=lim.retry_after_s,
                metadata={"limit": "streamsPerTask", "max": lim.max_streams_per_task, "taskId": live.task.id},
            )

    def open_stream(
        self, live: LiveTask, queue: Subscriber, first: StreamResponse, scope: CallerScope
    ) -> ClientStream:
        """A client stream over ``queue``: counted against the caps from now until it closes."""
        live.streams.append(queue)
        self.streams_of[scope] = self.streams_of.get(scope, 0) + 1

        def release() -> None:
            self.unsubscribe(live, queue)
            if queue in live.streams:
                live.streams.remove(queue)
            left = self.streams_of.get(scope, 0) - 1
            if left > 0:
                self.streams_of[scope] = left
            else:
                self.streams_of.pop(scope, None)
            self.maybe_evict(live)

        loop = asyncio.get_running_loop()
        return ClientStream(queue, first, release, loop.time() + self.limits.max_stream_seconds)

    def admit_task(self, scope: CallerScope) -> None:
        """Count a new task against ``scope``'s quota of open tasks and the server's, or refuse
        it (ResourceExhausted). Both are counted from the store the first time."""
        if scope not in self.open_tasks or self.open_total is None:
            self.save_all()  # counted from the store
        if scope not in self.open_tasks:
            self.open_tasks[scope] = sum(
                self.store.page(scope=scope, state=s, page_size=1).total_size for s in _OPEN_STATES
            )
        if self.open_total is None:
            self.open_total = self.store.count_in(_OPEN_STATES)
        lim = self.limits
        if self.open_tasks[scope] >= lim.max_open_tasks_per_caller:
            raise ResourceExhaustedError(
                f"too many open tasks: at most {lim.max_open_tasks_per_caller} non-terminal "
                "tasks per caller; finish or cancel one first",
                retry_after_s=lim.retry_after_s,
                metadata={"limit": "openTasksPerCaller", "max": lim.max_open_tasks_per_caller},
            )
        if self.open_total >= lim.max_open_tasks:
            raise ResourceExhaustedError(
                f"the server is busy: {lim.max_open_tasks} tasks are open; try again later",
                retry_after_s=lim.retry_after_s,
                metadata={"limit": "openTasks", "max": lim.max_open_tasks},
            )
        self.open_tasks[scope] += 1
        self.open_total += 1


class ClientStream:
    """The events of one client stream: ``first``, then ``queue`` until ``None``, an error
    (raised: the consumer was dropped), or ``deadline`` (loop time: the maximum lifetime, after
    which it ends cleanly). ``release`` runs exactly once, on the end or on ``aclose`` — also
    for a stream nobody ever iterated, which an async generator's ``finally`` would miss."""

    def __init__(
        self, queue: Subscriber, first: StreamResponse, release: Callable[[], None], deadline: float
    ) -> None:
        self._queue = queue
        self._first: StreamResponse | None = first
        self._release: Callable[[], None] | None = release
        self._deadline = deadline

    def __aiter__(self) -> ClientStream:
        return self

    async def __anext__(self) -> StreamResponse:
        if self._release is None:
            raise StopAsyncIteration
        if self._first is not None:
            first, self._first = self._first, None
            return first
        left = self._deadline - asyncio.get_running_loop().time()
        try:
            if left <= 0:
                raise TimeoutError
            item = await asyncio.wait_for(self._queue.get(), left)
        except TimeoutError:
            item = None
        except BaseException:
            await self.aclose()
            raise
        if item is None:
            await self.aclose()
            raise StopAsyncIteration
        if isinstance(item, A2AError):
            await self.aclose()
            raise item
        return item

    async def aclose(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release()


async def single(item: StreamResponse) -> AsyncIterator[StreamResponse]:
    """A stream of one event (SendStreamingMessage answered with a direct Message)."""
    yield item
