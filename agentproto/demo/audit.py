"""The audit trail of human-approved tool calls, read back from the server's store.

A human-approved tool call has three parts, and each must come from the record, not from a
client's memory: what the agent *proposed* (the ``TOOL_CALL_ARGS`` it streamed), what the
person *decided* (the ``resume`` entry that settled the interrupt) and what *happened* (the
``TOOL_CALL_RESULT`` on the original ``toolCallId``). :func:`audit_trail` joins them for every
interrupt of a thread from the :class:`~agentproto.agui._threadstore.ThreadStore`'s event logs and interrupt
ledger.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentproto.agui._threadstore import ThreadStore

__all__ = ["AuditRow", "audit_trail"]


@dataclass(frozen=True)
class AuditRow:
    """The three parts of a human-approved tool call, each from the record."""

    interrupt_id: str
    tool_call_id: str | None
    tool: str | None
    proposed: Any  #: part 1 — the arguments the agent streamed (``TOOL_CALL_ARGS``)
    interrupted_run: str
    status: str  #: ``pending`` | ``resolved`` | ``cancelled``
    decision: Any  #: part 2 — the resume entry that settled it (status + payload)
    decided_by: str | None
    result: Any  #: part 3 — the ``TOOL_CALL_RESULT`` content on the same ``toolCallId``


def audit_trail(store: ThreadStore, thread_id: str) -> list[AuditRow]:
    """Proposed args → decision → result for every interrupt of a thread, from the store.

    Part 1 comes from the interrupted run's event log (the ``TOOL_CALL_ARGS`` deltas for the
    interrupt's ``toolCallId``), part 2 from the interrupt ledger (the entry that settled it,
    and which run carried it), part 3 from that run's event log (the ``TOOL_CALL_RESULT`` on
    the original ``toolCallId``). Nothing is reconstructed from the client.
    """
    rows: list[AuditRow] = []
    for record in store.thread_record(thread_id).interrupts:
        tool_call_id = record.interrupt.get("toolCallId")
        tool, args = None, ""
        for event in store.events(thread_id, record.run_id):
            if event.get("toolCallId") != tool_call_id:
                continue
            if event["type"] == "TOOL_CALL_START":
                tool = event.get("toolCallName")
            elif event["type"] == "TOOL_CALL_ARGS":
                args += event.get("delta", "")
        try:
            proposed: Any = json.loads(args) if args else None
        except ValueError:
            proposed = args
        result = None
        if record.settled_by:
            for event in store.events(thread_id, record.settled_by):
                if event["type"] == "TOOL_CALL_RESULT" and event.get("toolCallId") == tool_call_id:
                    try:
                        result = json.loads(event["content"])
                    except (TypeError, ValueError):
                        result = event["content"]
        decision = None
        if record.decision is not None:
            decision = {k: record.decision[k] for k in ("status", "payload") if k in record.decision}
        rows.append(
            AuditRow(
                record.id,
                tool_call_id,
                tool,
                proposed,
                record.run_id,
                record.status,
                decision,
                record.settled_by,
                result,
            )
        )
    return rows
