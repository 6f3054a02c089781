"""The A2A request handler: runs agents, keeps task state, fans updates out.

Theory of operation
-------------------
:class:`A2AService` implements the eleven A2A operations (spec §3.1) over three parts that do
no network I/O of their own: an agent (:mod:`agentproto.a2a.agents`, an async generator of
updates), the task machine (:mod:`agentproto.a2a.machine`) and the store
(:mod:`agentproto.a2a._taskstore`). The JSON-RPC binding (:mod:`agentproto.a2a.jsonrpc`) calls it
with validated request models; a notebook can call it directly.

A message either names an existing task (``taskId``) or starts something new. For a new message
the service asks the agent for its first update: a :class:`~agentproto.a2a.agents.Reply` is
answered as a direct Message and no task exists; anything else creates the task in SUBMITTED
and a background *run* drives the rest of the generator. Every update goes through one
function, ``_apply``, which (1) moves the machine — refusing illegal moves — (2) updates the
task, (3) publishes the event to every open stream of the task, in one order for all (spec
§3.5.2), and (4) queues it for the task's webhooks.

Writes. A task's changes are stored, with their transitions, in one transaction whenever the
outside world can hear of them — before any answer, stream event or webhook about the task
leaves the service, before a listing reads the store, before an agent's ``Wait``, and when the
task leaves memory (:meth:`LiveTasks.save <agentproto.a2a._service_streams.LiveTasks.save>`).
So a task a client has heard of is in the store as the client heard of it, and a blocking
``SendMessage`` whose agent answers at once writes its task once (SUBMITTED, artifacts,
COMPLETED: one transaction, the context's claim included).

The three ways to wait for a result follow that one sequence of updates:

* **blocking** ``SendMessage`` waits for the first terminal *or interrupted* state (§3.2.2)
  and returns the task; with ``returnImmediately`` it returns the task as created. It waits
  on a future ``_apply`` resolves at that state (or when the task's streams end), not on the
  events: a task nobody streams or pushes builds none;
* **streaming** (``SendStreamingMessage``, ``SubscribeToTask``) yields the Task first, then the
  updates, and closes when nothing more can happen without the client (see below);
* **push** POSTs each event to the configured webhooks (:mod:`agentproto.a2a.push`).

Stream-closing rule. The spec does not say one thing here: §3.1.2 says the stream of
``SendStreamingMessage`` MUST close when the task reaches a *terminal* state (and names no
other); §11.7 (the HTTP+JSON binding's streaming section) and ``topics/streaming-and-async.md``
speak of a stream ending at a terminal *or interrupted* state; §7.6.1 says an agent waiting
for out-of-band credentials SHOULD keep AUTH_REQUIRED streams open. Our rule: a stream closes
when the task becomes terminal, or when it is interrupted *and the agent's run has ended* —
i.e. when only the client can make the next move. An agent
that announces AUTH_REQUIRED and keeps running (credentials arriving out of band, §7.6) keeps
its streams open. The client's answer to an interrupted task opens a new stream.
``SubscribeToTask`` streams are the exception: §3.1.6 ends them only at a terminal state, so
they stay open across interruptions (another client may answer meanwhile).

Ownership and tenants. Every operation takes the caller's
:class:`~agentproto.a2a.jsonrpc.CallerScope` (tenant + authenticated subject; the anonymous
scope by default). A task, its push configs and its context belong to the scope that created
them; any other scope — another subject, or the same subject in another tenant — gets
``TaskNotFoundError`` for them, exactly as for an id that does not exist (§13.1, §3.1.3 "does
not exist or is not accessible"), and ``ListTasks`` lists only the caller's tasks.

Resources a caller can make the server hold are capped: open streams per caller and per task,
events queued for a slow consumer, a stream's lifetime, open tasks per caller, the size of a
ListTasks answer (the table and the bookkeeping are in :mod:`agentproto.a2a._service_streams`),
and push configs per task (:mod:`agentproto.a2a._service_push`). A refusal is
``ResourceExhaustedError`` (or InvalidParams for push configs) raised *before* anything
changes: a ``SendMessage`` whose push config is refused leaves its task as it was.

Only one run per task exists at a time. A message for a task whose agent is still running is
refused with ``UnsupportedOperationError`` (the spec lets agents accept such messages, §3.3.3,
but does not require it). Cancel stops the run (``asyncio`` cancellation reaches the agent at
its next ``await``) and moves the task to CANCELED.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from agentproto.a2a._service_push import PushConfigs
from agentproto.a2a._service_push import scoped as _scoped
from agentproto.a2a._service_streams import (
    DEFAULT_SERVICE_LIMITS,
    LiveTask,
    LiveTasks,
    ServiceLimits,
    single,
)
from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.agents import (
    Agent,
    ArtifactChunk,
    Reply,
    RequestContext,
    Status,
    Update,
    Wait,
)
from agentproto.a2a.artifacts import fit_parts, media_type_accepted
from agentproto.a2a.cards import with_bindings
from agentproto.a2a.errors import (
    A2AError,
    ContentTypeNotSupportedError,
    ExtendedAgentCardNotConfiguredError,
    InternalError,
    InvalidAgentResponseError,
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    UnsupportedOperationError,
)
from agentproto.a2a.jsonrpc import ANONYMOUS, CallerScope
from agentproto.a2a.machine import (
    InvalidTransitionError,
    Operation,
    TaskMachine,
    Transition,
    resolve_follow_up,
)
from agentproto.a2a.push import PushNotifier
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import (
    AgentCapabilities,
    AgentCard,
    Artifact,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskArtifactUpdateEvent,
    TaskPushNotificationConfig,
    TaskStatus,
    TaskStatusUpdateEvent,
    parse_timestamp,
)
from agentproto.clock import Clock, IdSource, iso_utc
from agentproto.system import SystemClock, uuid_ids

__all__ = [
    "A2AService",
    "trim_task",
    "media_type_accepted",  # defined in artifacts, beside fit_parts, which uses it too
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
]

log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100


def trim_task(task: Task, history_length: int | None, *, include_artifacts: bool = True) -> Task:
    """Apply ``historyLength`` (spec §3.2.4) and ``includeArtifacts`` to a task for a response.

    ``None`` keeps the whole history (our server default); ``0`` drops it (the key is omitted);
    ``N`` keeps the N most recent messages.
    """
    update: dict[str, Any] = {}
    if history_length is not None:
        if history_length < 0:
            raise InvalidParamsError(
                "historyLength must be >= 0", violations=[("historyLength", "must be >= 0")]
            )
        update["history"] = task.history[-history_length:] if history_length else []
    if not include_artifacts:
        update["artifacts"] = []
    return task.model_copy(update=update) if update else task


def _fake_sleep(clock: Any) -> Callable[[float], Awaitable[None]]:
    """With a fake clock, "waiting" advances the clock and yields control once."""

    async def sleep(seconds: float) -> None:
        clock.advance(int(seconds * 1000))
        await asyncio.sleep(0)

    return sleep


class A2AService:
    """All A2A operations for one agent, over a task store, with an injected clock and ids
    (the tasks in memory, their streams, fan-out and caps are :attr:`tasks`, a
    :class:`~agentproto.a2a._service_streams.LiveTasks`; the push-config operations are
    :attr:`push_configs`, a :class:`~agentproto.a2a._service_push.PushConfigs`).

    ``sleep`` is how :class:`~agentproto.a2a.agents.Wait` is honoured; by default real
    ``asyncio.sleep`` with a real clock, and "advance the fake clock" with a
    :class:`~agentproto.clock.FakeClock` (so tests and notebooks run instantly).
    ``allow_loopback_webhooks`` lets push configs target 127.0.0.1 (teaching server only).
    """

    def __init__(
        self,
        agent: Agent,
        *,
        store: TaskStore | None = None,
        clock: Clock | None = None,
        ids: IdSource | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        push: PushNotifier | None = None,
        allow_loopback_webhooks: bool = False,
        allow_private_webhooks: bool = False,
        rpc_path: str = "/a2a",
        limits: ServiceLimits = DEFAULT_SERVICE_LIMITS,
    ) -> None:
        self.agent = agent
        self.limits = limits
        self.store = store if store is not None else TaskStore()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.ids: IdSource = ids if ids is not None else uuid_ids
        if sleep is None:
            sleep = _fake_sleep(self.clock) if hasattr(self.clock, "advance") else asyncio.sleep
        self._sleep = sleep
        self.push = push if push is not None else PushNotifier(sleep=sleep)
        self.allow_loopback_webhooks = allow_loopback_webhooks
        self.allow_private_webhooks = allow_private_webhooks
        self.rpc_path = rpc_path
        #: Where the bindings are served (set by the adapters that serve them): the REST path
        #: under the same base URL, the gRPC server's absolute URL, and the HTTP base URL last
        #: served on (from the socket, never from Host), which the gRPC binding's extended card
        #: names for the HTTP interfaces.
        self.rest_path: str | None = None
        self.grpc_url: str | None = None
        self.http_base_url: str | None = None
        self.tasks = LiveTasks(self.store, self.push, self.clock, limits)
        self.push_configs = PushConfigs(self.store, self.ids, self.push, self.tasks, self._require_push)
        self._template = agent.card("http://localhost" + rpc_path)
        self._recover()

    # ------------------------------------------------------------------ cards and capabilities

    def card(self, base_url: str = "http://127.0.0.1") -> AgentCard:
        """The Agent Card: JSON-RPC at ``base_url`` + ``rpc_path``, then REST and gRPC if served."""
        return self._bindings(self.agent.card(base_url.rstrip("/") + self.rpc_path), base_url)

    def _bindings(self, card: AgentCard, base_url: str) -> AgentCard:
        """``card`` listing every interface served (JSON-RPC, then HTTP+JSON and gRPC).

        A signed card cannot gain interfaces without breaking its signature (§8.4.1 signs the
        whole card). If the agent can sign (``agent.sign(card)``, e.g.
        :class:`agentproto.security.serving.SignedCardAgent`), the card is completed and signed
        again, so the signed card lists all interfaces; otherwise it is served byte for byte
        as its signer made it."""
        rest = base_url.rstrip("/") + self.rest_path if self.rest_path else None
        if card.signatures:
            sign = getattr(self.agent, "sign", None)
            if not callable(sign):
                return card
            bare = card.model_copy(update={"signatures": []})
            full = with_bindings(bare, rest_url=rest, grpc_url=self.grpc_url)
            if full.supported_interfaces == card.supported_interfaces:
                return card
            signed: AgentCard = sign(full)
            return signed
        return with_bindings(card, rest_url=rest, grpc_url=self.grpc_url)

    @property
    def capabilities(self) -> AgentCapabilities:
        """What the agent's card declares (streaming, push, extended card, extensions)."""
        return self._template.capabilities

    def required_extensions(self) -> list[str]:
        """URIs of extensions the card marks ``required`` (clients must activate them)."""
        return [e.uri for e in self.capabilities.extensions if e.required]

    def require_streaming(self) -> None:
        """Streaming operations need ``capabilities.streaming`` (spec §3.3.4)."""
        if not self.capabilities.streaming:
            raise UnsupportedOperationError(
                "this agent does not support streaming (capabilities.streaming is not true)"
            )

    def _require_push(self) -> None:
        if not self.capabilities.push_notifications:
            raise PushNotificationNotSupportedError(
                "this agent does not support push notifications (capabilities.pushNotifications is not true)"
            )

    async def extended_card(
        self, base_url: str = "http://127.0.0.1", scope: CallerScope = ANONYMOUS
    ) -> AgentCard:
        """``GetExtendedAgentCard``: -32004 if not declared, -32007 if declared but missing."""
        if not self.capabilities.extended_agent_card:
            raise UnsupportedOperationError(
                "this agent declares no extended card (capabilities.extendedAgentCard)"
            )
        card = self.agent.extended_card(base_url.rstrip("/") + self.rpc_path)
        if card is None:
            raise ExtendedAgentCardNotConfiguredError()
        return self._bindings(card, base_url)

    # ------------------------------------------------------------------ SendMessage

    async def send_message(self, req: SendMessageRequest, scope: CallerScope = ANONYMOUS) -> Task | Message:
        """``SendMessage``: a direct Message, or the Task (blocking unless returnImmediately)."""
        scope = _scoped(req.tenant, scope)
        cfg = req.configuration
        history_length = cfg.history_length if cfg else None
        if history_length is not None and history_length < 0:
            raise InvalidParamsError(
                "historyLength must be >= 0", violations=[("configuration.historyLength", "must be >= 0")]
            )
        immediately = cfg is not None and cfg.return_immediately
        live = await self._start(req, scope)
        if isinstance(live, Message):
            return live
        if immediately:
            self.tasks.save(live)  # answered: stored
            return trim_task(self.tasks.snapshot(live), history_length)
        answer = self.tasks.wait_for_answer(live)
        try:
            await answer
        finally:
            self.tasks.stop_waiting(live, answer)
            self.tasks.maybe_evict(live)
        self.tasks.save(live)  # answered: stored (already, at a terminal or interrupted state)
        return trim_task(self.tasks.snapshot(live), history_length)

    async def send_streaming_message(
        self, req: SendMessageRequest, scope: CallerScope = ANONYMOUS
    ) -> AsyncIterator[StreamResponse]:
        """``SendStreamingMessage``: validate now (errors raise here), then stream."""
        self.require_streaming()
        scope = _scoped(req.tenant, scope)
        known = self.tasks.live.get(req.message.task_id) if req.message.task_id else None
        self.tasks.admit_stream(scope, known if known is not None and known.scope == scope else None)
        live = await self._start(req, scope)
        if isinstance(live, Message):
            return single(StreamResponse(message=live))
        queue = self.tasks.subscribe(live)
        self.tasks.save(live)  # the stream's first event is the task: stored
        first = StreamResponse(task=self.tasks.snapshot(live))
        return self.tasks.open_stream(live, queue, first, scope)

    async def subscribe(
        self, req: SubscribeToTaskRequest, scope: CallerScope = ANONYMOUS
    ) -> AsyncIterator[StreamResponse]:
        """``SubscribeToTask``: the current Task first, then live updates (spec §3.1.6)."""
        self.require_streaming()
        scope = _scoped(req.tenant, scope)
        live = self.tasks.live_task(req.id, scope)
        live.machine.check(Operation.SUBSCRIBE)
        self.tasks.admit_stream(scope, live)
        queue = self.tasks.subscribe(live)
        live.watchers.append(queue)  # open until terminal, through interruptions (§3.1.6)
        # The first event is the Task with its current state (§3.1.6), not a copy of its whole
        # history for every watcher (F3): SUBSCRIBE_HISTORY_LENGTH messages of it.
        self.tasks.save(live)
        first = StreamResponse(
            task=trim_task(self.tasks.snapshot(live), self.limits.subscribe_history_length)
        )
        return self.tasks.open_stream(live, queue, first, scope)

    async def _start(self, req: SendMessageRequest, scope: CallerScope) -> Message | LiveTask:
        """Validate the message, get the agent's first update, create or resume the task.

        The task's run is a task of its own that has not started when this returns: a
        subscription or a snapshot taken before the caller next awaits sees the task as
        created and every update after it."""
        cfg = req.configuration
        push_cfg = cfg.task_push_notification_config if cfg else None
        self._check_message(req.message, push_cfg)
        live = self.tasks.live_task(req.message.task_id, scope) if req.message.task_id else None
        if live is not None:
            msg, ctx = self._follow_up(live, req.message, push_cfg, scope)
        else:
            msg, ctx = self._new_conversation(req.message, push_cfg, scope)
        gen = self.agent.run(ctx)
        first = await self._first_update(gen, live)
        if isinstance(first, Reply):
            await _aclose(gen)
            if live is not None:
                raise InvalidAgentResponseError(
                    "the agent answered a task with a direct Message; it must update the task"
                )
            self.store.claim_context(ctx.context_id, scope)  # (a new task claims it when saved)
            accepted = list(cfg.accepted_output_modes) if cfg else []
            return Message(
                message_id=self.ids(),
                role=Role.AGENT,
                parts=fit_parts(first.parts, accepted),
                context_id=ctx.context_id,
                metadata=first.metadata,
            )
        try:  # refusals here (the open-task quota, a push config) must close the agent's run
            if live is None:
                live = self._create_task(req, msg, scope, push_cfg)
            else:
                self._continue_task(live, msg, scope, push_cfg)
        except A2AError:
            await _aclose(gen)
            raise
        live.accepted = list(cfg.accepted_output_modes) if cfg else []
        self.tasks.live[live.task.id] = live  # (again, if it was evicted while interrupted)
        if self.tasks.webhooks(live):
            self.tasks.notify_push(live, StreamResponse(task=self.tasks.snapshot(live)))
        live.run = asyncio.get_running_loop().create_task(
            self._drive(live, gen, first), name=f"a2a-run-{live.task.id}"
        )
        return live

    def _check_message(self, msg: Message, push_cfg: TaskPushNotificationConfig | None) -> None:
        """A user's message, in media types the agent accepts, with a push config it may keep."""
        if msg.role is not Role.USER:
            raise InvalidParamsError(
                "messages sent to an agent must have role ROLE_USER",
                violations=[("message.role", "must be ROLE_USER")],
            )
        self._check_content_types(msg)
        if push_cfg is not None:
            self._require_push()
            self.push_configs.check_url(push_cfg.url)

    def _follow_up(
        self, live: LiveTask, msg: Message, push_cfg: TaskPushNotificationConfig | None, scope: CallerScope
    ) -> tuple[Message, RequestContext]:
        """The message continuing ``live`` (§3.4.3), in the task's context; refused while its
        agent is still running."""
        if push_cfg is not None:  # reads only: a refused config leaves the task as it was
            self.push_configs.check_room(push_cfg, live.task.id, scope)
        context_id = resolve_follow_up(live.task.id, live.task.context_id, live.state, msg.context_id)
        if live.running:
            raise UnsupportedOperationError(
                f"Task {live.task.id} is {live.state.value} and its agent is still "
                "running; send the next message once it asks for input",
                metadata={"taskId": live.task.id},
            )
        self._check_history_room(live)
        msg = msg.model_copy(update={"context_id": context_id})
        so_far = self.tasks.snapshot(live)
        so_far.history.append(msg)
        live.starting = True
        return msg, RequestContext(message=msg, context_id=context_id, task=so_far)

    def _check_history_room(self, live: LiveTask) -> None:
        """Refuse a follow-up to a task whose history is full (``ServiceLimits.max_task_history``).

        UnsupportedOperationError, as for a message to a task that has ended (spec §3.1.1):
        this task cannot accept further messages; the request itself is valid, and waiting
        never helps, so neither InvalidParams nor a retry-later answer fits (the limit is the
        kit's; the spec sets none)."""
        most = self.limits.max_task_history
        if len(live.task.history) >= most:
            raise UnsupportedOperationError(
                f"task {live.task.id} holds {len(live.task.history)} messages, the most this server "
                f"keeps for one task ({most}); send the next message as a new task in context "
                f"{live.task.context_id}",
                metadata={"taskId": live.task.id, "limit": "taskHistory", "max": most},
            )

    def _new_conversation(
        self, msg: Message, push_cfg: TaskPushNotificationConfig | None, scope: CallerScope
    ) -> tuple[Message, RequestContext]:
        """A message naming no task: in its context (claimed for the caller) or a new one."""
        if push_cfg is not None:  # a new task has no configs yet: this judges the config's id
            self.push_configs.check_room(push_cfg, "", scope)
        context_id = msg.context_id or self.ids()
        # Contexts are kept per caller: (tenant, owner, contextId). A client-provided id is
        # accepted (§3.4.1: agents MAY accept and preserve it) in the caller's own namespace,
        # never swapped for a generated one; another caller using the same string gets a
        # context of its own and the answer an unused id gets, so nothing reveals whether
        # someone else's context exists (§3.3.2, §13.1). The kit's model (§7.5, §13.1). The
        # claim is stored with the new task (its first save), or by a direct answer.
        msg = msg.model_copy(update={"context_id": context_id})
        return msg, RequestContext(message=msg, context_id=context_id)

    async def _first_update(self, gen: AsyncIterator[Update], live: LiveTask | None) -> Update:
        """The agent's first update; its failures as A2A errors. ``live`` (a follow-up) must
        not have been canceled meanwhile."""
        try:
            first = await anext(gen)
        except StopAsyncIteration:
            raise InvalidAgentResponseError("the agent produced nothing") from None
        except A2AError:
            raise
        except Exception as exc:
            log.exception("the agent raised before its first update")
            raise InternalError(f"the agent failed: {type(exc).__name__}: {exc}") from exc
        finally:
            if live is not None:
                live.starting = False
        if live is not None and live.machine.is_terminal:  # canceled while we waited
            await _aclose(gen)
            raise UnsupportedOperationError(
                f"Task {live.task.id} became {live.state.value} meanwhile",
                metadata={"taskId": live.task.id, "state": live.state.value},
            )
        return first

    def _create_task(
        self,
        req: SendMessageRequest,
        msg: Message,
        scope: CallerScope,
        push_cfg: TaskPushNotificationConfig | None,
    ) -> LiveTask:
        """The new task, SUBMITTED, counted against the caller's quota of open tasks."""
        self.tasks.admit_task(scope)
        msg = msg.model_copy(update={"task_id": self.ids()})
        machine = TaskMachine(msg.task_id, clock=self.clock)
        t = machine.create(TaskState.SUBMITTED, reason="message received")
        task = Task(
            id=msg.task_id,
            context_id=msg.context_id,
            status=_status(t, None),
            history=[msg],
            metadata=req.metadata,
        )
        live = LiveTask(task, machine, push_configs=[], scope=scope, claim_context=True)
        self.tasks.live[task.id] = live
        self.tasks.changed(live, (0, t))
        if push_cfg is not None:  # judged before the agent ran; a new task has room
            self.push_configs.register(push_cfg, live.task.id, scope)
        return live

    def _continue_task(
        self, live: LiveTask, msg: Message, scope: CallerScope, push_cfg: TaskPushNotificationConfig | None
    ) -> None:
        """The follow-up message joins the task's history."""
        if push_cfg is not None:  # before the message is stored: a config created meanwhile may still refuse
            self.push_configs.register(push_cfg, live.task.id, scope)
        live.task.history.append(msg)
        self.tasks.changed(live)

    def _check_content_types(self, msg: Message) -> None:
        accepted = list(self._template.default_input_modes)
        for skill in self._template.skills:
            accepted += skill.input_modes
        for i, part in enumerate(msg.parts):
            media_type = part.media_type or ("text/plain" if part.text is not None else "")
            if media_type and not media_type_accepted(media_type, accepted):
                raise ContentTypeNotSupportedError(
                    f"part {i} has media type {media_type!r}; this agent accepts "
                    f"{', '.join(dict.fromkeys(accepted))}",
                    metadata={"mediaType": media_type},
                )

    # ------------------------------------------------------------------ the run

    async def _drive(self, live: LiveTask, gen: AsyncIterator[Update], first: Update) -> None:
        """Feed the agent's updates into the task until the generator ends."""
        update: Update | None = first
        try:
            while update is not None:
                if isinstance(update, Wait):
                    self.tasks.save(live)  # a task that waits is stored as it is
                    if update.ms is None:
                        await asyncio.Event().wait()  # until canceled
                    else:
                        await self._sleep(update.ms / 1000)
                elif live.machine.is_terminal:
                    raise InvalidAgentResponseError(
                        f"the agent sent {type(update).__name__} after the task ended"
                    )
                else:
                    self._apply(live, update)
                update = await anext(gen, None)
            if not (live.machine.is_terminal or live.machine.is_interrupted):
                raise InvalidAgentResponseError(
                    f"the agent stopped while the task was {live.state.value}; "
                    "it must end in a terminal or interrupted state"
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, A2AError):
                log.warning("task %s: %s", live.task.id, exc)
            else:
                log.exception("task %s: the agent raised", live.task.id)
            if not live.machine.is_terminal:
                why = exc.message if isinstance(exc, A2AError) else f"{type(exc).__name__}: {exc}"
                self._apply(live, Status.of(TaskState.FAILED, f"Agent error: {why}"), reason="agent error")
        finally:
            live.run = None
            try:
                await gen.aclose()  # type: ignore[attr-defined]
            except Exception:  # pragma: no cover - an agent misbehaving on close
                log.exception("task %s: agent failed to close", live.task.id)
            if live.machine.is_interrupted and not live.running:
                self.tasks.close_streams(live, keep_watchers=True)
                self.tasks.maybe_evict(live)

    def _apply(self, live: LiveTask, update: Update, *, reason: str = "") -> None:
        """One update → machine, task, store, streams, webhooks (all or nothing before publish)."""
        task = live.task
        if isinstance(update, Status):
            t = live.machine.advance(update.state, reason=reason)  # may raise InvalidTransition
            message = None
            if update.parts:
                message = Message(
                    message_id=self.ids(),
                    role=Role.AGENT,
                    parts=update.parts,
                    task_id=task.id,
                    context_id=task.context_id,
                )
                task.history.append(message)
            self._stamp(live, t, message)
            if self.tasks.listened(live):
                self.tasks.publish(
                    live,
                    StreamResponse(
                        status_update=TaskStatusUpdateEvent(
                            task_id=task.id, context_id=task.context_id, status=task.status
                        )
                    ),
                )
            if live.machine.is_terminal:
                self.tasks.retire(live)
            elif live.machine.is_interrupted:
                self.tasks.answer(live)
        elif isinstance(update, ArtifactChunk):
            parts = fit_parts(update.parts, live.accepted)
            artifact = Artifact(
                artifact_id=update.artifact_id,
                name=update.name,
                description=update.description,
                parts=parts,
                metadata=update.metadata,
            )
            index = next(
                (i for i, a in enumerate(task.artifacts) if a.artifact_id == update.artifact_id), None
            )
            if index is None:
                task.artifacts.append(artifact)
            elif update.append:
                old = task.artifacts[index]
                task.artifacts[index] = old.model_copy(update={"parts": old.parts + parts})
            else:
                task.artifacts[index] = artifact
            self.tasks.changed(live)
            if self.tasks.listened(live):
                self.tasks.publish(
                    live,
                    StreamResponse(
                        artifact_update=TaskArtifactUpdateEvent(
                            task_id=task.id,
                            context_id=task.context_id,
                            artifact=artifact,
                            append=update.append,
                            last_chunk=update.last_chunk,
                        )
                    ),
                )
        elif isinstance(update, Reply):
            raise InvalidAgentResponseError("a direct Message is only allowed as the agent's first update")
        else:  # pragma: no cover - Wait is handled by the run loop
            raise InvalidAgentResponseError(f"unknown update {update!r}")

    def _stamp(self, live: LiveTask, t: Transition, message: Message | None) -> None:
        """Set the task's status from a recorded transition; both are saved together."""
        live.task.status = _status(t, message)
        self.tasks.changed(live, (len(live.machine.history) - 1, t))

    # ------------------------------------------------------------------ reads

    async def get_task(self, req: GetTaskRequest, scope: CallerScope = ANONYMOUS) -> Task:
        """``GetTask`` with ``historyLength`` (spec §3.1.3, §3.2.4)."""
        return trim_task(self.tasks.current(req.id, _scoped(req.tenant, scope)), req.history_length)

    async def list_tasks(self, req: ListTasksRequest, scope: CallerScope = ANONYMOUS) -> ListTasksResponse:
        """``ListTasks``: the caller's tasks only (spec §3.1.4, §13.1): filters, newest status
        first, cursor pages."""
        scope = _scoped(req.tenant, scope)
        size = DEFAULT_PAGE_SIZE if req.page_size is None else req.page_size
        if not 1 <= size <= MAX_PAGE_SIZE:
            raise InvalidParamsError(
                f"pageSize must be between 1 and {MAX_PAGE_SIZE}",
                violations=[("pageSize", f"1..{MAX_PAGE_SIZE}")],
            )
        if req.history_length is not None and req.history_length < 0:
            raise InvalidParamsError(
                "historyLength must be >= 0", violations=[("historyLength", "must be >= 0")]
            )
        after_ms = None
        if req.status_timestamp_after is not None:
            after_ms = int(parse_timestamp(req.status_timestamp_after).timestamp() * 1000)
        self.tasks.save_all()  # the page is read from the store
        # Reading, parsing and measuring a page of big tasks takes long: in a worker thread
        # (the store is thread-safe), so the event loop keeps serving others meanwhile (F4).
        return await asyncio.to_thread(self._list_page, req, scope, size, after_ms)

    def _list_page(
        self, req: ListTasksRequest, scope: CallerScope, size: int, after_ms: int | None
    ) -> ListTasksResponse:
        page = self.store.page(
            scope=scope,
            context_id=req.context_id,
            state=req.status,
            status_after_ms=after_ms,
            page_size=size,
            page_token=req.page_token,
        )
        include = bool(req.include_artifacts)
        history = (
            self.limits.list_default_history_length if req.history_length is None else req.history_length
        )
        tasks = [trim_task(t, history, include_artifacts=include) for t in page.tasks]
        token = page.next_page_token
        budget = self.limits.max_list_response_bytes
        used = 0
        for i, t in enumerate(tasks):
            used += len(json.dumps(t.to_wire(), ensure_ascii=False, separators=(",", ":")).encode())
            if used > budget and i > 0:  # cut the page before task i; its cursor resumes there
                tasks = tasks[:i]
                token = self.store.page(
                    scope=scope,
                    context_id=req.context_id,
                    state=req.status,
                    status_after_ms=after_ms,
                    page_size=i,
                    page_token=req.page_token,
                ).next_page_token
                break
        return ListTasksResponse(
            tasks=tasks, next_page_token=token, page_size=size, total_size=page.total_size
        )

    def timeline(self, task_id: str, scope: CallerScope = ANONYMOUS) -> list[Transition]:
        """Every transition of ``scope``'s task with its time — for plots (notebook 10)."""
        live = self.tasks.live.get(task_id)
        if live is not None and live.scope == scope:
            return list(live.machine.history)
        self.tasks.current(task_id, scope)  # TaskNotFound for an unknown task or another scope's
        return self.store.transitions(task_id)

    # ------------------------------------------------------------------ CancelTask

    async def cancel_task(self, req: CancelTaskRequest, scope: CallerScope = ANONYMOUS) -> Task:
        """``CancelTask`` (spec §3.1.5): any non-terminal task, interrupted ones included."""
        scope = _scoped(req.tenant, scope)
        live = self.tasks.live_task(req.id, scope)
        live.machine.check(Operation.CANCEL)
        run = live.run
        if run is not None and not run.done():
            run.cancel()
            await asyncio.wait([run])
        if live.machine.is_terminal:  # the agent finished first
            raise TaskNotCancelableError(
                f"Task {req.id} is in terminal state: {live.state.value}",
                metadata={"taskId": req.id, "state": live.state.value},
            )
        self._apply(
            live, Status.of(TaskState.CANCELED, "Canceled at the client's request."), reason="CancelTask"
        )
        return self.tasks.current(req.id, scope)

    # ------------------------------------------------------------------ push notification configs

    @property
    def allow_loopback_webhooks(self) -> bool:
        """May webhooks target loopback? (Kept on :attr:`push`, which judges every delivery.)"""
        return self.push.allow_loopback

    @allow_loopback_webhooks.setter
    def allow_loopback_webhooks(self, value: bool) -> None:
        self.push.allow_loopback = value

    @property
    def allow_private_webhooks(self) -> bool:
        """May webhooks target private, link-local and reserved addresses? (On :attr:`push`.)"""
        return self.push.allow_private

    @allow_private_webhooks.setter
    def allow_private_webhooks(self, value: bool) -> None:
        self.push.allow_private = value

    async def create_push_config(
        self, cfg: TaskPushNotificationConfig, scope: CallerScope = ANONYMOUS
    ) -> TaskPushNotificationConfig:
        """``CreateTaskPushNotificationConfig`` (§3.1.7; :meth:`PushConfigs.create_config`)."""
        return self.push_configs.create_config(cfg, scope)

    async def get_push_config(
        self, req: GetTaskPushNotificationConfigRequest, scope: CallerScope = ANONYMOUS
    ) -> TaskPushNotificationConfig:
        """``GetTaskPushNotificationConfig`` (§3.1.8)."""
        return self.push_configs.get_config(req, scope)

    async def list_push_configs(
        self, req: ListTaskPushNotificationConfigsRequest, scope: CallerScope = ANONYMOUS
    ) -> ListTaskPushNotificationConfigsResponse:
        """``ListTaskPushNotificationConfigs`` (§3.1.9)."""
        return self.push_configs.list_configs(req, scope)

    async def delete_push_config(
        self, req: DeleteTaskPushNotificationConfigRequest, scope: CallerScope = ANONYMOUS
    ) -> None:
        """``DeleteTaskPushNotificationConfig`` (§3.1.10): idempotent."""
        self.push_configs.delete_config(req, scope)

    # ------------------------------------------------------------------ lifecycle

    def _recover(self) -> None:
        """Tasks a previous process left SUBMITTED/WORKING have no agent any more: fail them."""
        for task, owner in self.store.tasks_in((TaskState.SUBMITTED, TaskState.WORKING)):
            live = self.tasks.live_task(task.id, owner)
            try:
                self._apply(
                    live,
                    Status.of(TaskState.FAILED, "The server restarted while this task was running."),
                    reason="server restart",
                )
            except InvalidTransitionError:  # pragma: no cover - stored history inconsistent
                log.warning("could not fail orphaned task %s", task.id)

    async def aclose(self) -> None:
        """Cancel running agents, close streams, stop push delivery."""
        runs = [live.run for live in self.tasks.live.values() if live.run is not None]
        for run in runs:
            run.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
        self.tasks.save_all()
        for live in list(self.tasks.live.values()):
            self.tasks.close_streams(live)
        await self.push.aclose()


def _status(t: Transition, message: Message | None) -> TaskStatus:
    """The status a recorded transition gives its task (with the agent's message, if any)."""
    return TaskStatus(state=t.target, message=message, timestamp=iso_utc(t.at_ms))


async def _aclose(gen: AsyncIterator[Update]) -> None:
    """Close an agent's generator (any async iterator with ``aclose``)."""
    aclose = getattr(gen, "aclose", None)
    if aclose is not None:
        await aclose()
