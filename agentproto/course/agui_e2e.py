r"""Notebook 08 (end to end): sequence diagrams drawn from a thread's real event log.

:func:`sequence_from_store` reads a thread from the server's thread store
(:class:`~agentproto.agui._threadstore.ThreadStore`) — its runs in order, each run's event log,
the decisions from the interrupt ledger — and :func:`sequence_from_log` turns that into
:class:`Arrow`\ s between the four participants of :data:`LANES`; :func:`plot_sequence` draws
them. Streaming triads collapse to one arrow; the
MCP ``tools/call`` appears only for tools that really ran.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from agentproto.course.plots import PALETTE

__all__ = ["LANES", "Arrow", "sequence_from_log", "sequence_from_store", "plot_sequence"]


def _json_or_text(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


LANES = ("User", "UI (client)", "Agent server", "MCP tools")
_LANE_X = {name: i for i, name in enumerate(LANES)}


@dataclass(frozen=True)
class Arrow:
    """One message in a sequence diagram."""

    src: str
    dst: str
    label: str
    kind: str = "event"  #: ``event`` | ``request`` | ``call`` | ``reply`` | ``human``
    run_id: str | None = None


def _did_call_tool(result_event: Mapping[str, Any]) -> bool:
    """A ``TOOL_CALL_RESULT`` the agent wrote without calling the tool says so in its content
    (``{"executed": false, …}``: a denial, a cancellation, a refused edit)."""
    content = _json_or_text(result_event.get("content"))
    return not (isinstance(content, dict) and content.get("executed") is False)


def sequence_from_log(
    runs: Sequence[tuple[str, str, Sequence[Mapping[str, Any]]]],
    *,
    decisions: Mapping[str, str] | None = None,
    steps: bool = False,
) -> list[Arrow]:
    """Arrows for a thread's runs, from their recorded events.

    ``runs`` is ``[(run_id, kind, events), …]`` in order (``kind``: ``new``/``resume``/
    ``replay``); ``decisions`` maps a resuming run's id to what the person chose. Streaming
    triads are collapsed to one arrow each (``TEXT_MESSAGE_* ×n``, ``TOOL_CALL_START/ARGS/END
    name``); each ``TOOL_CALL_RESULT`` that came from running the tool is preceded by the MCP
    ``tools/call`` and its reply. ``steps=True`` keeps ``STEP_*`` events.
    """
    decisions = dict(decisions or {})
    arrows: list[Arrow] = []
    names: dict[str, str] = {}
    for run_id, kind, events in runs:
        if kind == "new":
            arrows.append(Arrow("User", "UI (client)", "types a request", "human", run_id))
            arrows.append(Arrow("UI (client)", "Agent server", "POST /ag-ui/agent", "request", run_id))
        else:
            label = decisions.get(run_id, "answers")
            if kind == "replay":
                label += " (again)"
            arrows.append(Arrow("User", "UI (client)", label, "human", run_id))
            arrows.append(
                Arrow("UI (client)", "Agent server", "POST /ag-ui/agent  resume=[…]", "request", run_id)
            )
        i = 0
        while i < len(events):
            event = events[i]
            kind_ = event["type"]
            if kind_ in ("TEXT_MESSAGE_START", "TOOL_CALL_START"):
                key = "messageId" if kind_ == "TEXT_MESSAGE_START" else "toolCallId"
                end = "TEXT_MESSAGE_END" if kind_ == "TEXT_MESSAGE_START" else "TOOL_CALL_END"
                j = i
                while j < len(events) and not (
                    events[j]["type"] == end and events[j].get(key) == event.get(key)
                ):
                    j += 1
                if kind_ == "TEXT_MESSAGE_START":
                    label = f"TEXT_MESSAGE_START/CONTENT×{j - i - 1}/END"
                else:
                    names[event["toolCallId"]] = event["toolCallName"]
                    label = f"TOOL_CALL_START/ARGS/END {event['toolCallName']}"
                arrows.append(Arrow("Agent server", "UI (client)", label, "event", run_id))
                i = j + 1
                continue
            if kind_ == "TOOL_CALL_RESULT":
                name = names.get(event.get("toolCallId", ""), "?")
                if _did_call_tool(event):
                    arrows.append(Arrow("Agent server", "MCP tools", f"tools/call {name}", "call", run_id))
                    arrows.append(Arrow("MCP tools", "Agent server", "CallToolResult", "reply", run_id))
                arrows.append(
                    Arrow("Agent server", "UI (client)", f"TOOL_CALL_RESULT ({name})", "event", run_id)
                )
            elif kind_ in ("STEP_STARTED", "STEP_FINISHED"):
                if steps:
                    arrows.append(
                        Arrow(
                            "Agent server", "UI (client)", f"{kind_} {event.get('stepName')}", "event", run_id
                        )
                    )
            elif kind_ == "RUN_FINISHED":
                outcome = (event.get("outcome") or {}).get("type", "success")
                arrows.append(
                    Arrow("Agent server", "UI (client)", f"RUN_FINISHED ({outcome})", "event", run_id)
                )
                if outcome == "interrupt":
                    arrows.append(Arrow("UI (client)", "User", "shows the approval card", "human", run_id))
            elif kind_ == "CUSTOM":
                arrows.append(
                    Arrow("Agent server", "UI (client)", f"CUSTOM {event.get('name')}", "event", run_id)
                )
            else:
                arrows.append(Arrow("Agent server", "UI (client)", kind_, "event", run_id))
            i += 1
    return arrows


def _decision_label(decision: Mapping[str, Any] | None) -> str:
    if not decision:
        return "answers"
    if decision.get("status") == "cancelled":
        return "cancels"
    payload = decision.get("payload") or {}
    if not payload.get("approved"):
        return "denies"
    return "approves with edits" if payload.get("editedArgs") else "approves"


def sequence_from_store(store: Any, thread_id: str, *, steps: bool = False) -> list[Arrow]:
    """:func:`sequence_from_log` over a thread as the server's store recorded it: its runs in
    order, each run's event log, and the decisions from the interrupt ledger."""
    ledger = store.thread_record(thread_id)
    decisions = {r.settled_by: _decision_label(r.decision) for r in ledger.interrupts if r.settled_by}
    runs = []
    for record in store.runs(thread_id):
        if record.kind == "replay" and record.replay_of in decisions:
            decisions[record.run_id] = decisions[record.replay_of]
        runs.append((record.run_id, record.kind, store.events(thread_id, record.run_id)))
    return sequence_from_log(runs, decisions=decisions, steps=steps)


