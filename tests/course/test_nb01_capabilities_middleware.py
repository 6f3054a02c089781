"""Notebook 01 §7–§8: what an agent declares before a run, and where middleware sits.

What the notebook claims about the kit is held here against the library, so a change in the
capabilities parser or the pipeline's stages breaks a test before it silently changes the lesson.
"""

from __future__ import annotations

import pytest

from agentproto.agui import (
    AGUICapabilities,
    MalformedCapabilitiesError,
    Pipeline,
    PipelineWarning,
    audit_declaration,
    capabilities_of,
    declared,
    lint_source,
    parse_capabilities,
    read_capabilities,
)
from agentproto.orchestration.transports import agui_events, refund_run_script


@pytest.fixture(scope="module")
def events():
    script = refund_run_script(model_latency=1.5, token_interval=0.05, tool_latency=1.2)
    return agui_events(script, thread_id="thread-1", run_id="run-1")


class RefundDesk:
    def capabilities(self):
        return {
            "identity": {"name": "refund-desk", "version": "1.0.0", "metadata": {"team": "payments"}},
            "transport": {"streaming": True},
            "tools": {"supported": True, "clientProvided": False},
            "state": {"snapshots": True},
            "reasoning": {"supported": False},
            "humanInTheLoop": {"interrupts": True, "approveWithEdits": False},
            "custom": {"acme.refundLimitEur": 500},
        }


def test_the_refund_desk_declaration_drives_three_affordances(events):
    caps, warnings = capabilities_of(RefundDesk())
    assert warnings == []
    assert declared(caps, "humanInTheLoop.interrupts") is True
    assert declared(caps, "reasoning.supported") is False
    assert declared(caps, "multimodal.input.pdf") is None
    assert audit_declaration(caps, events) == []  # the honest declaration holds on §5's stream


def test_a_fibbing_declaration_is_a_complaint_and_the_stream_stays_conformant(events):
    fibbing = parse_capabilities({"state": {"snapshots": False}}).capabilities
    complaints = audit_declaration(fibbing, events)
    assert [c.path for c in complaints] == ["/state/snapshots"]
    assert events[complaints[0].event]["type"] == "STATE_SNAPSHOT"
    assert lint_source(events).verdict == "conformant"


def test_newer_and_malformed_declarations(events):
    newer = {
        "reasoning": {"supported": True, "summaries": True},
        "payments": {"refunds": True},
        "custom": {"acme.regions": ["eu"], "acme.beta": None},
    }
    parsed = parse_capabilities(newer)
    assert [w.path for w in parsed.warnings] == ["/reasoning/summaries", "/payments"]
    assert parsed.capabilities.custom == {"acme.regions": ["eu"], "acme.beta": None}
    broken = {"humanInTheLoop": {"interrupts": "yes"}}
    with pytest.raises(MalformedCapabilitiesError):
        parse_capabilities(broken)
    fallback, why = read_capabilities(broken)
    assert fallback == AGUICapabilities() and why[-1].path == "/humanInTheLoop/interrupts"


def _consume(wire_events, *middleware):
    def chain(event, index, warnings):  # notebook §8's adapter onto Pipeline's middleware slot
        for stage in middleware:
            event = stage(event)
            if event is None:
                warnings.append(PipelineWarning(index, "", "event dropped by middleware"))
                return None
        return event

    pipeline = Pipeline(middleware=chain if middleware else None)
    for event in wire_events:
        pipeline.feed_event(dict(event))
        if pipeline.error is not None:
            break
    return pipeline.finish()


def test_the_middleware_slot_sits_after_the_boundary_and_before_enforcement():
    # §8's kit's choices: Pipeline(middleware=) runs the stage where the spec puts middleware.
    seen = []

    def watch(event):
        seen.append(sorted(event))
        return event

    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "THINKING_START"},  # a retired shape: the boundary translates it first
        {"type": "REASONING_END", "messageId": "m", "extra": 1},  # unknown field: enforcement strips it after
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    seen_types = []
    result = _consume(stream, lambda e: seen_types.append(e["type"]) or watch(e))
    assert seen_types[1] == "REASONING_START"  # after the boundary
    assert "extra" in seen[2]  # before enforcement
    assert any(w.path == "/extra" for w in result.warnings)


def _text_to_delta(event):
    if event.get("type") == "TEXT_MESSAGE_CONTENT" and "text" in event and "delta" not in event:
        event = {k: v for k, v in event.items() if k != "text"} | {"delta": event["text"]}
    return event


def test_a_shim_works_only_before_enforcement(events):
    legacy = [
        {("text" if k == "delta" else k): v for k, v in e.items()}
        if e["type"] == "TEXT_MESSAGE_CONTENT"
        else e
        for e in events
    ]
    too_late = lint_source(legacy)
    assert too_late.verdict == "rejected" and too_late.error["rule"] == "schema.missing-field"
    assert too_late.warnings[0].path == "/text"  # enforcement stripped what the shim needed
    in_time = _consume(legacy, _text_to_delta)
    assert in_time.verdict == "conformant" and in_time.runs[0]["outcome"] == "interrupt"


def test_verification_after_middleware_catches_a_broken_filter(events):
    damaged = _consume(events, lambda e: None if e.get("type") == "TEXT_MESSAGE_START" else e)
    assert damaged.verdict == "rejected" and damaged.error["rule"] == "text.content-unopened"


CHUNKED = [
    {"type": "RUN_STARTED", "threadId": "thread-2", "runId": "run-2"},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "msg-9", "role": "assistant", "delta": "Order A1024 "},
    {"type": "TEXT_MESSAGE_CHUNK", "messageId": "msg-9", "delta": "has shipped."},
    {"type": "RUN_FINISHED", "threadId": "thread-2", "runId": "run-2"},
]


def test_middleware_meets_chunks_before_expansion(events):
    def content_only(e):
        if e.get("type") == "TEXT_MESSAGE_CONTENT":
            e = {**e, "delta": e["delta"].replace("A1024", "A####")}
        return e

    def both_forms(e):
        if e.get("type") in ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK") and "delta" in e:
            e = {**e, "delta": e["delta"].replace("A1024", "A####")}
        return e

    leaky = _consume(CHUNKED, content_only)
    assert leaky.verdict == "conformant" and "A1024" in leaky.messages[-1]["content"]
    fixed = _consume(CHUNKED, both_forms)
    assert fixed.messages[-1]["content"] == "Order A#### has shipped."
    assert _consume(events, both_forms).verdict == "conformant"


def test_the_sdk_spelling_is_unrecognised_not_fatal():
    # §7's spelling trap: the SDKs' ``subAgents`` is not the 1.1 schema's ``subagents``.
    sdk_style = parse_capabilities({"multiAgent": {"supported": True, "subAgents": [{"name": "billing"}]}})
    assert [w.path for w in sdk_style.warnings] == ["/multiAgent/subAgents"]
    assert declared(sdk_style.capabilities, "multiAgent.subagents") is None  # the kit drops it
    assert declared(sdk_style.capabilities, "multiAgent.supported") is True  # the rest is kept
    schema_style = parse_capabilities({"multiAgent": {"subagents": [{"name": "billing"}]}})
    assert schema_style.warnings == []
    assert declared(schema_style.capabilities, "multiAgent.subagents")[0].name == "billing"


def test_the_audit_checks_only_the_fields_it_knows(events):
    # §7 says audit_declaration covers a fixed set of fields, not every explicit false.
    unchecked = parse_capabilities({"multimodal": {"input": {"pdf": False}}}).capabilities
    assert audit_declaration(unchecked, events) == []
