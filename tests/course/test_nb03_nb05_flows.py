"""Notebook 03 §2.6.1 and §2.8.1 and notebook 05 §1.1: the library calls they make, and their outcomes."""

from __future__ import annotations

import json

import pytest

from agentproto.agui import (
    PatchError,
    StateReducer,
    encode_sse,
    event_to_json,
    lint_source,
    parse_event,
    parse_run_agent_input,
)
from agentproto.course.agui_runs import around_run

SNAPSHOT = {
    "type": "ACTIVITY_SNAPSHOT",
    "messageId": "act-1",
    "activityType": "web_search",
    "content": {"query": "q", "found": 0, "results": []},
}


def _delta(activity_type: str, *ops: dict[str, object]) -> dict[str, object]:
    return {"type": "ACTIVITY_DELTA", "messageId": "act-1", "activityType": activity_type, "patch": list(ops)}


def test_nb03_an_activity_is_amended_in_place_and_a_failing_delta_only_warns() -> None:
    ui = StateReducer()
    ui.apply(parse_event(SNAPSHOT).event)
    ui.apply(parse_event(_delta("web_search", {"op": "replace", "path": "/found", "value": 3})).event)
    warned = ui.apply(
        parse_event(_delta("web_search", {"op": "replace", "path": "/results/7/title", "value": "?"})).event
    )
    assert warned and ui.messages[0]["content"]["found"] == 3
    ui.apply(parse_event(_delta("web_search_done", {"op": "add", "path": "/done", "value": True})).event)
    ui.apply(parse_event({**SNAPSHOT, "content": {"other": 1}, "replace": False}).event)
    [widget] = ui.messages
    assert widget["activityType"] == "web_search_done"
    assert widget["content"] == {"query": "q", "found": 3, "results": [], "done": True}


def test_nb03_a_subagents_state_updates_are_the_runs() -> None:
    report = lint_source(
        around_run(
            {"type": "STATE_SNAPSHOT", "snapshot": {"found": 0, "plan": []}},
            {"type": "SUBAGENT_STARTED", "subagentRunId": "sa-1", "name": "search"},
            {
                "type": "STATE_DELTA",
                "subagentRunId": "sa-1",
                "delta": [{"op": "replace", "path": "/found", "value": 3}],
            },
            {"type": "SUBAGENT_FINISHED", "subagentRunId": "sa-1"},
            {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/plan/-", "value": "refund"}]},
        )
    )
    assert report.ok and report.state == {"found": 3, "plan": ["refund"]}
    run2, _ = parse_run_agent_input({"threadId": "t", "runId": "r2", "messages": [], "state": report.state})
    assert run2.state == report.state


def test_nb05_patch_operations_keep_their_extra_members_end_to_end() -> None:
    delta = {
        "type": "STATE_DELTA",
        "x-trace": "t",
        "delta": [
            {"op": "remove", "path": "/hold", "value": 99, "x-reason": "r"},
            {"op": "add", "path": "/step", "value": "refund", "from": "/nowhere"},
        ],
    }
    assert json.loads(event_to_json(parse_event(delta).event))["delta"] == delta["delta"]
    wire = b"".join(
        encode_sse(e)
        for e in around_run({"type": "STATE_SNAPSHOT", "snapshot": {"hold": 1, "step": "x"}}, delta)
    )
    report = lint_source(wire)
    assert report.ok and report.state == {"step": "refund"}
    assert [w.path for w in report.warnings] == ["/x-trace"]
    with pytest.raises(PatchError):
        parse_event({"type": "STATE_DELTA", "delta": [{"op": "remove", "value": 1}]})


def test_nb03_a_replacing_snapshot_resynchronises_content_and_type() -> None:
    ui = StateReducer()
    ui.apply(parse_event(SNAPSHOT).event)
    ui.apply(parse_event(_delta("web_search_done", {"op": "add", "path": "/done", "value": True})).event)
    ui.apply(parse_event({**SNAPSHOT, "content": {"query": "q", "found": 3}}).event)
    [widget] = ui.messages
    assert widget["activityType"] == "web_search" and widget["content"] == {"query": "q", "found": 3}