_ARROW_COLORS = {
    "event": PALETTE["primary"],
    "request": PALETTE["secondary"],
    "call": PALETTE["accent"],
    "reply": PALETTE["accent"],
    "human": PALETTE["good"],
}


def plot_sequence(arrows: Sequence[Arrow], title: str = "") -> Figure:
    """Draw ``arrows`` as a sequence diagram: one lifeline per :data:`LANES` participant, time
    running down, a dashed rule between runs labelled with the run id."""
    n = len(arrows)
    fig, ax = plt.subplots(figsize=(10, 0.27 * n + 1.4))
    top, bottom = 0.6, -(n + 0.4)
    for name, x in _LANE_X.items():
        ax.plot([x, x], [bottom, top - 0.4], color=PALETTE["muted"], linewidth=1, zorder=0)
        ax.text(
            x,
            top,
            name,
            ha="center",
            va="bottom",
            fontsize=9,
            fontweight="bold",
            bbox={"boxstyle": "round", "facecolor": "#eeeeee", "edgecolor": "#999999"},
        )
    current = None
    for row, arrow in enumerate(arrows):
        y = -row - 0.5
        if arrow.run_id != current:
            current = arrow.run_id
            ax.axhline(y + 0.45, color="#bbbbbb", linestyle="--", linewidth=0.8, zorder=0)
            ax.text(-0.45, y + 0.5, f"run {arrow.run_id}", fontsize=7, color="#555555", va="bottom")
        x0, x1 = _LANE_X[arrow.src], _LANE_X[arrow.dst]
        color = _ARROW_COLORS.get(arrow.kind, PALETTE["primary"])
        ax.annotate(
            "",
            xy=(x1, y),
            xytext=(x0, y),
            arrowprops={
                "arrowstyle": "-|>",
                "color": color,
                "linewidth": 1.2,
                "linestyle": "--" if arrow.kind == "reply" else "-",
            },
        )
        ax.text((x0 + x1) / 2, y + 0.06, arrow.label, ha="center", va="bottom", fontsize=7, color="#222222")
    ax.set_xlim(-0.5, len(LANES) - 0.5)
    ax.set_ylim(bottom, top + 0.9)
    ax.axis("off")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig
