"""The httpx AG-UI client against a real server: runs, approvals, refusals, recovery, duplicates."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

from agentproto.agui.client import AGUIClient, AGUIHTTPError, Deduplicator, SyncAGUIClient
from agentproto.agui.errors import VerificationError
from agentproto.agui.interrupts import BuildResumeError, InterruptExpiredError, cancelled
from agentproto.clock import IdFactory
from agentproto.server import RunningServer, running_server
from tests.fixtures import demo_server

REFUND = "check order A1024 and refund it if shipped"


@pytest.fixture
def server(clock):
    with demo_server(clock, ids="id") as running:
        yield running


def client_for(server, clock, **kwargs) -> AGUIClient:
    return AGUIClient(server.url, ids=IdFactory("c"), clock=clock, **kwargs)


def run(coro):
    return asyncio.run(coro)


# --- the happy paths --------------------------------------------------------------------------


def test_send_then_approve_refunds_and_leaves_the_local_thread_equal_to_the_servers(server, clock):
    async def scenario():
        async with client_for(server, clock) as client:
            first = await client.send("t-1", REFUND)
            assert first.outcome == "interrupt"
            assert client.thread("t-1").pending_interrupts == first.interrupts
            second = await client.approve("t-1")
            snapshot = await client.snapshot("t-1")
            return first, second, client.thread("t-1"), snapshot

    first, second, view, snapshot = run(scenario())
    assert second.ok and "refunded 128.00 USD" in second.text
    assert second.result["decisions"][0]["decision"] == "approved"
    assert view.pending_interrupts == []
    assert view.state == snapshot["state"]
    assert view.messages == snapshot["messages"]


def test_deny_is_a_resolved_answer_and_nothing_is_refunded(server, clock):
    async def scenario():
        async with client_for(server, clock) as client:
            await client.send("t-1", REFUND)
            return await client.deny("t-1", comment="customer changed their mind")

    result = run(scenario())
    assert result.ok and "no refund" in result.text
    assert server.app.state.tools.refunds() == []


def test_cancel_abandons_the_interrupt(server, clock):
    async def scenario():
        async with client_for(server, clock) as client:
            await client.send("t-1", REFUND)
            return await client.cancel("t-1")

    result = run(scenario())
    assert result.ok and server.app.state.tools.refunds() == []


def test_approve_with_edited_arguments_sends_the_whole_argument_object(server, clock):
    async def scenario():
        async with client_for(server, clock) as client:
            await client.send("t-1", REFUND)
            proposed = client.proposed_args("t-1")
            return proposed, await client.approve("t-1", edited_args={**proposed, "amountCents": 2500})

    proposed, result = run(scenario())
    assert set(proposed) == {"orderId", "amountCents", "reason"}
    assert result.result["decisions"][0]["refund"]["amountCents"] == 2500
    (decision,) = [r for r in server.app.state.store.thread_record("t-1").interrupts]
    assert decision.decision["payload"]["editedArgs"] == {**proposed, "amountCents": 2500}


def test_proposed_args_is_empty_without_a_pending_tool_call():
    client = AGUIClient("http://127.0.0.1:1")
    client.thread("t").pending_interrupts = [{"id": "i1", "reason": "confirmation"}]
    assert client.proposed_args("t") == {}


def test_on_event_sees_each_event_as_it_arrives(server, clock):
    seen: list[str] = []

    async def scenario():
        async with client_for(server, clock) as client:
            return await client.send("t-1", REFUND, on_event=lambda e: seen.append(e["type"]))

    result = run(scenario())
    assert seen == result.types and seen[0] == "RUN_STARTED"


def test_the_sync_client_needs_no_event_loop(server, clock):
    with SyncAGUIClient(server.url, ids=IdFactory("s"), clock=clock) as client:
        assert client.send("t-1", REFUND).outcome == "interrupt"
        assert client.approve("t-1").ok
        assert client.thread("t-1").state["stage"] == "refunded"


# --- consumer rules checked before anything is sent ------------------------------------------


def test_a_resume_missing_an_open_interrupt_is_refused_before_sending(server, clock):
    async def scenario():
        async with client_for(server, clock) as client:
            await client.send("t-1", REFUND)
            with pytest.raises(BuildResumeError, match="missing responses for open interrupts"):
                await client.resume("t-1", {})
            with pytest.raises(BuildResumeError, match="unknown interrupt ids: nope"):
                pending = client.thread("t-1").pending_interrupts[0]["id"]
                await client.resume("t-1", {pending: cancelled(), "nope": cancelled()})

    run(scenario())
    assert len(server.app.state.store.runs("t-1")) == 1  # nothing reached the server


def test_an_expired_interrupt_cannot_be_approved_but_can_be_cancelled(server, clock):
    async def scenario():
        async with client_for(server, clock) as client:
            await client.send("t-1", REFUND)
            clock.advance(60 * 60 * 1000)
            with pytest.raises(InterruptExpiredError):
                await client.approve("t-1")
            assert len(server.app.state.store.runs("t-1")) == 1  # refused locally
            return await client.cancel("t-1")

    assert run(scenario()).ok


def test_a_server_refusal_is_an_http_error_with_the_servers_code(server, clock):
    async def scenario():
        async with client_for(server, clock) as client:
            await client.send("t-1", REFUND)
            with pytest.raises(AGUIHTTPError) as info:
                await client.send("t-1", "never mind, something else")
            return info.value

    error = run(scenario())
    assert (error.status, error.code) == (409, "resume.required")
    assert "pending interrupt" in str(error)


# --- what arrives on the wire is judged by the core pipeline ------------------------------------


def canned(body: bytes) -> Starlette:
    async def agent(_request):
        return Response(body, media_type="text/event-stream")

    return Starlette(routes=[Route("/ag-ui/agent", agent, methods=["POST"])])


def frames(*events: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def test_a_protocol_violation_rejects_the_stream_and_leaves_the_thread_untouched():
    body = frames(
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"},
    )

    async def scenario(url):
        async with AGUIClient(url) as client:
            with pytest.raises(VerificationError, match="No active text message found"):
                await client.run("t", run_id="r")
            return client.thread("t")

    with running_server(canned(body)) as url:
        view = run(scenario(url))
    assert view.messages == [] and view.runs == []


def test_run_error_is_a_failed_run_never_a_success():
    body = frames(
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "RUN_ERROR", "message": "model quota exceeded", "code": "QUOTA"},
    )

    async def scenario(url):
        async with AGUIClient(url) as client:
            return await client.run("t", run_id="r")

    with running_server(canned(body)) as url:
        result = run(scenario(url))
    assert (result.outcome, result.ok) == ("failed", False)
    assert result.error == {"message": "model quota exceeded", "code": "QUOTA"}


# --- dropped connections and repeated events ----------------------------------------------------


class _Body(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes], fail: bool) -> None:
        self.chunks, self.fail = chunks, fail

    async def __aiter__(self):
        for chunk in self.chunks:
            yield chunk
        if self.fail:
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")


class _Meddling(httpx.AsyncBaseTransport):
    """Passes requests to the real server, then rewrites the agent's SSE frames."""

    def __init__(self, rewrite) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.rewrite = rewrite

    async def handle_async_request(self, request):
        response = await self.inner.handle_async_request(request)
        if not request.url.path.endswith("/agent") or response.status_code != 200:
            return response
        raw = b"".join([chunk async for chunk in response.stream])
        await response.aclose()
        parts = [p + b"\n\n" for p in raw.split(b"\n\n") if p]
        chunks, fail = self.rewrite(parts)
        return httpx.Response(200, headers=response.headers, stream=_Body(chunks, fail), request=request)


