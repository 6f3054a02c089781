"""The concierge: one request through all three protocols (notebook 12).

:class:`ConciergeAgent` is a personal-assistant agent that speaks AG-UI to its user, calls an
MCP-shaped tool server inside, and delegates trip planning to a remote A2A agent (the Travel
Desk); :func:`create_concierge_app` serves it. Every message that crosses a protocol boundary
is written to a :class:`StackLog` as a :class:`Hop`, with the id to look for when you must find
it again — the table notebook 12 prints; the sequence diagram of the same log is
:func:`agentproto.course.a2a_stack.plot_stack`.

The demo sits above both protocol packages (it imports :mod:`agentproto.agui` and
:mod:`agentproto.a2a`; neither imports it).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from collections.abc import AsyncIterator, Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.applications import Starlette

from agentproto.a2a.client import A2AClientError, A2AConnectionError, SyncA2AClient
from agentproto.a2a.errors import A2AError
from agentproto.a2a.states import INTERRUPTED_STATES, TERMINAL_STATES, TaskState
from agentproto.a2a.types import StreamResponse, Task, TaskArtifactUpdateEvent
from agentproto.agui import events as ev
from agentproto.agui._threadstore import ThreadStore
from agentproto.agui.interrupts import finish_with_interrupts
from agentproto.agui.server import agui_routes
from agentproto.clock import Clock, IdFactory, IdSource
from agentproto.demo.refund_agent import ORDER_ID_PATTERN, _user_text
from agentproto.demo.tools import FakeToolProvider, handle_jsonrpc

__all__ = ["LAYERS", "PARTIES", "Hop", "StackLog", "ANSWER_SCHEMA", "ConciergeAgent", "create_concierge_app"]

#: The three protocol layers, in the order the course draws them.
LAYERS = ("AG-UI", "MCP", "A2A")
#: The four parties a request passes through, left to right.
PARTIES = ("user", "concierge", "tools", "travel desk")

_R = TypeVar("_R")
#: A sub-generator of AG-UI events whose ``return`` value is an ``_R``.
_Events = Generator[ev.BaseEvent, None, _R]


@dataclass(frozen=True)
class Hop:
    """One message crossing one protocol boundary: who sent what to whom, and the id to look
    for when you have to find it again (the layer's *observation point*)."""

    layer: str  #: ``AG-UI``, ``MCP`` or ``A2A``
    sender: str
    receiver: str
    what: str
    observe: str = ""


class StackLog:
    """The hops of one request through the stack, in the order they happened.

    Safe to write from several threads (an AG-UI server may run agents off its event loop).
    """

    PARTIES = PARTIES

    def __init__(self) -> None:
        self.hops: list[Hop] = []
        self._lock = threading.Lock()

    def add(self, layer: str, sender: str, receiver: str, what: str, observe: str = "") -> None:
        if layer not in LAYERS or sender not in PARTIES or receiver not in PARTIES:
            raise ValueError(f"unknown layer or party in hop {layer} {sender} → {receiver}")
        with self._lock:
            self.hops.append(Hop(layer, sender, receiver, what, observe))

    def clear(self) -> None:
        with self._lock:
            self.hops.clear()

    def layers(self) -> dict[str, int]:
        """Hops per layer."""
        out = dict.fromkeys(LAYERS, 0)
        for h in self.hops:
            out[h.layer] += 1
        return out

    def table(self) -> str:
        """One line per hop: number, layer, direction, what, observation point."""
        if not self.hops:
            return "(no hops yet)"
        lines = []
        for n, h in enumerate(self.hops, start=1):
            arrow = f"{h.sender} → {h.receiver}"
            lines.append(f"{n:>2}  {h.layer:<5}  {arrow:<24}  {h.what:<44}  {h.observe}".rstrip())
        return "\n".join(lines)


#: What the concierge asks the user for when the remote agent needs input.
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "minLength": 1}},
    "required": ["answer"],
    "additionalProperties": False,
}


