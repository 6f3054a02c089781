"""Era shims for a peer pinned to an older protocol (spec 1.1 basic/versioning, "Downgrading").

The vectors follow the reference TypeScript client's era middlewares
(``BackwardCompatibility_0_0_39`` and ``_0_0_57``) and the spec's rules for what a downgrade
may do: reshape or remove, never invent; warn when content is lost; never repair.
"""

from __future__ import annotations

import asyncio
import copy
import json
import pathlib

import httpx
import pytest

from agentproto.agui import lint_source
from agentproto.agui._eras import (
    ERA_SHIMS,
    EraDowngrade,
    downgrade_event,
    downgrade_input,
    flatten_content,
    parse_dotted_version,
    shims_for,
)
from agentproto.agui.client import AGUIClient
from agentproto.agui.errors import AGUIError, VerificationError
from agentproto.clock import IdFactory

STREAMS = pathlib.Path(__file__).resolve().parents[2] / "data" / "agui" / "streams"

IMAGE = {"type": "image", "source": {"type": "url", "value": "https://x/cat.png", "mimeType": "image/png"}}
INPUT = {
    "threadId": "t",
    "runId": "r",
    "parentRunId": "p",
    "protocolVersion": "1.1",
    "state": {},
    "messages": [
        {"id": "u1", "role": "user", "content": [{"type": "text", "text": "what is "}, IMAGE]},
        {"id": "a1", "role": "assistant", "subagentRunId": "sa1", "toolCalls": []},
        {"id": "u2", "role": "user", "content": [{"type": "text", "text": "plain"}]},
        {"id": "u3", "role": "user", "content": "already text"},
    ],
}


def names(version):
    return [s.name for s in shims_for(version)]


# --- selection ---------------------------------------------------------------------------------


def test_versions_compare_numerically_component_by_component():
    assert parse_dotted_version("0.0.39") == (0, 0, 39)
    assert parse_dotted_version("1.10") > parse_dotted_version("1.9")
    for bad in ("", "v1", "1.x", "1..2", "latest"):
        with pytest.raises(ValueError, match="cannot interpret protocol version"):
            parse_dotted_version(bad)


def test_a_peer_of_unknown_age_is_treated_as_current():
    assert shims_for(None) == ()
    assert EraDowngrade().active is False


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("0.0.39", ["pre-versioning", "0.0.57", "0.0.39"]),
        ("0.0.40", ["pre-versioning", "0.0.57"]),
        ("0.0.57", ["pre-versioning", "0.0.57"]),
        ("0.0.58", ["pre-versioning"]),
        ("0.9", ["pre-versioning"]),
        ("1.0", []),
        ("1.1", []),
        ("2.0", []),
    ],
)
def test_thresholds_are_inclusive_like_the_reference_compare_versions_le_zero(version, expected):
    assert names(version) == expected


def test_every_shim_names_its_reference_and_what_it_does():
    for shim in ERA_SHIMS:
        assert shim.summary
    assert {s.reference for s in ERA_SHIMS} >= {
        "BackwardCompatibility_0_0_39",
        "BackwardCompatibility_0_0_57",
    }


def test_an_uninterpretable_configured_version_fails_at_configuration_time():
    with pytest.raises(ValueError):
        AGUIClient("http://127.0.0.1:9", max_protocol_version="zero")


# --- outgoing: the run input -------------------------------------------------------------------


def test_a_0_0_39_peer_gets_text_content_and_no_parent_run_id_or_protocol_version():
    before = copy.deepcopy(INPUT)
    out, warnings = downgrade_input(INPUT, shims_for("0.0.39"))
    assert INPUT == before  # pure
    assert "parentRunId" not in out and "protocolVersion" not in out
    assert [m.get("content") for m in out["messages"]] == ["what is ", "", "plain", "already text"]
    assert "subagentRunId" not in out["messages"][1]
    assert out["messages"][3] is INPUT["messages"][3]  # untouched members are shared, not copied
    [warning] = warnings
    assert (warning.event, warning.path) == (None, "/messages/0/content")
    assert "image part" in warning.message and "0.0.39" in warning.message
    assert "basic/versioning" in warning.message


def test_the_flattening_warning_says_it_drops_non_text_parts_only_when_it_does():
    # The corpus fixture era-0-0-39-flattens-content looks for the reference's phrase.
    _, [warning] = downgrade_input(INPUT, shims_for("0.0.39"))
    assert "DROPS non-text parts" in warning.message
    two_texts = {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
        ]
    }
    _, [warning] = downgrade_input(two_texts, shims_for("0.0.39"))
    assert "DROPS" not in warning.message and "boundaries between text parts" in warning.message


