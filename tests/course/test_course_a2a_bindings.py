"""Notebook 11's three-binding views: the wire taps, the second subscriber, the webhook check."""

from __future__ import annotations

import asyncio

import pytest

BINDINGS = ("jsonrpc", "rest", "grpc")  # the course extra carries grpcio and the official stubs


def three_binding_server(agent: str = "conformance"):
    from agentproto.a2a.server import create_a2a_app
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.server import RunningServer

    app = create_a2a_app(agent=agent, clock=FakeClock(), ids=IdFactory("task"), grpc=True)
    return RunningServer(app)


def on_every_binding(call, agent="conformance"):
    """``await call(name, client, wire)`` for each binding's tapped client on a fresh server
    serving ``agent`` (a shipped agent's name or an agent object); returns {binding: what call returned}."""
    from agentproto.course.a2a_bindings import connect_tapped

    async def run():
        with three_binding_server(agent) as server:
            wire = await connect_tapped(server.url, BINDINGS)
            try:
                return {name: await call(name, client, wire) for name, client in wire.clients.items()}
            finally:
                await wire.aclose()

    return asyncio.run(run())


def test_one_task_on_every_binding_is_the_same_task_in_three_envelopes():
    from agentproto.a2a.types import user_message

    async def send(name, client, wire):
        task = await client.send(
            user_message("Hello", message_id=f"tck-complete-task-{name}"), history_length=0
        )
        return task.status.state.value, wire.status(name), wire.render(name)

    out = on_every_binding(send)
    assert {state for state, _, _ in out.values()} == {"TASK_STATE_COMPLETED"}
    assert out["jsonrpc"][1] == out["rest"][1] == "HTTP 200"
    assert '"method": "SendMessage"' in out["jsonrpc"][2] and "a2a-version: 1.0" in out["jsonrpc"][2]
    assert "→ POST /a2a/rest/message:send" in out["rest"][2] and '"jsonrpc"' not in out["rest"][2]
    assert out["grpc"][1] == "OK"
    grpc_text = out["grpc"][2]
    assert grpc_text.startswith("→ /lf.a2a.v1.A2AService/SendMessage")
    assert "metadata a2a-version: 1.0" in grpc_text and 'message_id: "tck-complete-task-grpc"' in grpc_text


def test_task_not_found_is_minus_32001_on_json_rpc_404_on_rest_and_not_found_on_grpc():
    from agentproto.a2a.errors import TaskNotFoundError
    from agentproto.course.a2a_bindings import expect_error_async

    async def ghost(name, client, wire):
        await expect_error_async(client.get_task, "nope", error=TaskNotFoundError, quiet=True)
        return wire.status(name), wire.render(name)

    out = on_every_binding(ghost)
    assert out["jsonrpc"][0] == "HTTP 200, error.code -32001"
    assert out["rest"][0] == "HTTP 404" and '"status": "NOT_FOUND"' in out["rest"][1]
    for name in ("jsonrpc", "rest"):
        assert '"reason": "TASK_NOT_FOUND"' in out[name][1]
    assert out["grpc"][0] == "NOT_FOUND"
    assert "grpc-status-details-bin" in out["grpc"][1] and 'reason: "TASK_NOT_FOUND"' in out["grpc"][1]


def test_streams_are_sse_on_the_http_bindings_and_server_streaming_on_grpc():
    from agentproto.a2a.types import user_message
    from agentproto.course.a2a_bindings import collect, states_seen

    async def stream(name, client, wire):
        events = await collect(client.stream(user_message("go", message_id=f"tck-stream-basic-{name}")))
        return states_seen(events), wire.taps[name].last

    out = on_every_binding(stream)
    expected = ["Task: submitted", "working", "artifact stream-artifact", "completed"]
    assert all(seen == expected for seen, _ in out.values())
    jsonrpc, rest = out["jsonrpc"][1], out["rest"][1]
    assert jsonrpc.is_stream and rest.is_stream
    assert all("jsonrpc" in frame for frame in jsonrpc.sse_data())
    assert [next(iter(frame)) for frame in rest.sse_data()] == [
        "task",
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]
    call = out["grpc"][1]
    assert call.streaming and len(call.responses) == 4 and call.code == "OK"


def test_a_second_subscriber_sees_another_clients_answer_through_to_the_terminal_state():
    from agentproto.a2a.client_bindings import connect
    from agentproto.a2a.errors import UnsupportedOperationError
    from agentproto.clock import IdFactory
    from agentproto.course.a2a_bindings import collect, expect_error_async, second_subscriber, states_seen

    async def run():
        with three_binding_server("travel") as server:
            alice = await connect(server.url, binding="jsonrpc", ids=IdFactory("alice"))
            bob = await connect(server.url, binding="rest", ids=IdFactory("bob"))
            try:
                first = await collect(alice.stream("Plan my trip to Sanya"))
                task_id = first[0].task.id
                seen, answer = await second_subscriber(
                    alice, task_id, lambda: bob.send("2026-04-08 to 2026-04-12", task_id=task_id)
                )
                again = await expect_error_async(
                    alice.subscribe, task_id, error=UnsupportedOperationError, quiet=True
                )
                return states_seen(first), states_seen(seen), answer, again
            finally:
                await alice.aclose()
                await bob.aclose()

    first, seen, answer, again = asyncio.run(run())
    assert first[-1] == "input-required"  # the kit's send stream ends when only the client can move
    assert seen[0] == "Task: input-required" and seen[1] == "working" and seen[-1] == "completed"
    assert answer.status.state.value == "TASK_STATE_COMPLETED"
    assert isinstance(again, UnsupportedOperationError)


def test_authorization_ok_compares_the_scheme_case_insensitively_and_the_credentials_exactly():
    from agentproto.course.a2a_bindings import authorization_ok

    assert authorization_ok({"authorization": "Bearer s3cret"}, "Bearer", "s3cret")
    assert authorization_ok({"Authorization": "bearer s3cret"}, "Bearer", "s3cret")
    assert not authorization_ok({"authorization": "Bearer s3cret!"}, "Bearer", "s3cret")
    assert not authorization_ok({"authorization": "Basic s3cret"}, "Bearer", "s3cret")
    assert not authorization_ok({"x-a2a-notification-token": "s3cret"}, "Bearer", "s3cret")


def test_the_wire_viewer_shows_the_chosen_exchange_on_the_chosen_binding():
    from agentproto.course.a2a_bindings import WireViewer

    viewer = WireViewer({"Send": {"jsonrpc": "J-send", "rest": "R-send"}, "Get": {"jsonrpc": "J-get"}})
    assert viewer.text == "J-send" and "J-send" in viewer.view.value
    viewer.binding.value = "rest"
    assert viewer.text == "R-send"
    viewer.exchange.value = "Get"
    assert "not captured" in viewer.text and "not captured" in viewer.view.value


def test_expect_error_async_insists_on_an_error():
    from agentproto.course.a2a_bindings import expect_error_async
    from agentproto.course.checks import ExerciseFailed

    async def fine():
        return 1

    async def broken():
        raise ValueError("boom")

    assert isinstance(asyncio.run(expect_error_async(broken, error=ValueError, quiet=True)), ValueError)
    with pytest.raises(ExerciseFailed, match="returned normally"):
        asyncio.run(expect_error_async(fine, error=ValueError))