def test_a_dropped_stream_is_recovered_from_the_thread_snapshot_not_replayed(server, clock):
    cut_after = {"n": 5}
    transport = _Meddling(lambda parts: (parts[: cut_after["n"]], True))

    async def scenario():
        http = httpx.AsyncClient(transport=transport)
        async with client_for(server, clock, http=http) as client:
            result = await client.send("t-1", REFUND)
            view = client.thread("t-1")
            snapshot = await client.snapshot("t-1")
            await http.aclose()
            return result, view, snapshot

    result, view, snapshot = run(scenario())
    assert result.recovered and result.outcome == "interrupt"
    assert len(result.events) == 5  # what arrived before the drop, kept for inspection only
    assert view.state == snapshot["state"] and view.messages == snapshot["messages"]
    assert view.pending_interrupts == snapshot["pendingInterrupts"] != []


def test_after_recovery_the_approval_flow_continues(server, clock):
    transport = _Meddling(lambda parts: (parts[:3], True))

    async def scenario():
        http = httpx.AsyncClient(transport=transport)
        async with client_for(server, clock, http=http) as client:
            await client.send("t-1", REFUND)
        async with client_for(server, clock) as fresh:
            fresh.threads = client.threads  # same local view, a connection that works
            result = await fresh.approve("t-1")
        await http.aclose()
        return result

    assert run(scenario()).ok
    assert len(server.app.state.tools.refunds("A1024")) == 1


def _repeat_identity_frames(parts: list[bytes]):
    out = []
    for part in parts:
        out.append(part)
        if b'"TEXT_MESSAGE_CONTENT"' not in part and b'"TOOL_CALL_ARGS"' not in part:
            out.append(part)  # a middlebox that repeats everything with an identity
    return out, False


