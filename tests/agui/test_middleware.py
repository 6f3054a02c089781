"""Where middleware sits (spec 1.1 basic/processing): after the compatibility boundary, before
enforcement, on every event — and the client's era shims are installed there."""

from __future__ import annotations

import json

from agentproto.agui.errors import PipelineWarning
from agentproto.agui.pipeline import Pipeline

from .test_eras import FINISH, START, run_against, sse


def _recording(seen: list[dict]):
    def middleware(event: dict, index: int | None, warnings: list[PipelineWarning]) -> dict | None:
        seen.append(dict(event))
        if event.get("type") == "CUSTOM" and event.get("name") == "drop-me":
            warnings.append(PipelineWarning(index, "", "dropped by the test's middleware"))
            return None
        return event

    return middleware


def test_middleware_sees_the_boundarys_translation_and_what_enforcement_would_strip():
    seen: list[dict] = []
    pipeline = Pipeline(format="jsonl", middleware=_recording(seen))
    stream = [
        {**START, "x-trace": "keep-for-middleware"},
        {"type": "THINKING_START", "title": "plan"},
        {"type": "THINKING_END"},
        {"type": "CUSTOM", "name": "drop-me", "value": 1},
        FINISH,
    ]
    applied = pipeline.feed_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in stream))
    report = pipeline.finish()
    assert report.ok, report.error
    # the boundary ran first: the middleware never saw a retired THINKING_* event
    assert [e["type"] for e in seen] == [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_END",
        "CUSTOM",
        "RUN_FINISHED",
    ]
    # it saw the unknown member that enforcement then stripped, with a warning
    assert seen[0]["x-trace"] == "keep-for-middleware"
    assert any(w.path == "/x-trace" for w in report.warnings)
    # what it dropped never reached the verifier or the application
    assert [e.type.value for e in applied] == [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_END",
        "RUN_FINISHED",
    ]
    assert any("dropped by the test's middleware" in w.message for w in report.warnings)


def test_conforming_events_do_not_slip_past_middleware_on_the_fast_path():
    seen: list[dict] = []
    pipeline = Pipeline(middleware=_recording(seen))
    pipeline.feed_bytes(sse(START, FINISH))
    assert [e["type"] for e in seen] == ["RUN_STARTED", "RUN_FINISHED"]


def test_a_truncated_run_from_a_pinned_peer_still_reports_what_its_shims_dropped():
    body = sse(START, {"type": "SUBAGENT_STARTED", "subagentRunId": "sa1", "name": "helper"})
    _, result = run_against(body, max_protocol_version="0.0.57")
    assert result.outcome == "truncated"
    assert any("predates subagent support" in w["message"] for w in result.warnings)
