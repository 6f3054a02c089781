"""Hypothesis fuzzing: from hostile bytes only *documented* errors may come out.

Sans-I/O parsers are fuzzed directly (many examples, fast); the two HTTP endpoints of the demo
server are fuzzed over real HTTP (fewer examples). ``AGENTPROTO_SOAK=1`` runs many more.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentproto import limits
from agentproto.a2a.agents import make_agent
from agentproto.a2a.jsonrpc import JSONRPCDispatcher
from agentproto.a2a.service import A2AService
from agentproto.agui.errors import AGUIError
from agentproto.agui.interrupts import ResumeError, ThreadRecord, validate_resume
from agentproto.agui.parse import parse_run_agent_input
from agentproto.agui.pipeline import lint_source
from agentproto.agui.sse import SSEDecoder
from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import create_app
from agentproto.server import running_server
from tests.reliability.sizes import size

FAST = settings(max_examples=size(100, 3000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
HTTP = settings(
    max_examples=size(15, 600),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=20)
# JSON values only: NaN and the infinities are not JSON numbers (RFC 8259 section 6); the
# hostile texts below send their tokens on purpose.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**25), 10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(text, kids, max_size=4),
    max_leaves=20,
)
hostile_text = st.one_of(
    st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
    json_values.map(json.dumps),
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.sampled_from(
        ['"\\ud800"', '{"a":"\\udfff"}', "9" * 5000, "{", "[1,", "\ufeff{}", "[NaN]", "-Infinity", "1e999"]
    ),
)


def run_input_like(draw_values: Any) -> Any:
    return st.fixed_dictionaries(
        {"threadId": text, "runId": text},
        optional={
            "messages": st.lists(
                st.fixed_dictionaries(
                    {"id": text, "role": st.sampled_from(["user", "assistant", "tool", "x"])},
                    optional={"content": draw_values, "toolCallId": text},
                ),
                max_size=3,
            ),
            "state": draw_values,
            "resume": st.lists(
                st.fixed_dictionaries(
                    {
                        "interruptId": st.sampled_from(["int-1", "int-2"]) | text,
                        "status": st.sampled_from(["resolved", "cancelled", "bogus"]),
                    },
                    optional={"payload": draw_values},
                ),
                max_size=2,
            ),
            "tools": draw_values,
            "context": draw_values,
            "forwardedProps": draw_values,
        },
    )


@FAST
@given(st.lists(st.binary(max_size=64), max_size=8))
def test_the_sse_decoder_only_raises_decode_errors(chunks):
    decoder = SSEDecoder()
    try:
        for chunk in chunks:
            decoder.feed(chunk)
        decoder.close()
    except AGUIError:
        pass


@FAST
@given(hostile_text)
def test_the_limits_boundary_only_raises_limit_errors(body):
    try:
        limits.loads(body)
    except limits.LimitError as exc:
        assert exc.kind in ("json", "depth", "string", "surrogate", "integer", "items")


#: Limits small enough for generated values to sit on both sides of every one of them.
TIGHT = limits.Limits(max_depth=3, max_string_chars=20, max_int_digits=30, max_items=3, max_parts=64)


@FAST
@given(json_values, st.booleans())
def test_loads_refuses_exactly_the_values_check_refuses(value, ascii_only):
    """``loads`` skips the walk for a text too small to break a limit: never wrongly."""
    body = json.dumps(value, ensure_ascii=ascii_only)
    try:
        limits.check(json.loads(body), TIGHT)
        refused = False
    except limits.LimitError:
        refused = True
    try:
        limits.loads(body, TIGHT)
        assert not refused, body
    except limits.LimitError:
        assert refused, body


@pytest.mark.parametrize(
    "body, refused",
    [
        ("[[[]]]", False),
        ("[[[[]]]]", True),  # depth
        ('{"a":{"b":{"c":{}}}}', True),
        ('"' + "a" * 18 + '"', False),
        ('"' + "a" * 21 + '"', True),  # string
        ('{"' + "a" * 21 + '":1}', True),
        ("[1,2,3]", False),
        ("[1,2,3,4]", True),  # items
        ('"\\u00e9"', False),
        ('"\\ud800"', True),  # surrogate
        ('"\u00e9\u00e9\u00e9"', False),
    ],
)
def test_loads_refuses_each_limit_just_beyond_it(body, refused):
    try:
        limits.loads(body.encode(), TIGHT)
        assert not refused
    except limits.LimitError:
        assert refused


@FAST
@given(st.one_of(hostile_text, run_input_like(json_values).map(json.dumps)))
def test_the_run_input_parser_behind_the_limits_only_raises_agui_errors(body):
    try:
        parsed = limits.loads(body)
    except limits.LimitError:
        return
    try:
        parse_run_agent_input(parsed)
    except AGUIError:
        pass


@FAST
@given(run_input_like(json_values))
def test_the_resume_validator_only_raises_resume_errors(body):
    try:
        limits.check(body)
        run_input, _ = parse_run_agent_input(body)
    except (limits.LimitError, AGUIError):
        return
    try:
        pending = [{"id": "int-1", "reason": "tool_call", "toolCallId": "tc-1"}]
        ledger = ThreadRecord.from_pending(run_input.thread_id, "run-0", pending)
        validate_resume(ledger, run_input, 0, owner_of=lambda _id: None)
    except ResumeError:
        pass


@FAST
@given(
    st.one_of(
        hostile_text.map(lambda s: s.encode("utf-8", "surrogatepass")), st.lists(json_values, max_size=6)
    )
)
def test_the_consumer_pipeline_reports_instead_of_raising(data):
    report = lint_source(data)
    assert report.ok in (True, False)


rpc_bodies = st.one_of(
    hostile_text,
    st.fixed_dictionaries(
        {
            "jsonrpc": st.sampled_from(["2.0", "1.0"]),
            "method": st.sampled_from(
                [
                    "SendMessage",
                    "GetTask",
                    "ListTasks",
                    "CancelTask",
                    "GetExtendedAgentCard",
                    "CreateTaskPushNotificationConfig",
                    "x",
                ]
            ),
            "id": st.one_of(st.integers(-(10**30), 10**30), text, st.none()),
            "params": json_values,
        }
    ).map(json.dumps),
)


@FAST
@given(rpc_bodies)
def test_json_rpc_dispatch_answers_every_body_with_a_documented_response(body):
    service = A2AService(make_agent("echo"), clock=FakeClock(), ids=IdFactory("t"))
    out = asyncio.run(
        JSONRPCDispatcher(service).dispatch(body.encode("utf-8", "surrogatepass"), {"A2A-Version": "1.0"})
    )
    if isinstance(out, dict):
        assert out.get("error", {}).get("code") != -32603, out


@pytest.fixture(scope="module")
def url():
    with running_server(create_app(clock=FakeClock(), ids=IdFactory("id"), a2a_agent="echo")) as base:
        yield base


@HTTP
@given(body=st.one_of(hostile_text, run_input_like(json_values).map(json.dumps)))
def test_the_agui_endpoint_never_answers_5xx(url, body):
    r = httpx.post(
        url + "/ag-ui/agent",
        content=body.encode("utf-8", "surrogatepass"),
        headers={"Content-Type": "application/json"},
        timeout=10,
    )
    assert r.status_code < 500, r.text
    if r.status_code != 200:
        assert "error" in r.json()


@HTTP
@given(body=rpc_bodies)
def test_the_a2a_endpoint_never_answers_internal_error(url, body):
    r = httpx.post(
        url + "/a2a",
        content=body.encode("utf-8", "surrogatepass"),
        timeout=10,
        headers={"Content-Type": "application/json", "A2A-Version": "1.0"},
    )
    assert r.status_code < 500, r.text
    if r.headers["content-type"].startswith("application/json") and r.status_code == 200:
        assert r.json().get("error", {}).get("code") != -32603, r.text
