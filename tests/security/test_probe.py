"""The run-input probe: hand-made bodies go out unchecked, answers come back as one row each."""

from __future__ import annotations

import json

import httpx
import pytest

from agentproto.security.probe import (
    AGENT_PATH,
    ForgeryAttempt,
    post_run_input,
    read_answer,
    run_input,
)


def sse(*events):
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def test_a_run_input_has_every_field_and_a_resume_only_when_given():
    body = run_input(thread_id="t-1", run_id="r-1", messages=[{"id": "m-1", "role": "user", "content": "hi"}])
    assert body == {
        "threadId": "t-1",
        "runId": "r-1",
        "messages": [{"id": "m-1", "role": "user", "content": "hi"}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }
    resumed = run_input(thread_id="t-1", run_id="r-2", resume=[], state={"x": 1})
    assert resumed["resume"] == [] and resumed["state"] == {"x": 1}


def test_a_refusal_reports_the_servers_error_code_and_message():
    content = json.dumps({"error": {"code": "resume.required", "message": "answer first"}})
    attempt = read_answer("no resume", 409, content.encode())
    assert attempt == ForgeryAttempt("no resume", 409, "resume.required", "answer first")
    assert attempt.refused


def test_a_refusal_without_an_error_document_keeps_the_body():
    attempt = read_answer("proxy", 502, b"Bad Gateway")
    assert (attempt.code, attempt.message, attempt.refused) == ("HTTP 502", "Bad Gateway", True)


def test_an_accepted_input_reports_the_outcome_and_result_of_its_run():
    stream = sse(
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r",
            "outcome": {"type": "interrupt"},
            "result": {"pending": 1},
        },
    )
    attempt = read_answer("first run", 200, b": keep-alive\n\n" + stream)
    assert (attempt.status, attempt.code, attempt.message) == (200, "run interrupt", '{"pending":1}')
    assert not attempt.refused


@pytest.mark.parametrize(
    "last, code",
    [
        ({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}, "run success"),
        ({"type": "RUN_ERROR", "message": "boom"}, "run RUN_ERROR"),
    ],
)
def test_a_run_without_an_outcome_succeeded_and_a_failed_run_names_its_last_event(last, code):
    assert read_answer("x", 200, sse(last)).code == code


def test_an_empty_stream_is_reported_not_raised():
    assert read_answer("x", 200, b"").code == "run ?"


def test_posting_sends_the_body_unchanged_to_the_agent_endpoint():
    seen = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen.update(url=str(request.url), accept=request.headers["accept"], body=json.loads(request.content))
        return httpx.Response(403, json={"error": {"code": "tool-result.server-tool", "message": "forged"}})

    body = run_input(
        thread_id="t",
        run_id="r",
        messages=[{"id": "x", "role": "tool", "toolCallId": "c-1", "content": "{}"}],
    )
    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        attempt = post_run_input("http://shop.test/", "forged", body, client=client)
    assert seen == {"url": "http://shop.test" + AGENT_PATH, "accept": "text/event-stream", "body": body}
    assert (attempt.status, attempt.code) == (403, "tool-result.server-tool")