def test_repeated_events_are_dropped_and_the_result_is_unchanged(server, clock):
    async def scenario():
        http = httpx.AsyncClient(transport=_Meddling(_repeat_identity_frames))
        async with client_for(server, clock, http=http) as client:
            result = await client.send("t-1", REFUND)
        await http.aclose()
        return result

    result = run(scenario())
    assert result.outcome == "interrupt"
    assert result.duplicates_dropped > 10
    assert "TEXT_MESSAGE_START" in result.types
    stored = server.app.state.store.events("t-1", result.run_id)
    assert result.events == stored


def test_identical_deltas_are_never_taken_for_duplicates():
    dedup = Deduplicator()
    delta = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "ha"}
    assert [
        dedup.is_duplicate(e)
        for e in (
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
            {"type": "TEXT_MESSAGE_START", "messageId": "m"},
            delta,
            delta,
        )
    ] == [False, False, False, False]


def test_a_reopened_message_is_not_a_duplicate_but_a_repeated_open_is():
    dedup = Deduplicator()
    start = {"type": "TEXT_MESSAGE_START", "messageId": "m"}
    end = {"type": "TEXT_MESSAGE_END", "messageId": "m"}
    assert [dedup.is_duplicate(e) for e in (start, start, end, end, start)] == [
        False,
        True,
        False,
        True,
        False,
    ]
    assert dedup.dropped == 2


def test_a_repeated_tool_result_and_run_finished_are_duplicates():
    dedup = Deduplicator()
    result = {"type": "TOOL_CALL_RESULT", "messageId": "m2", "toolCallId": "tc", "content": "x"}
    finished = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
    assert [dedup.is_duplicate(e) for e in (result, result, finished, finished)] == [False, True, False, True]


@pytest.mark.interop
def test_the_events_the_client_collected_parse_with_the_official_models(server, clock):
    core = pytest.importorskip("ag_ui.core")
    import pydantic

    async def scenario():
        async with client_for(server, clock) as client:
            first = await client.send("t-1", REFUND)
            return first.events + (await client.approve("t-1")).events

    adapter = pydantic.TypeAdapter(core.Event)
    events = run(scenario())
    assert [adapter.validate_python(e).type.value for e in events] == [e["type"] for e in events]


# --- options that would do nothing are refused -------------------------------------------------


def test_a_timeout_for_a_client_it_does_not_make_is_refused():
    http = httpx.AsyncClient()
    try:
        with pytest.raises(ValueError, match="timeout"):
            AGUIClient("http://127.0.0.1:1", http=http, timeout=5)
    finally:
        asyncio.run(http.aclose())
    with pytest.raises(ValueError):
        AGUIClient("http://127.0.0.1:1", recover_timeout=0)


def test_the_timeouts_are_named_as_on_the_a2a_clients_and_the_old_names_still_work():
    client = AGUIClient("http://127.0.0.1:1", timeout=7, recover_timeout=3)
    assert client.http.timeout.connect == 7 and client.recover_timeout == 3
    with pytest.warns(DeprecationWarning, match="timeout="):
        old = AGUIClient("http://127.0.0.1:1", timeout_s=7, recover_timeout_s=3)
    assert old.http.timeout.connect == 7 and old.recover_timeout == 3
    with pytest.raises(TypeError, match="timeout_ms"):
        AGUIClient("http://127.0.0.1:1", timeout_ms=7)


def test_auth_sends_the_bearer_token_on_runs_snapshots_and_cancels():
    from agentproto.client_auth import ClientCredentials
    from tests.servers import AUTH_CLIENTS, secured

    with RunningServer(secured(a2a_agent=None)) as running:
        anonymous = SyncAGUIClient(running.url, ids=IdFactory("a"))
        with pytest.raises(AGUIHTTPError) as refused:
            anonymous.send("t-1", REFUND)
        assert refused.value.status == 401
        anonymous.close()
        auth = ClientCredentials(running.url + "/oauth/token", "alice", AUTH_CLIENTS["alice"])
        with SyncAGUIClient(running.url, ids=IdFactory("c"), auth=auth) as client:
            assert client.send("t-1", REFUND).outcome == "interrupt"
            assert client.snapshot("t-1")["threadId"] == "t-1"
            assert client.approve("t-1").outcome == "success"
        assert auth.tokens_fetched == 1


def test_an_empty_edit_is_refused_before_anything_is_sent():
    client = AGUIClient("http://127.0.0.1:1")  # nothing listens: a request would fail loudly
    client.thread("t").pending_interrupts = [{"id": "i1", "reason": "tool_call"}]
    with pytest.raises(ValueError, match="edited_args is empty"):
        asyncio.run(client.approve("t", edited_args={}))


