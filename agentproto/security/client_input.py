"""What a front end may and may not write into a run: tool results it does not own.

The AG-UI front end is outside the trust boundary: everything in a ``RunAgentInput`` —
messages, state, ``resume`` payloads, metadata — was written by code the user controls. The
protocol gives the client exactly one way to supply a tool *result*: a tool message in the
next run's ``messages``, answering a call to a **frontend tool** (one the client advertised
in ``tools`` and executes itself; AG-UI 1.1 ``events/tool-calls``, "Frontend tools"). Tools the
agent executes answer in-stream with ``TOOL_CALL_RESULT``; a tool message for one of *those*,
arriving from the client, is a forgery (seed 000 Q12: "how do you stop the front end forging
tool results?").

:func:`check_client_tool_results` is the gatekeeper's rule, sans-I/O: given the thread's
history (what the server recorded) and the new messages a client sent, every new tool message
must answer

* a call that exists in the history (``tool-result.unknown-call``),
* that nobody has answered yet (``tool-result.already-answered``),
* to a tool the agent does not execute itself (``tool-result.server-tool``).

Metadata is not authority: a hint such as ``{"toolExecution": "server"}`` on an event tells a
well-behaved UI not to synthesise a result, but the server cannot rely on the client honouring
it, and anything the client sends back — metadata included — is the client's claim. The
server decides from its own record which calls are its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agentproto.security.errors import ForgedToolResult

__all__ = ["check_client_tool_results", "tool_calls_by_id"]


def _dump(message: Any) -> dict[str, Any]:
    dump = getattr(message, "model_dump", None)
    return dump(by_alias=True, mode="json") if dump is not None else dict(message)


def tool_calls_by_id(messages: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Every tool call the assistant messages of ``messages`` made, by call id."""
    calls: dict[str, dict[str, Any]] = {}
    for message in map(_dump, messages):
        if message.get("role") == "assistant":
            for call in message.get("toolCalls") or []:
                calls[call["id"]] = call
    return calls


def check_client_tool_results(
    history: Sequence[Any], new_messages: Sequence[Any], *, server_tools: Iterable[str]
) -> list[dict[str, Any]]:
    """Return the client's legitimate tool messages; raise :class:`ForgedToolResult` otherwise.

    ``history`` is the thread as the server recorded it (never the client's copy);
    ``new_messages`` the messages of the incoming input whose ids the thread has not seen;
    ``server_tools`` the names of the tools the agent executes itself.
    """
    recorded = [_dump(m) for m in history]
    seen_ids = {m.get("id") for m in recorded}
    calls = tool_calls_by_id(recorded)
    answered = {m.get("toolCallId") for m in recorded if m.get("role") == "tool"}
    own = set(server_tools)
    accepted: list[dict[str, Any]] = []
    for message in map(_dump, new_messages):
        if message.get("role") != "tool" or message.get("id") in seen_ids:
            continue
        call_id = message.get("toolCallId")
        call = calls.get(call_id) if isinstance(call_id, str) else None
        if call is None:
            raise ForgedToolResult(
                f"Tool message {message.get('id')} answers call {call_id!r}, which the agent never made",
                rule="tool-result.unknown-call",
                toolCallId=call_id,
            )
        name = (call.get("function") or {}).get("name")
        if name in own:
            raise ForgedToolResult(
                f"Tool message {message.get('id')} answers call {call_id} to {name!r}, a tool "
                f"the agent executes itself: only the agent reports its result",
                rule="tool-result.server-tool",
                toolCallId=call_id,
                tool=name,
            )
        if call_id in answered:
            raise ForgedToolResult(
                f"Tool message {message.get('id')} answers call {call_id}, which already has a result",
                rule="tool-result.already-answered",
                toolCallId=call_id,
            )
        answered.add(call_id)
        accepted.append(message)
    return accepted
