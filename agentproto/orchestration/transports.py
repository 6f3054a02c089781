"""Why an agent needs an event protocol: one agent run seen through four transports.

Theory of operation
-------------------
An agent run is a *script* of things that happen inside the agent over virtual time
(:class:`Happening`): the model streams tokens, a tool call is proposed and executed, shared
state changes, and finally the agent asks the user to approve an action. A *transport* decides
which of those happenings the user interface can see, and when:

=================  ==========================================================================
transport          what reaches the UI
=================  ==========================================================================
``polling``        a status endpoint polled every ``poll_interval``: nothing until the run
                   pauses, then the whole answer at the next poll
``websocket``      ad-hoc ``{type, data}`` messages pushed at once — but only the message types
                   this team's front end was written to handle
``provider-sse``   the LLM provider's own stream passed through: tokens and raw tool-argument
                   fragments, one stream per model call; nothing the agent runtime does between
                   model calls (tool results, state, approvals) is in it
``ag-ui``          every happening mapped to a standard AG-UI event on one SSE stream
=================  ==========================================================================

:func:`simulate` runs a transport over a script on the discrete-event engine and reports the
time to first visible progress, the number of HTTP requests and when each *capability* (text,
tool activity, tool results, shared state, approval request) first became visible. It is a
model for teaching, not a benchmark: numbers are virtual seconds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from agentproto.orchestration.engine import Simulation

__all__ = [
    "Happening",
    "TransportResult",
    "CAPABILITIES",
    "TRANSPORTS",
    "refund_run_script",
    "simulate",
    "compare",
    "agui_events",
]

#: What a user interface may be able to show while an agent works.
CAPABILITIES = ("text", "tool activity", "tool results", "shared state", "approval request")

#: Happening kind → the capability it lets the UI show.
_CAPABILITY_OF = {
    "token": "text",
    "tool_start": "tool activity",
    "tool_args": "tool activity",
    "tool_end": "tool activity",
    "tool_result": "tool results",
    "state": "shared state",
    "approval": "approval request",
}

#: Which happening kinds each transport delivers to the UI, and how.
TRANSPORTS: dict[str, dict[str, Any]] = {
    "polling": {"delivers": {"token", "approval"}, "batched": True},
    # the team's hand-written front end knows "token", "tool_start" and "done" messages only
    "websocket": {"delivers": {"token", "tool_start"}, "batched": False},
    # provider streams carry model output only: text deltas and tool-argument fragments
    "provider-sse": {"delivers": {"token", "tool_start", "tool_args", "tool_end"}, "batched": False},
    "ag-ui": {"delivers": set(_CAPABILITY_OF), "batched": False},
}


@dataclass(frozen=True)
class Happening:
    """Something that happens inside the agent at virtual time ``t`` (seconds)."""

    t: float
    #: token | tool_start | tool_args | tool_end | tool_result | state | approval | model_call | done
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class TransportResult:
    """What one transport let the UI see during the run."""

    transport: str
    requests: int
    first_progress: float | None
    shown_at: dict[str, float | None]
    finished_at: float
    deliveries: list[tuple[float, str]] = field(default_factory=list)

    def visible_at(self, t: float) -> list[str]:
        """Capabilities the UI has been able to show by time ``t``."""
        return [c for c in CAPABILITIES if (s := self.shown_at[c]) is not None and s <= t]

    def row(self) -> dict[str, Any]:
        return {
            "transport": self.transport,
            "first visible progress (s)": None
            if self.first_progress is None
            else round(self.first_progress, 2),
            "HTTP requests": self.requests,
            "can show": f"{sum(v is not None for v in self.shown_at.values())}/{len(CAPABILITIES)}",
        }


def _words(text: str) -> list[str]:
    parts = text.split(" ")
    return [p + (" " if i < len(parts) - 1 else "") for i, p in enumerate(parts)]


def refund_run_script(
    model_latency: float = 1.5,
    token_interval: float = 0.05,
    tool_latency: float = 1.2,
    order_id: str = "A1024",
) -> list[Happening]:
    """The order-refund run used across the course, as a timed script.

    Two model calls: the first writes a sentence and proposes ``get_order``; the tool runs;
    shared state gets the order; the second model call explains and the agent asks the user
    to approve the refund.
    """
    if model_latency < 0 or token_interval <= 0 or tool_latency < 0:
        raise ValueError("latencies must be non-negative and the token interval positive")
    out: list[Happening] = [Happening(0.0, "model_call", {"call": 1})]
    t = model_latency
    for w in _words(f"Let me look up order {order_id}."):
        out.append(Happening(round(t, 6), "token", {"message": 1, "delta": w}))
        t += token_interval
    args = json.dumps({"orderId": order_id})
    out.append(Happening(round(t, 6), "tool_start", {"name": "get_order", "call": "call-1"}))
    for frag in (args[: len(args) // 2], args[len(args) // 2 :]):
        t += token_interval
        out.append(Happening(round(t, 6), "tool_args", {"call": "call-1", "delta": frag}))
    t += token_interval
    out.append(Happening(round(t, 6), "tool_end", {"call": "call-1"}))
    t += tool_latency
    order = {"id": order_id, "status": "shipped", "amount": "42.00", "currency": "EUR"}
    out.append(Happening(round(t, 6), "tool_result", {"call": "call-1", "content": json.dumps(order)}))
    out.append(Happening(round(t, 6), "state", {"snapshot": {"order": order, "step": "await_approval"}}))
    out.append(Happening(round(t, 6), "model_call", {"call": 2}))
    t += model_latency
    for w in _words(f"Order {order_id} has shipped. I can refund 42.00 EUR once you approve."):
        out.append(Happening(round(t, 6), "token", {"message": 2, "delta": w}))
        t += token_interval
    out.append(Happening(round(t, 6), "approval", {"action": "refund_order", "orderId": order_id}))
    out.append(Happening(round(t, 6), "done", {}))
    return out


def simulate(transport: str, script: list[Happening], poll_interval: float = 2.0) -> TransportResult:
    """Play ``script`` through ``transport`` on the virtual clock (see the module docstring)."""
    if transport not in TRANSPORTS:
        raise ValueError(f"unknown transport {transport!r}; choose one of {sorted(TRANSPORTS)}")
    if poll_interval <= 0:
        raise ValueError("poll_interval must be positive")
    spec = TRANSPORTS[transport]
    sim = Simulation(seed=0)
    shown: dict[str, float | None] = dict.fromkeys(CAPABILITIES)
    deliveries: list[tuple[float, str]] = []
    produced: list[Happening] = []  # what the server has buffered (polling)
    state: dict[str, Any] = {"requests": 0, "done_at": None, "finished": None}

    def deliver(h: Happening) -> None:
        if h.kind not in spec["delivers"]:
            return
        cap = _CAPABILITY_OF[h.kind]
        deliveries.append((sim.now, cap))
        if shown[cap] is None:
            shown[cap] = sim.now

    def happen(h: Happening) -> None:
        produced.append(h)
        if h.kind == "done":
            state["done_at"] = sim.now
        if h.kind == "model_call" and transport == "provider-sse":
            state["requests"] += 1  # each model call is its own provider stream
        if not spec["batched"]:
            deliver(h)
            if h.kind == "done":
                state["finished"] = sim.now

    for h in script:
        sim.at(h.t, partial(happen, h), label=h.kind)

    if transport in ("websocket", "ag-ui"):
        state["requests"] = 1  # one upgrade / one POST, then a long-lived stream
    if spec["batched"]:

        def poll() -> None:
            state["requests"] += 1
            if state["done_at"] is not None:  # the status endpoint now returns the result
                for h in produced:
                    deliver(h)
                state["finished"] = sim.now
                return
            sim.schedule(poll_interval, poll, label="poll")

        sim.at(0.0, poll, label="poll")
    sim.run(max_events=100_000)
    first = min((t for t in shown.values() if t is not None), default=None)
    return TransportResult(
        transport,
        state["requests"],
        first,
        shown,
        state["finished"] if state["finished"] is not None else sim.now,
        deliveries,
    )


def compare(
    poll_interval: float = 2.0, model_latency: float = 1.5, **script_kw: Any
) -> list[TransportResult]:
    """All four transports over the same script, in a stable order."""
    script = refund_run_script(model_latency=model_latency, **script_kw)
    return [simulate(name, script, poll_interval) for name in TRANSPORTS]


def agui_events(
    script: list[Happening], thread_id: str = "thread-1", run_id: str = "run-1"
) -> list[dict[str, Any]]:
    """The script as AG-UI wire events (dicts): what the ``ag-ui`` transport sends.

    The run ends with an interrupt outcome carrying the approval request, after the state
    snapshot the resumed run will need (spec 1.1, interrupt-resume pattern).
    """
    events: list[dict[str, Any]] = [{"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id}]
    open_msg: int | None = None
    tool_call_id = None
    for h in script:
        if h.kind == "token":
            mid = f"msg-{h.data['message']}"
            if open_msg != h.data["message"]:
                if open_msg is not None:
                    events.append({"type": "TEXT_MESSAGE_END", "messageId": f"msg-{open_msg}"})
                events.append({"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"})
                open_msg = h.data["message"]
            events.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": mid, "delta": h.data["delta"]})
            continue
        if open_msg is not None and h.kind not in ("model_call",):
            events.append({"type": "TEXT_MESSAGE_END", "messageId": f"msg-{open_msg}"})
            open_msg = None
        if h.kind == "tool_start":
            tool_call_id = h.data["call"]
            events.append(
                {
                    "type": "TOOL_CALL_START",
                    "toolCallId": tool_call_id,
                    "toolCallName": h.data["name"],
                    "parentMessageId": "msg-1",
                }
            )
        elif h.kind == "tool_args":
            events.append({"type": "TOOL_CALL_ARGS", "toolCallId": h.data["call"], "delta": h.data["delta"]})
        elif h.kind == "tool_end":
            events.append({"type": "TOOL_CALL_END", "toolCallId": h.data["call"]})
        elif h.kind == "tool_result":
            events.append(
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": "tool-msg-1",
                    "toolCallId": h.data["call"],
                    "content": h.data["content"],
                    "role": "tool",
                }
            )
        elif h.kind == "state":
            events.append({"type": "STATE_SNAPSHOT", "snapshot": h.data["snapshot"]})
        elif h.kind == "approval":
            # The refund is not a tool call in this stream (only ``get_order`` is, and it has
            # its result), so the question is free-standing: the core reason ``confirmation``
            # ("not bound to a tool") and no ``toolCallId`` (AG-UI interrupts page, "Reason
            # taxonomy"). A gated *tool call* would use ``tool_call`` with its ``toolCallId``.
            interrupt = {
                "id": "int-1",
                "reason": "confirmation",
                "message": f"Refund order {h.data['orderId']}?",
                "responseSchema": {
                    "type": "object",
                    "properties": {"approved": {"type": "boolean"}},
                    "required": ["approved"],
                },
            }
            events.append(
                {
                    "type": "RUN_FINISHED",
                    "threadId": thread_id,
                    "runId": run_id,
                    "outcome": {"type": "interrupt", "interrupts": [interrupt]},
                }
            )
    return events