def test_flattening_joins_text_parts_without_a_separator_and_names_what_is_lost():
    assert flatten_content([{"type": "text", "text": "a"}]) == ("a", [])
    text, lost = flatten_content([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    assert text == "ab" and lost == ["boundaries between text parts"]
    text, lost = flatten_content([{"type": "text", "text": "a", "id": "p1"}, {"type": "audio"}])
    assert text == "a" and lost == ["text part id/metadata", "audio part"]
    assert flatten_content([]) == ("", [])


def test_the_downgrade_does_not_repair_malformed_content():
    # The reference turns any other content into ""; a downgrade MUST NOT repair (spec).
    body = {"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user", "content": 42}]}
    out, _ = downgrade_input(body, shims_for("0.0.39"))
    assert out["messages"][0]["content"] == 42


def test_a_0_0_57_peer_keeps_content_parts_but_loses_attribution_silently():
    out, warnings = downgrade_input(INPUT, shims_for("0.0.57"))
    assert warnings == []
    assert out["parentRunId"] == "p" and "protocolVersion" not in out
    assert out["messages"][0]["content"] == INPUT["messages"][0]["content"]
    assert all("subagentRunId" not in m for m in out["messages"])


def test_a_1_0_peer_receives_the_input_as_it_is():
    out, warnings = EraDowngrade("1.0").input(INPUT)
    assert out == INPUT and warnings == []


# --- incoming: the event stream ----------------------------------------------------------------

DROPPED = (
    "AG-UI is dropping SUBAGENT_STARTED because the target agent predates subagent support. "
    "To remove this warning, upgrade your AG-UI integration package."
)


@pytest.mark.parametrize("kind", ["SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"])
def test_subagent_lifecycle_events_are_dropped_with_the_reference_warning(kind):
    warnings: list = []
    event = {"type": kind, "subagentRunId": "sa1"}
    assert downgrade_event(event, shims_for("0.0.57"), 4, warnings) is None
    [warning] = warnings
    assert warning.event == 4 and warning.message == DROPPED.replace("SUBAGENT_STARTED", kind)


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (
            {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "sa1"},
            {"type": "TEXT_MESSAGE_START", "messageId": "m"},
        ),
        (
            {
                "type": "MESSAGES_SNAPSHOT",
                "messages": [{"id": "m", "role": "user", "content": "x", "subagentRunId": "s"}],
            },
            {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m", "role": "user", "content": "x"}]},
        ),
        (
            {
                "type": "RUN_STARTED",
                "threadId": "t",
                "runId": "r",
                "input": {"threadId": "t", "runId": "r", "messages": [{"id": "m", "subagentRunId": "s"}]},
            },
            {
                "type": "RUN_STARTED",
                "threadId": "t",
                "runId": "r",
                "input": {"threadId": "t", "runId": "r", "messages": [{"id": "m"}]},
            },
        ),
        (
            {
                "type": "RUN_FINISHED",
                "threadId": "t",
                "runId": "r",
                "outcome": {
                    "type": "interrupt",
                    "interrupts": [{"id": "i", "reason": "x", "subagentRunId": "s"}],
                },
            },
            {
                "type": "RUN_FINISHED",
                "threadId": "t",
                "runId": "r",
                "outcome": {"type": "interrupt", "interrupts": [{"id": "i", "reason": "x"}]},
            },
        ),
    ],
)
def test_attribution_is_stripped_everywhere_the_reference_strips_it(event, expected):
    before = copy.deepcopy(event)
    warnings: list = []
    assert downgrade_event(event, shims_for("0.0.57"), 0, warnings) == expected
    assert event == before and warnings == []


def test_events_without_subagent_material_pass_through_unchanged():
    event = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}
    assert downgrade_event(event, shims_for("0.0.57"), 0, []) is event
    assert EraDowngrade("0.0.58").event({"type": "SUBAGENT_STARTED"}, 0, []) == {"type": "SUBAGENT_STARTED"}


@pytest.mark.parametrize("vector", ["subagent-lifecycle", "nested-subagents"])
def test_a_subagent_stream_downgraded_for_a_0_0_57_peer_still_verifies(vector):
    lines = (STREAMS / "valid" / f"{vector}.jsonl").read_text().splitlines()
    warnings: list = []
    era = EraDowngrade("0.0.57")
    events = [era.event(json.loads(line), i, warnings) for i, line in enumerate(lines)]
    kept = [e for e in events if e is not None]
    report = lint_source(kept)
    assert report.ok and report.warnings == []
    assert all("subagentRunId" not in e for e in kept)
    assert len(warnings) == len(events) - len(kept) > 0


