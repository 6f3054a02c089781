"""The order-refund agent: the course's running example of a human-approved tool call.

A customer writes "check order A1024 and refund it if shipped". The agent looks the order up,
proposes a refund, and — because refunds move money — *ends the run* asking a person to approve
it. The person's answer arrives in the next run's ``resume``, and only then does the refund
happen, exactly once.

Theory of operation
-------------------
The agent is a plain generator: given a :class:`~agentproto.agui.runner.RunContext` it yields
AG-UI events; it never touches a socket, a clock or a random number generator (the context
carries the injected clock and id factory). The server's run driver feeds it, records what it
yields and turns crashes into ``RUN_ERROR``.

First run (``plan.kind == "new"``)::

    RUN_STARTED
    STEP understand_request
    TEXT "Let me look up order A1024."
      TOOL_CALL get_order START/ARGS/END → tools/call → TOOL_CALL_RESULT
    TEXT "Order A1024 shipped … I need your approval."
      TOOL_CALL refund_order START/ARGS/END          ← the proposed arguments (audit part 1)
    STATE_SNAPSHOT, MESSAGES_SNAPSHOT                 ← what a resumer needs
    RUN_FINISHED outcome=interrupt{reason: tool_call, toolCallId, responseSchema, expiresAt}

Resumed run (``plan.kind == "resume"``), one branch per answer (audit part 2 is the payload)::

    approved   → tools/call refund_order with the proposed arguments — or with ``editedArgs``,
                 which replaces them in full (only amountCents/reason may differ) —
                 (idempotencyKey = refund:<thread>:<interrupt>)
                 TOOL_CALL_RESULT on the ORIGINAL toolCallId (no new START/ARGS/END) — part 3
                 TEXT "Refunded …", RUN_FINISHED success
    denied     → TOOL_CALL_RESULT {"executed": false, "reason": "denied"}, TEXT, success
    cancelled  → TOOL_CALL_RESULT {"executed": false, "reason": "cancelled"}, success

Answering the proposed call with a "not executed" result on denial and cancellation keeps the
conversation well formed for a model (every tool call has a result) without pretending the
refund ran. Tool trouble follows the error-handling matrix of notebook 08: a timeout or a
business error becomes an ``isError``-style result plus an explanation, never a lost run; an
oversize result is truncated and flagged in the event's ``metadata``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from agentproto.agui import events as ev
from agentproto.agui.interrupts import finish_with_interrupts, tool_approval_interrupt
from agentproto.clock import iso_utc
from agentproto.demo.tools import ToolProvider, ToolTimeout, result_text, truncate_result_text

__all__ = ["RefundAgent", "ORDER_ID_PATTERN", "format_cents", "refund_idempotency_key"]

#: How the agent spots an order id in free text: one capital letter and four digits.
ORDER_ID_PATTERN = re.compile(r"\b([A-Z][0-9]{4})\b")

#: Arguments that may differ from the proposal when a reviewer approves with edits. The edit
#: itself is the whole argument object (``editedArgs`` is a full replacement).
EDITABLE_ARGS = frozenset({"amountCents", "reason"})
_ABSENT = object()

_R = TypeVar("_R")
#: A sub-generator of AG-UI events whose ``return`` value is an ``_R``.
_Events = Generator[ev.BaseEvent, None, _R]


def format_cents(cents: int, currency: str = "USD") -> str:
    """``12800`` → ``"128.00 USD"``."""
    return f"{cents // 100}.{cents % 100:02d} {currency}"


def refund_idempotency_key(thread_id: str, interrupt_id: str) -> str:
    """The downstream idempotency key of the refund an interrupt approves.

    Derived from the thread and the interrupt, not from the run: every run that carries the
    same approval — a retry, a duplicate click, a replay after a crash — names the same refund.
    """
    return f"refund:{thread_id}:{interrupt_id}"


def _user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text of the thread's latest user message (text parts joined), or ``""``."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        return " ".join(p.get("text", "") for p in content or [] if p.get("type") == "text")
    return ""


def _awaits_reply(messages: list[dict[str, Any]]) -> bool:
    """True when the thread's latest message is the user's: a request the agent has not answered."""
    return bool(messages) and messages[-1].get("role") == "user"


def _proposed_args(messages: list[dict[str, Any]], tool_call_id: str) -> dict[str, Any] | None:
    """The arguments of the call ``tool_call_id`` as the thread's messages recorded them."""
    for message in messages:
        for call in message.get("toolCalls") or []:
            if call.get("id") == tool_call_id:
                try:
                    return json.loads(call["function"]["arguments"])
                except (KeyError, ValueError):
                    return None
    return None