class ConciergeAgent:
    """A personal-assistant agent that uses all three protocols for one request.

    * **AG-UI to the user**: it is an AG-UI agent (``agent(ctx)`` yields events), served by
      :func:`agentproto.agui.server.agui_routes`;
    * **MCP inside**: it looks orders up with ``tools/call get_order``, sent as a JSON-RPC
      request through :func:`agentproto.demo.tools.handle_jsonrpc`, so the MCP wire shape is
      what travels;
    * **A2A between agents**: it delegates trip planning to the Travel Desk, discovered from
      its Agent Card, with ``SendStreamingMessage``, and relays the task's updates as an AG-UI
      *subagent* — status messages and artifact chunks become attributed text, the structured
      trip goes into shared state.

    The delegation follows AG-UI's subagent rules (spec 1.1 ``events/subagents``): the
    invocation is announced before anything is attributed to it and closed before the run
    ends — ``SUBAGENT_FINISHED`` when the A2A task completes, ``SUBAGENT_ERROR`` when it fails,
    is rejected or cannot be reached. When the remote task stops in ``INPUT_REQUIRED`` the
    invocation finishes *suspended* and the run ends with an **interrupt** carrying the remote
    agent's question; the user's answer (a ``resume``) becomes an A2A follow-up message on the
    same ``taskId`` under the same ``subagentRunId``.

    Routing is deliberately simple: an order id in the text means "look it up", the word
    "trip" means "delegate" — a real agent would let its model decide. Every hop is written to
    :attr:`log` (a :class:`StackLog`).

    The agent is an AG-UI *sync* agent (a generator), so its A2A calls use the sync client and
    block the thread that iterates it. The agent is safe to iterate on a worker thread — the
    client is created once under a lock, the log is locked, the tool provider's store is
    thread-safe — which is how a server keeps its event loop free while the remote stream is
    read; an AG-UI server that iterates agents on its event loop is blocked for as long as the
    Travel Desk takes (bounded by ``a2a_timeout_s``).
    """

    name = "concierge"

    def __init__(
        self,
        tools: Any,
        travel_url: str,
        *,
        log: StackLog | None = None,
        a2a_ids: IdSource | None = None,
        a2a_timeout_s: float = 10.0,
        max_result_chars: int = 600,
    ) -> None:
        self.tools = tools
        self.travel_url = travel_url
        self.log = log if log is not None else StackLog()
        self.a2a_ids = a2a_ids if a2a_ids is not None else IdFactory("a2a-msg")
        self.a2a_timeout_s = a2a_timeout_s
        self.max_result_chars = max_result_chars
        self._mcp_ids = itertools.count(1)
        self._client: SyncA2AClient | None = None
        self._client_lock = threading.Lock()

    # -- the AG-UI agent --------------------------------------------------------------------

    def __call__(self, ctx: Any) -> Iterator[ev.BaseEvent]:
        yield ev.RunStartedEvent(
            thread_id=ctx.thread_id, run_id=ctx.run_id, protocol_version=ev.PROTOCOL_VERSION
        )
        kind = "resume" if ctx.plan.kind == "resume" else "new run"
        self.log.add("AG-UI", "user", "concierge", f"POST /ag-ui/agent ({kind})", f"runId={ctx.run_id}")
        state = dict(ctx.state) if isinstance(ctx.state, Mapping) else {}
        if ctx.plan.kind == "resume":
            finished = yield from self._resume(ctx, state)
        else:
            finished = yield from self._start(ctx, state)
        if finished:
            return
        yield ev.StateSnapshotEvent(snapshot=state)
        yield from self._say(ctx, self._summary(state))
        result = {k: state[k] for k in ("order", "trip") if k in state}
        self._told_user("RUN_FINISHED (success)", f"runId={ctx.run_id}")
        yield ev.RunFinishedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id, result=result)

    def _start(self, ctx: Any, state: dict[str, Any]) -> _Events[bool]:
        text = _user_text(ctx.messages)
        match = ORDER_ID_PATTERN.search(text.upper())
        if match:
            yield from self._look_up(ctx, match.group(1), state)
        if "trip" in text.lower():
            return (yield from self._delegate(ctx, text, state))
        return False

    def _resume(self, ctx: Any, state: dict[str, Any]) -> _Events[bool]:
        for answer in ctx.plan.answers:
            interrupt = answer.interrupt
            meta = interrupt.get("metadata") or {}
            task_id, context_id = meta.get("a2aTaskId", ""), meta.get("a2aContextId", "")
            subagent = interrupt.get("subagentRunId") or ctx.ids()
            if answer.status == "cancelled":
                self._asked_desk("CancelTask", f"taskId={task_id}")
                canceled = self.client().cancel_task(task_id)
                self._desk_said(f"Task {canceled.status.state.short}", f"taskId={task_id}")
                state["trip"] = {"a2aTaskId": task_id, "state": canceled.status.state.short}
                yield from self._say(ctx, "Understood — I have cancelled the trip request.")
                continue
            reply = (answer.payload or {}).get("answer", "")
            if (
                yield from self._delegate(
                    ctx, reply, state, task_id=task_id, context_id=context_id, subagent=subagent
                )
            ):
                return True
        return False

    # -- MCP ----------------------------------------------------------------------------------

    def _look_up(self, ctx: Any, order_id: str, state: dict[str, Any]) -> _Events[None]:
        said = yield from self._say(ctx, f"Let me check order {order_id}.")
        call_id = ctx.ids()
        args = {"orderId": order_id}
        yield ev.ToolCallStartEvent(tool_call_id=call_id, tool_call_name="get_order", parent_message_id=said)
        yield ev.ToolCallArgsEvent(tool_call_id=call_id, delta=json.dumps(args))
        yield ev.ToolCallEndEvent(tool_call_id=call_id)
        self._told_user("TOOL_CALL_START/ARGS/END get_order", f"toolCallId={call_id}")
        request = {
            "jsonrpc": "2.0",
            "id": next(self._mcp_ids),
            "method": "tools/call",
            "params": {"name": "get_order", "arguments": args},
        }
        self.log.add("MCP", "concierge", "tools", "tools/call get_order", f"id={request['id']}")
        response = handle_jsonrpc(self.tools, request)
        if "error" in response:
            error = response["error"]
            content, ok = f"error {error['code']}: {error['message']}", False
            self.log.add(
                "MCP", "tools", "concierge", f"JSON-RPC error {error['code']}", f"id={request['id']}"
            )
        else:
            result = response["result"]
            ok = not result.get("isError")
            content = "\n".join(b.get("text", "") for b in result.get("content", []))
            self.log.add(
                "MCP", "tools", "concierge", f"result (isError={str(not ok).lower()})", f"id={request['id']}"
            )
        if len(content) > self.max_result_chars:
            content = content[: self.max_result_chars] + "…"
        yield ev.ToolCallResultEvent(message_id=ctx.ids(), tool_call_id=call_id, content=content, role="tool")
        self._told_user("TOOL_CALL_RESULT", f"toolCallId={call_id}")
        if ok:
            order = result["structuredContent"]
            state["order"] = {
                k: order[k]
                for k in ("orderId", "status", "shippedAt", "deliveredAt", "carrier")
                if k in order
            }
        else:
            state["order"] = {"orderId": order_id, "error": content}

    # -- A2A ----------------------------------------------------------------------------------

    def client(self) -> SyncA2AClient:
        """The A2A client, discovered from the Travel Desk's card on first use."""
        with self._client_lock:
            if self._client is None:
                self._asked_desk("GET /.well-known/agent-card.json")
                client = SyncA2AClient.discover(self.travel_url, ids=self.a2a_ids)
                card = client.card
                assert card is not None  # discover() always binds the card it read
                itf = card.supported_interfaces[0]
                self._desk_said(f"Agent Card: {card.name}", f"{itf.protocol_binding} {itf.protocol_version}")
                self._client = client
            return self._client

    def close(self) -> None:
        """Close the A2A client (a new one is discovered on the next delegation)."""
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _delegate(
        self,
        ctx: Any,
        content: str,
        state: dict[str, Any],
        *,
        task_id: str = "",
        context_id: str = "",
        subagent: str = "",
    ) -> _Events[bool]:
        """Send ``content`` to the Travel Desk and relay its task; True if the run ended."""
        open_text: dict[str, str] = {}
        said = yield from self._say(
            ctx,
            "Asking the Travel Desk, a remote A2A agent, to plan the trip."
            if not task_id
            else "Passing your answer on to the Travel Desk.",
        )
        subagent = subagent or ctx.ids()
        yield ev.SubagentStartedEvent(
            subagent_run_id=subagent,
            name="Travel Desk",
            description="A2A task on a remote agent",
            parent_message_id=said,
        )
        self._told_user("SUBAGENT_STARTED Travel Desk", f"subagentRunId={subagent}")
        what = "SendStreamingMessage" + (" (follow-up)" if task_id else "")
        try:
            client = self.client()
            self._asked_desk(what, f"taskId={task_id}" if task_id else "")
            stream = client.stream(
                content, task_id=task_id or None, context_id=context_id or None, timeout=self.a2a_timeout_s
            )
            return (yield from self._relay_stream(ctx, stream, subagent, open_text, state))
        except (A2AError, A2AClientError) as exc:
            yield from self._subagent_failed(exc, subagent, open_text, state)
        return False

    def _relay_stream(
        self,
        ctx: Any,
        stream: Generator[StreamResponse, None, None],
        subagent: str,
        open_text: dict[str, str],
        state: dict[str, Any],
    ) -> _Events[bool]:
        """Relay the A2A stream's events as the subagent's until it settles; True if the run ended."""
        task: Task | None = None
        last_state: TaskState | None = None
        for event in stream:
            if event.message is not None:  # a direct reply: no task
                self._desk_said("Message (no task)")
                yield from self._say(ctx, event.message.text, subagent=subagent)
                if task is None:  # the direct-message case
                    yield ev.SubagentFinishedEvent(subagent_run_id=subagent)
                return False
            if event.task is not None:
                task = event.task
                self._desk_said(
                    f"Task {task.status.state.short}", f"taskId={task.id} contextId={task.context_id}"
                )
                continue
            if event.artifact_update is not None:
                yield from self._relay_artifact(ctx, event.artifact_update, subagent, open_text, state)
                continue
            if event.status_update is None or task is None:
                raise A2AClientError(f"unexpected {event.kind} before the Task")
            status = event.status_update.status
            if status.state is not last_state:
                last_state = status.state
                self._desk_said(f"statusUpdate {status.state.short}", f"taskId={task.id}")
            words = status.message.text if status.message is not None else ""
            if status.state in INTERRUPTED_STATES:
                stream.close()
                yield from self._suspend(ctx, subagent, task, status.state, words, state)
                return True
            if status.state in TERMINAL_STATES:
                yield from self._settle(subagent, task, status.state, words, state)
                return False
            if words:
                yield from self._say(ctx, words, subagent=subagent)
        if task is None:
            raise A2AClientError("the stream ended before the Task arrived")
        raise A2AClientError(f"the stream of task {task.id} ended unsettled")

    def _suspend(
        self, ctx: Any, subagent: str, task: Task, task_state: TaskState, words: str, state: dict[str, Any]
    ) -> _Events[None]:
        """The remote task needs input: finish the subagent suspended and the run with an interrupt."""
        interrupt_id = ctx.ids()
        yield ev.SubagentFinishedEvent(
            subagent_run_id=subagent,
            outcome={"type": "suspended", "interruptIds": [interrupt_id]},
        )
        self._told_user("SUBAGENT_FINISHED (suspended)", f"subagentRunId={subagent}")
        interrupt = {
            "id": interrupt_id,
            "reason": "input_required",
            "message": f"The Travel Desk asks: {words}",
            "responseSchema": ANSWER_SCHEMA,
            "subagentRunId": subagent,
            "metadata": {
                "a2aTaskId": task.id,
                "a2aContextId": task.context_id,
                "a2aState": task_state.value,
            },
        }
        state["trip"] = {"a2aTaskId": task.id, "state": task_state.short}
        self._told_user("RUN_FINISHED (interrupt)", f"interruptId={interrupt_id}")
        yield from finish_with_interrupts(
            ctx.thread_id, ctx.run_id, [interrupt], state=state, messages=ctx.messages
        )

    def _settle(
        self, subagent: str, task: Task, task_state: TaskState, words: str, state: dict[str, Any]
    ) -> _Events[None]:
        """The remote task ended: close the subagent (finished if completed, else an error)."""
        if task_state is TaskState.COMPLETED:
            yield ev.SubagentFinishedEvent(
                subagent_run_id=subagent,
                result={"a2aTaskId": task.id, "state": task_state.short},
            )
            self._told_user("SUBAGENT_FINISHED", f"subagentRunId={subagent}")
        else:
            yield ev.SubagentErrorEvent(
                subagent_run_id=subagent,
                message=words or task_state.short,
                code=f"A2A_{task_state.name}",
            )
            self._told_user(f"SUBAGENT_ERROR A2A_{task_state.name}", f"subagentRunId={subagent}")
        trip = state.get("trip") or {}
        trip.update({"a2aTaskId": task.id, "state": task_state.short})
        state["trip"] = trip

    def _subagent_failed(
        self, exc: Exception, subagent: str, open_text: dict[str, str], state: dict[str, Any]
    ) -> _Events[None]:
        """The Travel Desk failed, rejected or could not be reached: close the subagent with an error."""
        for message_id in open_text.values():  # close what the broken stream left open
            yield ev.TextMessageEndEvent(message_id=message_id)
        code = "A2A_UNREACHABLE" if isinstance(exc, A2AConnectionError) else f"A2A_{type(exc).__name__}"
        self._desk_said(f"✗ {type(exc).__name__}")
        yield ev.SubagentErrorEvent(subagent_run_id=subagent, message=str(exc), code=code)
        self._told_user(f"SUBAGENT_ERROR {code}", f"subagentRunId={subagent}")
        state["trip"] = {"error": code}

    def _relay_artifact(
        self,
        ctx: Any,
        update: TaskArtifactUpdateEvent,
        subagent: str,
        open_text: dict[str, str],
        state: dict[str, Any],
    ) -> _Events[None]:
        """Text artifacts become one attributed message (chunks → deltas); data → state."""
        artifact = update.artifact
        text = artifact.text
        if text:
            message_id = open_text.get(artifact.artifact_id)
            if message_id is None or not update.append:
                message_id = open_text[artifact.artifact_id] = ctx.ids()
                yield ev.TextMessageStartEvent(
                    message_id=message_id, role="assistant", subagent_run_id=subagent
                )
            yield ev.TextMessageContentEvent(message_id=message_id, delta=text)
            if update.last_chunk:
                yield ev.TextMessageEndEvent(message_id=message_id)
                del open_text[artifact.artifact_id]
                self._desk_said(
                    f"artifact {artifact.name or artifact.artifact_id} (text)",
                    f"artifactId={artifact.artifact_id}",
                )
        for data in artifact.data:
            state["trip"] = {**(state.get("trip") or {}), "plan": data}
            yield ev.StateSnapshotEvent(snapshot=state, subagent_run_id=subagent)
            self._desk_said(
                f"artifact {artifact.name or artifact.artifact_id} (data)",
                f"artifactId={artifact.artifact_id}",
            )

    # -- small helpers ---------------------------------------------------------------------------
    def _told_user(self, what: str, observe: str = "") -> None:
        """Log an AG-UI hop from the concierge to the user."""
        self.log.add("AG-UI", "concierge", "user", what, observe)

    def _asked_desk(self, what: str, observe: str = "") -> None:
        """Log an A2A hop from the concierge to the travel desk."""
        self.log.add("A2A", "concierge", "travel desk", what, observe)

    def _desk_said(self, what: str, observe: str = "") -> None:
        """Log an A2A hop from the travel desk back to the concierge."""
        self.log.add("A2A", "travel desk", "concierge", what, observe)

    def _say(self, ctx: Any, text: str, *, subagent: str | None = None) -> _Events[str]:
        """One complete assistant text message; returns its id."""
        message_id: str = ctx.ids()
        yield ev.TextMessageStartEvent(message_id=message_id, role="assistant", subagent_run_id=subagent)
        yield ev.TextMessageContentEvent(message_id=message_id, delta=text)
        yield ev.TextMessageEndEvent(message_id=message_id)
        return message_id

    @staticmethod
    def _summary(state: Mapping[str, Any]) -> str:
        parts = []
        order = state.get("order")
        if order and "error" not in order:
            when = (order.get("deliveredAt") or order.get("shippedAt") or "")[:10]
            parts.append(
                f"Order {order['orderId']}: {order['status']}"
                + (f" on {when} with {order['carrier']}" if when else "")
                + "."
            )
        elif order:
            parts.append(f"I could not look up order {order['orderId']}: {order['error']}")
        trip = state.get("trip")
        if trip and trip.get("plan"):
            plan = trip["plan"]
            parts.append(
                f"Your trip to {plan['flight']['to']} is planned: flight "
                f"{plan['flight']['flight']}, {plan['hotel']['name']}, "
                f"{plan['hotel']['nights']} nights."
            )
        elif trip and trip.get("error"):
            parts.append(f"The Travel Desk could not be used ({trip['error']}).")
        elif trip:
            parts.append(f"The Travel Desk's task ended {trip.get('state')}.")
        return " ".join(parts) or "There was nothing for me to do."


def create_concierge_app(
    travel_url: str,
    *,
    tools: Any = None,
    clock: Clock | None = None,
    ids: IdSource | None = None,
    a2a_ids: IdSource | None = None,
    log: StackLog | None = None,
) -> Starlette:
    """A Starlette app serving :class:`ConciergeAgent` over AG-UI (``POST /ag-ui/agent`` …).

    ``app.state``: ``concierge`` (the agent, whose ``log`` is the :class:`StackLog`),
    ``tools`` (the MCP-shaped provider — inject faults there), ``store``. The agent's A2A
    client is closed when the app shuts down.
    """
    store = ThreadStore(":memory:", clock=clock)
    tools = tools if tools is not None else FakeToolProvider(store, clock=clock)
    agent = ConciergeAgent(tools, travel_url, a2a_ids=a2a_ids, log=log)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        agent.close()

    app = Starlette(routes=agui_routes(store, agent, clock=clock, ids=ids), lifespan=lifespan)
    app.state.concierge = agent
    app.state.tools = tools
    app.state.store = store
    return app