# --- the client adapter ------------------------------------------------------------------------


def sse(*events: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def run_against(body: bytes, **kwargs):
    """One client run against a canned SSE body; returns (the request body sent, the result)."""
    sent: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    async def scenario():
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with http, AGUIClient("http://agent", http=http, ids=IdFactory("c"), **kwargs) as client:
            view = client.thread("t")
            view.messages = copy.deepcopy(INPUT["messages"])
            return await client.run("t", run_id="r")

    try:
        return sent, asyncio.run(scenario())
    except AGUIError as exc:  # a rejected stream: handed back for the test to judge
        return sent, exc


START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISH = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def test_the_client_shims_what_it_sends_and_what_it_receives_for_a_pinned_peer():
    body = sse(
        START,
        {"type": "SUBAGENT_STARTED", "subagentRunId": "sa1", "name": "helper"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "subagentRunId": "sa1"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "sa1"},
        FINISH,
    )
    [sent], result = run_against(body, max_protocol_version="0.0.39")
    assert "protocolVersion" not in sent
    assert [m.get("content") for m in sent["messages"]] == ["what is ", "", "plain", "already text"]
    assert result.ok and result.text == "hi"
    assert "SUBAGENT_STARTED" not in result.types and "subagentRunId" not in result.events[1]
    messages = [w["message"] for w in result.warnings]
    assert any("image part" in m for m in messages)
    assert sum("predates subagent support" in m for m in messages) == 2
    # The thread keeps its own, un-downgraded copy of what it said.
    assert result.messages[0]["content"][1]["type"] == "image"


def test_the_client_sends_its_declaration_to_a_current_peer():
    [sent], result = run_against(sse(START, FINISH))
    assert sent["protocolVersion"] == "1.1" and sent["messages"][0]["content"][1] == IMAGE
    assert result.ok and result.warnings == []


def test_the_client_rejects_a_stream_on_another_thread_than_the_input():
    _, error = run_against(sse(START | {"threadId": "other"}, FINISH | {"threadId": "other"}))
    assert isinstance(error, VerificationError) and error.rule == "run.thread-changed"


def test_the_client_rejects_a_replayed_run_on_another_thread():
    body = sse(START | {"runId": "r0"}, FINISH | {"runId": "r0"}, START | {"threadId": "u"}, FINISH)
    _, error = run_against(body)
    assert isinstance(error, VerificationError) and error.rule == "run.thread-changed"
    assert error.index == 2


LEGACY = {"type": "binary", "mimeType": "image/png", "url": "https://example.com/legacy.png"}
UPGRADED = {
    "type": "image",
    "source": {"type": "url", "value": "https://example.com/legacy.png", "mimeType": "image/png"},
}


@pytest.mark.parametrize("pin", [None, "1.0", "0.0.57", "0.0.47"])
def test_the_client_upgrades_a_retired_binary_part_for_every_peer_silently(pin):
    # spec basic/versioning "Retired shapes": translate rather than drop; lossless, so quiet.
    sent: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, content=sse(START, FINISH), headers={"content-type": "text/event-stream"})

    async def scenario():
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with http, AGUIClient("http://agent", http=http, max_protocol_version=pin) as client:
            message = {"id": "u", "role": "user", "content": [{"type": "text", "text": "see"}, LEGACY]}
            return await client.run("t", run_id="r", new_messages=[message])

    result = asyncio.run(scenario())
    assert sent[0]["messages"][0]["content"] == [{"type": "text", "text": "see"}, UPGRADED]
    assert result.ok and result.warnings == []
    assert result.messages[0]["content"][1] == UPGRADED  # the thread keeps the modern form


def test_the_client_sends_the_tools_and_context_it_is_given_and_nothing_when_not():
    sent: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, content=sse(START, FINISH), headers={"content-type": "text/event-stream"})

    tool = {"name": "pick", "description": "pick one", "parameters": {"type": "object"}}
    context = [{"description": "locale", "value": "en-GB"}]

    async def scenario():
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with http, AGUIClient("http://agent", http=http) as client:
            await client.run("t", run_id="r", tools=[tool], context=context)
            await client.run("t", run_id="r")

    asyncio.run(scenario())
    assert sent[0]["tools"] == [tool] and sent[0]["context"] == context
    assert "tools" not in sent[1] and "context" not in sent[1]  # absent and empty mean the same