class RefundAgent:
    """The demo agent behind ``POST /ag-ui/agent`` (see the module docstring for the flow)."""

    name = "refund"

    def __init__(
        self,
        tools: ToolProvider,
        *,
        approval_ttl_ms: int = 15 * 60 * 1000,
        max_result_chars: int = 4_000,
        words_per_delta: int = 3,
    ) -> None:
        self.tools = tools
        self.approval_ttl_ms = approval_ttl_ms
        self.max_result_chars = max_result_chars
        self.words_per_delta = max(1, words_per_delta)

    # -- the generator the server drives ---------------------------------------------------

    def __call__(self, ctx: Any) -> Iterator[ev.BaseEvent]:
        yield ev.RunStartedEvent(
            thread_id=ctx.thread_id, run_id=ctx.run_id, protocol_version=ev.PROTOCOL_VERSION
        )
        if ctx.plan.kind == "resume":
            yield from self._resume(ctx)
        elif ctx.input.resume and not _awaits_reply(ctx.messages):
            yield from self._nothing_to_resume(ctx)
        else:
            yield from self._start(ctx)

    def _nothing_to_resume(self, ctx: Any) -> Iterator[ev.BaseEvent]:
        """An input that only carried answers, none of them to an open interrupt.

        The server dropped every entry (spec 1.1 ``basic/patterns/interrupt-resume``: the run
        SHOULD proceed without an unrecognised entry) and told the client so in its warning
        event. Proceeding here means saying there is nothing to act on — not re-reading the
        thread's old request and proposing the refund all over again.
        """
        ignored = [n.interrupt_id for n in ctx.plan.notices if n.interrupt_id]
        yield from self._say(
            ctx,
            "There is no open question for that answer, so I have nothing to act on; nothing was changed.",
        )
        yield ev.RunFinishedEvent(
            thread_id=ctx.thread_id, run_id=ctx.run_id, result={"decisions": [], "ignored": ignored}
        )

    # -- small event helpers ---------------------------------------------------------------

    def _say(self, ctx: Any, text: str, message_id: str | None = None) -> Iterator[ev.BaseEvent]:
        """A complete assistant text message, streamed a few words per delta."""
        message_id = message_id or ctx.ids()
        yield ev.TextMessageStartEvent(message_id=message_id, role="assistant")
        words = text.split(" ")
        step = self.words_per_delta
        for i in range(0, len(words), step):
            chunk = " ".join(words[i : i + step]) + (" " if i + step < len(words) else "")
            yield ev.TextMessageContentEvent(message_id=message_id, delta=chunk)
        yield ev.TextMessageEndEvent(message_id=message_id)

    def _propose_call(
        self, tool_call_id: str, name: str, args: Mapping[str, Any], parent_message_id: str
    ) -> Iterator[ev.BaseEvent]:
        yield ev.ToolCallStartEvent(
            tool_call_id=tool_call_id, tool_call_name=name, parent_message_id=parent_message_id
        )
        yield ev.ToolCallArgsEvent(
            tool_call_id=tool_call_id, delta=json.dumps(dict(args), separators=(",", ":"))
        )
        yield ev.ToolCallEndEvent(tool_call_id=tool_call_id)

    def _call(
        self, ctx: Any, tool_call_id: str, name: str, args: Mapping[str, Any]
    ) -> tuple[ev.ToolCallResultEvent, dict[str, Any]]:
        """Run a tool through the provider; return the TOOL_CALL_RESULT and the MCP result."""
        try:
            result = self.tools.call_tool(name, args)
        except ToolTimeout as exc:
            result = {
                "content": [{"type": "text", "text": str(exc)}],
                "isError": True,
                "structuredContent": {"error": "timeout", "message": str(exc)},
            }
        # a UI should not receive hundreds of kilobytes: cut, and say what was cut
        text, metadata = truncate_result_text(result_text(result), self.max_result_chars)
        event = ev.ToolCallResultEvent(
            message_id=ctx.ids(), tool_call_id=tool_call_id, content=text, role="tool", metadata=metadata
        )
        return event, result

    @staticmethod
    def _order_summary(order: Mapping[str, Any]) -> dict[str, Any]:
        keys = ("orderId", "customer", "status", "totalCents", "refundedCents", "currency")
        return {k: order[k] for k in keys if k in order}

    # -- first run: look up, propose, ask ----------------------------------------------------

    def _start(self, ctx: Any) -> Iterator[ev.BaseEvent]:
        yield ev.StepStartedEvent(step_name="understand_request")
        match = ORDER_ID_PATTERN.search(_user_text(ctx.messages).upper())
        yield ev.StepFinishedEvent(step_name="understand_request")
        if match is None:
            yield from self._say(ctx, "Which order should I look at? Give me its id, for example A1024.")
            yield ev.RunFinishedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id)
            return
        order_id = match.group(1)
        result = yield from self._look_up(ctx, order_id)
        if result.get("isError"):
            yield from self._lookup_failed(ctx, order_id, result)
            return
        order = result["structuredContent"]
        left = order["totalCents"] - order.get("refundedCents", 0)
        if order["status"] not in ("shipped", "delivered") or left <= 0:
            yield from self._no_refund(ctx, order_id, order)
            return
        refund_call_id, args = yield from self._propose_refund(ctx, order_id, order, left)
        yield from self._ask_approval(ctx, order_id, order, refund_call_id, args)

    def _look_up(self, ctx: Any, order_id: str) -> _Events[dict[str, Any]]:
        """Step ``look_up_order``: announce and run ``get_order``; return the MCP result."""
        yield ev.StepStartedEvent(step_name="look_up_order")
        intro_id = ctx.ids()
        yield from self._say(ctx, f"Let me look up order {order_id}.", intro_id)
        lookup_id = ctx.ids()
        yield from self._propose_call(lookup_id, "get_order", {"orderId": order_id}, intro_id)
        result_event, result = self._call(ctx, lookup_id, "get_order", {"orderId": order_id})
        yield result_event
        yield ev.StepFinishedEvent(step_name="look_up_order")
        return result

    def _lookup_failed(self, ctx: Any, order_id: str, result: Mapping[str, Any]) -> Iterator[ev.BaseEvent]:
        """The lookup failed (a timeout or a business error): explain and finish the run."""
        problem = (result.get("structuredContent") or {}).get("error")
        yield ev.StateSnapshotEvent(
            snapshot={"orderId": order_id, "stage": "lookup_failed", "error": problem}
        )
        advice = (
            "The order service did not answer in time; please try again in a minute."
            if problem == "timeout"
            else f"I could not look that order up: {result_text(result)}"
        )
        yield from self._say(ctx, advice)
        yield ev.RunFinishedEvent(
            thread_id=ctx.thread_id, run_id=ctx.run_id, result={"orderId": order_id, "error": problem}
        )

    def _no_refund(self, ctx: Any, order_id: str, order: Mapping[str, Any]) -> Iterator[ev.BaseEvent]:
        """The order has nothing left to refund: say why and finish the run."""
        currency = order.get("currency", "USD")
        reasons = {
            "processing": f"Order {order_id} has not shipped yet, so there is nothing to "
            f"refund; it can still be cancelled instead.",
            "cancelled": f"Order {order_id} was cancelled and never charged; there is nothing to refund.",
            "refunded": f"Order {order_id} has already been refunded in full "
            f"({format_cents(order.get('refundedCents', 0), currency)}).",
        }
        yield ev.StateSnapshotEvent(
            snapshot={"orderId": order_id, "order": self._order_summary(order), "stage": "no_refund"}
        )
        yield from self._say(
            ctx,
            reasons.get(order["status"], f"Order {order_id} is {order['status']}; it cannot be refunded."),
        )
        yield ev.RunFinishedEvent(
            thread_id=ctx.thread_id, run_id=ctx.run_id, result={"orderId": order_id, "refundable": False}
        )

    def _propose_refund(
        self, ctx: Any, order_id: str, order: Mapping[str, Any], left: int
    ) -> _Events[tuple[str, dict[str, Any]]]:
        """Step ``propose_refund``: the proposal text and call; return its tool call id and args."""
        yield ev.StepStartedEvent(step_name="propose_refund")
        proposal_id = ctx.ids()
        when = order.get("deliveredAt") or order.get("shippedAt") or ""
        verb = "was delivered" if order["status"] == "delivered" else "shipped"
        yield from self._say(
            ctx,
            f"Order {order_id} {verb} on {when[:10]}. I can refund "
            f"{format_cents(left, order.get('currency', 'USD'))} to {order.get('customer', 'the customer')}, "
            f"but a refund needs your approval first.",
            proposal_id,
        )
        refund_call_id = ctx.ids()
        args = {"orderId": order_id, "amountCents": left, "reason": "customer request"}
        yield from self._propose_call(refund_call_id, "refund_order", args, proposal_id)
        yield ev.StepFinishedEvent(step_name="propose_refund")
        return refund_call_id, args

    def _ask_approval(
        self, ctx: Any, order_id: str, order: Mapping[str, Any], refund_call_id: str, args: dict[str, Any]
    ) -> Iterator[ev.BaseEvent]:
        """End the run with the approval interrupt, after the snapshots a resumer needs."""
        interrupt_id = ctx.ids()
        expires_at = iso_utc(ctx.now_ms() + self.approval_ttl_ms)
        interrupt = tool_approval_interrupt(
            interrupt_id,
            refund_call_id,
            f"Refund {format_cents(args['amountCents'], order.get('currency', 'USD'))} for order {order_id}?",
            expires_at=expires_at,
            metadata={"toolName": "refund_order", "proposedArgs": args},
        )
        state = {
            "orderId": order_id,
            "order": self._order_summary(order),
            "stage": "awaiting_approval",
            "proposedRefund": args,
            "pendingInterruptId": interrupt_id,
        }
        # The snapshots go out before the interrupting RUN_FINISHED: the AG-UI concepts page's
        # practice ("State at the interrupt boundary"), which spec 1.1 does not restate.
        yield from finish_with_interrupts(
            ctx.thread_id, ctx.run_id, [interrupt], state=state, messages=ctx.messages
        )

    # -- resumed run: act on the decision -------------------------------------------------------

    def _resume(self, ctx: Any) -> Iterator[ev.BaseEvent]:
        state = dict(ctx.state) if isinstance(ctx.state, Mapping) else {}
        outcomes = []
        for answer in ctx.plan.answers:
            interrupt = answer.interrupt
            tool_call_id = interrupt.get("toolCallId")
            proposed = (
                _proposed_args(ctx.messages, tool_call_id)
                or (interrupt.get("metadata") or {}).get("proposedArgs")
                or {}
            )
            payload = answer.payload if isinstance(answer.payload, Mapping) else {}
            if answer.status == "cancelled" or not payload.get("approved"):
                outcome = yield from self._decline(ctx, answer, tool_call_id, proposed, payload, state)
            else:
                outcome = yield from self._execute_refund(ctx, answer, tool_call_id, proposed, payload, state)
            outcomes.append(outcome)
        state.pop("pendingInterruptId", None)
        yield ev.StateSnapshotEvent(snapshot=state)
        yield ev.RunFinishedEvent(thread_id=ctx.thread_id, run_id=ctx.run_id, result={"decisions": outcomes})

    def _decline(
        self,
        ctx: Any,
        answer: Any,
        tool_call_id: str,
        proposed: Mapping[str, Any],
        payload: Mapping[str, Any],
        state: dict[str, Any],
    ) -> _Events[dict[str, Any]]:
        """Denied or cancelled: answer the proposed call "not executed"; return the outcome."""
        order_id = proposed.get("orderId", "?")
        reason = "cancelled" if answer.status == "cancelled" else "denied"
        body = {"executed": False, "reason": reason}
        if payload.get("comment"):
            body["comment"] = payload["comment"]
        yield ev.ToolCallResultEvent(
            message_id=ctx.ids(),
            tool_call_id=tool_call_id,
            content=json.dumps(body, separators=(",", ":")),
            role="tool",
        )
        text = (
            f"Okay, I have left order {order_id} alone; nothing was refunded."
            if reason == "cancelled"
            else f"Understood: no refund for order {order_id}. It stays as it is."
        )
        yield from self._say(ctx, text)
        state.update(stage=reason, decision=reason)
        return {"interruptId": answer.interrupt_id, "decision": reason}

    def _execute_refund(
        self,
        ctx: Any,
        answer: Any,
        tool_call_id: str,
        proposed: Mapping[str, Any],
        payload: Mapping[str, Any],
        state: dict[str, Any],
    ) -> _Events[dict[str, Any]]:
        """Approved: step ``execute_refund`` on the original call, then report; return the outcome."""
        order_id = proposed.get("orderId", "?")
        # ``editedArgs`` is the FULL replacement of the proposed arguments, "not a partial
        # merge" (concepts/interrupts, "Approve with edits"): the agent runs what the
        # reviewer sent, not the proposal patched with it. Its own policy then limits what
        # may *differ* from the proposal — a missing ``orderId`` differs as much as a new one.
        edited = payload.get("editedArgs")
        args = dict(edited) if isinstance(edited, Mapping) else dict(proposed)
        changed = {k for k in set(args) | set(proposed) if args.get(k, _ABSENT) != proposed.get(k, _ABSENT)}
        not_editable = sorted(changed - EDITABLE_ARGS)
        args["idempotencyKey"] = refund_idempotency_key(ctx.thread_id, answer.interrupt_id)
        yield ev.StepStartedEvent(step_name="execute_refund")
        if not_editable:
            result_event, result = self._invalid_edit(ctx, tool_call_id, not_editable)
        else:
            # The answer to the ORIGINAL call, with no new START/ARGS/END (the concepts
            # page's "Tool-bound interrupts").
            result_event, result = self._call(ctx, tool_call_id, "refund_order", args)
        yield result_event
        yield ev.StepFinishedEvent(step_name="execute_refund")
        if result.get("isError"):
            yield from self._say(
                ctx, f"The refund for order {order_id} did not go through: {result_text(result)}"
            )
            state.update(stage="refund_failed", decision="approved")
            return {"interruptId": answer.interrupt_id, "decision": "approved", "error": result_text(result)}
        refund = result["structuredContent"]
        yield from self._say(
            ctx,
            f"Done: refunded {format_cents(refund['amountCents'], refund['currency'])} "
            f"for order {order_id} (refund {refund['refundId']}).",
        )
        order = dict(state.get("order") or {})
        if order:
            order["refundedCents"] = order.get("refundedCents", 0) + refund["amountCents"]
            if order["refundedCents"] >= order.get("totalCents", 0):
                order["status"] = "refunded"
        state.update(stage="refunded", decision="approved", refund=refund, order=order)
        return {"interruptId": answer.interrupt_id, "decision": "approved", "refund": refund}

    @staticmethod
    def _invalid_edit(
        ctx: Any, tool_call_id: str, not_editable: list[str]
    ) -> tuple[ev.ToolCallResultEvent, dict[str, Any]]:
        """The refused edit: a "not executed" TOOL_CALL_RESULT and an isError-style result."""
        result_event = ev.ToolCallResultEvent(
            message_id=ctx.ids(),
            tool_call_id=tool_call_id,
            role="tool",
            content=json.dumps(
                {"executed": False, "reason": "invalid_edit", "fields": not_editable},
                separators=(",", ":"),
            ),
        )
        result: dict[str, Any] = {
            "isError": True,
            "content": [
                {
                    "type": "text",
                    "text": f"editedArgs replaces the proposed arguments in full; only "
                    f"{', '.join(sorted(EDITABLE_ARGS))} may differ from the proposal "
                    f"(changed: {', '.join(not_editable)})",
                }
            ],
        }
        return result_event, result