def test_routes_refuse_settings_that_would_do_nothing():
    from agentproto.agui._threadstore import ThreadStore as Store
    from agentproto.agui.server import agui_routes

    store = Store(":memory:")
    bad_settings = (
        {"heartbeat_s": 0},
        {"pace_s": -1},
        {"replay_wait_s": -1},
        {"max_body_bytes": 0},
        {"max_thread_messages": 0},
        {"max_active_runs": 0},
    )
    for bad in bad_settings:
        with pytest.raises(ValueError):
            agui_routes(store, lambda ctx: iter(()), **bad)


# --- outgoing material (spec basic/processing: "Immediately before transmission") ---------------


def _recording_agent(sent: list[dict]) -> httpx.MockTransport:
    body = frames(
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    )

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})

    return httpx.MockTransport(handler)


def test_unrecognised_material_is_removed_from_the_input_before_it_is_sent_with_a_warning():
    sent: list[dict] = []
    message = {
        "id": "u1",
        "role": "user",
        "content": [{"type": "text", "text": "look"}, {"type": "hologram", "frames": 3}],
        "mood": "curious",  # a property the spec does not describe
    }

    async def scenario():
        async with httpx.AsyncClient(transport=_recording_agent(sent)) as http:
            client = AGUIClient("http://agent", http=http)
            return await client.run("t", run_id="r", new_messages=[message], forwarded_props={"x": {"y": 1}})

    result = run(scenario())
    [wire] = sent
    assert wire["messages"] == [{"id": "u1", "role": "user", "content": [{"type": "text", "text": "look"}]}]
    assert wire["forwardedProps"] == {"x": {"y": 1}}  # an open object: kept whole
    paths = {w["path"] for w in result.warnings}
    assert {"/messages/0/mood", "/messages/0/content/1"} <= paths
    assert result.ok


def test_a_malformed_known_field_is_refused_before_anything_is_sent():
    from agentproto.agui.errors import MalformedEventError

    sent: list[dict] = []

    async def scenario():
        async with httpx.AsyncClient(transport=_recording_agent(sent)) as http:
            client = AGUIClient("http://agent", http=http)
            with pytest.raises(MalformedEventError, match="/messages/0/id") as info:
                await client.run("t", run_id="r", new_messages=[{"id": 7, "role": "user", "content": "hi"}])
            view = client.thread("t")
            return info.value, view

    error, view = run(scenario())
    assert sent == [] and view.runs == []
    assert "Expected string, received number" in str(error)


def test_body_override_still_sends_a_contract_breaking_input_verbatim():
    sent: list[dict] = []

    async def scenario():
        async with httpx.AsyncClient(transport=_recording_agent(sent)) as http:
            client = AGUIClient("http://agent", http=http)
            await client.run("t", run_id="r", body_override={"messages": [{"id": 7, "role": "user"}]})

    run(scenario())
    assert sent[0]["messages"] == [{"id": 7, "role": "user"}]


# --- a truncated stream from a server that is not this kit ---------------------------------------

TRUNCATED = frames(
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "STATE_SNAPSHOT", "snapshot": {"step": 1}},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "half a"},
)


def _foreign_server(thread_answer: httpx.Response) -> httpx.MockTransport:
    """An AG-UI agent with no thread route of the kit's: GET /threads/… gets ``thread_answer``."""

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(200, content=TRUNCATED, headers={"content-type": "text/event-stream"})
        return thread_answer

    return httpx.MockTransport(handler)


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(404, json={"detail": "Not Found"}),
        httpx.Response(
            200, text="<!doctype html><title>My app</title>", headers={"content-type": "text/html"}
        ),
        httpx.Response(200, json=["not", "a", "thread"]),
        httpx.Response(502, text="Bad Gateway"),
    ],
    ids=["404", "catch-all-html", "json-not-a-thread", "502"],
)
def test_a_truncated_run_is_reported_truncated_when_the_server_offers_no_recovery(answer):
    async def scenario():
        async with httpx.AsyncClient(transport=_foreign_server(answer)) as http:
            client = AGUIClient("http://agent", http=http, recover_timeout=1)
            result = await client.run(
                "t", run_id="r", new_messages=[{"id": "u", "role": "user", "content": "go"}]
            )
            return result, client.thread("t")

    result, view = run(scenario())
    assert result.outcome == "truncated" and not result.recovered and not result.ok
    assert result.state == {"step": 1} and result.messages[-1]["content"] == "half a"
    assert "no thread recovery" in result.warnings[-1]["message"]
    assert (view.state, view.messages, view.runs) == ({}, [], [result])  # the thread is not advanced
