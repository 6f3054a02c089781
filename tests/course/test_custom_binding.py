"""Notebook 12 §6: the kit's teaching custom binding (NDJSON over TCP), spec §5.8 and §12.

Every server binds 127.0.0.1 port 0 and is stopped in a ``finally``/``with``; every client call
is bounded by ``asyncio.wait_for``.
"""

from __future__ import annotations

import asyncio
import json

import pytest

LIMIT_S = 20.0


def _app(authenticate=None):
    from agentproto.clock import FakeClock, IdFactory
    from agentproto.course.custom_binding import create_app_with_binding

    return create_app_with_binding(
        "travel", clock=FakeClock(), ids=IdFactory("task"), authenticate=authenticate
    )


def _run(coro):
    return asyncio.run(asyncio.wait_for(coro, LIMIT_S))


def served(call, authenticate=None):
    """``await call(server_url, app)`` while the travel desk serves JSON-RPC and the custom binding."""
    from agentproto.server import RunningServer

    app = _app(authenticate)
    with RunningServer(app) as server:
        return _run(call(server.url, app))


async def _raw(url: str, *lines: dict | bytes) -> list[dict]:
    """Send raw request lines on one connection; return every reply line until EOF."""
    from agentproto.course.custom_binding import split_url

    host, port = split_url(url)
    reader, writer = await asyncio.open_connection(host, port)
    try:
        for line in lines:
            writer.write(line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n")
        await writer.drain()
        writer.write_eof()
        return [json.loads(raw) for raw in (await reader.read()).splitlines()]
    finally:
        writer.close()


def test_wire_exchange_returns_the_reply_lines_as_text():
    from agentproto.course.custom_binding import wire_exchange

    async def call(base, app):
        return await wire_exchange(
            app.state.custom_binding.url,
            {"id": 1, "op": "ListTasks", "params": {}, "serviceParams": {"A2A-Version": "1.0"}},
            "{broken",
        )

    listed, broken = served(call)
    assert json.loads(listed)["id"] == 1 and json.loads(listed)["result"]["tasks"] == []
    assert json.loads(broken)["error"]["type"] == "JSONParseError"


def test_a_line_over_the_limit_is_refused_with_an_error_line():
    from agentproto.course.custom_binding import MAX_LINE_BYTES, wire_exchange

    async def call(base, app):
        return await wire_exchange(app.state.custom_binding.url, "x" * (MAX_LINE_BYTES + 10))

    (reply,) = served(call)
    assert json.loads(reply)["error"]["type"] == "InvalidRequestError"


def test_the_card_declares_the_binding_first_under_a_uri_the_kit_owns():
    from agentproto.a2a import A2AClient
    from agentproto.course.custom_binding import BINDING_URI

    async def call(base, app):
        card = await A2AClient.fetch_card(base)
        return card, app.state.custom_binding.url

    card, url = served(call)
    first = card.supported_interfaces[0]
    assert BINDING_URI.startswith("https://") and BINDING_URI.endswith("/v1")
    assert first.protocol_binding == BINDING_URI and first.url == url and url.startswith("tcp://127.0.0.1:")
    assert first.protocol_version == "1.0"
    assert [i.protocol_binding for i in card.supported_interfaces][1] == "JSONRPC"


def test_a_client_picks_the_custom_binding_and_one_that_does_not_know_it_falls_back_to_jsonrpc():
    from agentproto.a2a import A2AClient
    from agentproto.course.custom_binding import BINDING_URI, NdjsonA2AClient, connect_from_card

    async def call(base, app):
        card = await A2AClient.fetch_card(base)
        knows = await connect_from_card(card)
        plain = await connect_from_card(card, accept=("JSONRPC",))
        try:
            return type(knows), knows.url, type(plain), plain.url
        finally:
            await knows.aclose()
            await plain.aclose()

    knows, knows_url, plain, plain_url = served(call)
    assert knows is NdjsonA2AClient and knows_url.startswith("tcp://")
    assert plain is A2AClient and plain_url.endswith("/a2a")
    assert BINDING_URI not in plain_url


def test_round_trip_send_get_list_cancel_over_the_socket():
    from agentproto.course.custom_binding import NdjsonA2AClient

    async def call(base, app):
        client = NdjsonA2AClient(app.state.custom_binding.url)
        try:
            task = await client.send("Plan my trip to Sanya")
            got = await client.get_task(task.id)
            listed = await client.list_tasks(context_id=task.context_id)
            canceled = await client.cancel_task(task.id)
            return task, got, listed, canceled
        finally:
            await client.aclose()

    task, got, listed, canceled = served(call)
    assert task.status.state.value == "TASK_STATE_INPUT_REQUIRED"
    assert got.id == task.id and got.status.state == task.status.state
    assert [t.id for t in listed.tasks] == [task.id]
    assert canceled.status.state.value == "TASK_STATE_CANCELED"


def test_each_reply_is_one_json_line_with_the_request_id_and_the_same_result_shape():
    async def call(base, app):
        url = app.state.custom_binding.url
        msg = {"role": "ROLE_USER", "messageId": "m-1", "parts": [{"text": "Plan my trip to Sanya"}]}
        return await _raw(
            url,
            {
                "id": 7,
                "op": "SendMessage",
                "params": {"message": msg},
                "serviceParams": {"A2A-Version": "1.0"},
            },
            {"id": "x", "op": "ListTasks", "params": {}, "serviceParams": {"a2a-version": "1.0"}},
        )

    first, second = served(call)
    assert first["id"] == 7 and first["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert second["id"] == "x" and len(second["result"]["tasks"]) == 1  # keys are case-insensitive


def test_errors_keep_their_a2a_identity():
    from agentproto.a2a.errors import TaskNotCancelableError, TaskNotFoundError
    from agentproto.course.custom_binding import NdjsonA2AClient

    async def call(base, app):
        client = NdjsonA2AClient(app.state.custom_binding.url)
        try:
            with pytest.raises(TaskNotFoundError) as missing:
                await client.get_task("no-such-task")
            done = await client.send("Plan my trip to Sanya from 2026-04-08 to 2026-04-12")
            with pytest.raises(TaskNotCancelableError) as late:
                await client.cancel_task(done.id)
            return missing.value, late.value
        finally:
            await client.aclose()

    missing, late = served(call)
    assert missing.code == -32001 and late.code == -32002


def test_the_error_line_names_type_code_reason_and_details():
    async def call(base, app):
        url = app.state.custom_binding.url
        return await _raw(
            url,
            {"id": 1, "op": "GetTask", "params": {"id": "nope"}, "serviceParams": {"A2A-Version": "1.0"}},
            {"id": 2, "op": "tasks/get", "params": {}, "serviceParams": {"A2A-Version": "1.0"}},
            {"id": 3, "op": "GetTask", "params": {"id": "nope"}},
            {"id": 4, "op": "GetTask", "params": {"id": 5}, "serviceParams": {"A2A-Version": "1.0"}},
            b"not json\n",
        )

    missing, unknown, unversioned, bad_params, not_json = served(call)
    err = missing["error"]
    assert (err["type"], err["code"], err["reason"]) == ("TaskNotFoundError", -32001, "TASK_NOT_FOUND")
    assert err["details"][0]["@type"].endswith("google.rpc.ErrorInfo")
    assert (unknown["id"], unknown["error"]["type"], unknown["error"]["code"]) == (
        2,
        "MethodNotFoundError",
        -32601,
    )
    assert "v1.0 calls it 'GetTask'" in unknown["error"]["message"]
    v = unversioned["error"]
    assert (v["type"], v["code"]) == ("VersionNotSupportedError", -32009)
    assert "0.3" in v["message"]  # a missing A2A-Version means 0.3 (spec §3.6.2)
    assert bad_params["error"]["type"] == "InvalidParamsError"
    assert not_json["error"]["type"] == "JSONParseError" and not_json["id"] is None


def test_a_stream_is_event_lines_then_one_end_line():
    async def call(base, app):
        url = app.state.custom_binding.url
        msg = {
            "role": "ROLE_USER",
            "messageId": "m-s",
            "parts": [{"text": "Plan my trip to Sanya from 2026-04-08 to 2026-04-12"}],
        }
        return await _raw(
            url,
            {
                "id": 9,
                "op": "SendStreamingMessage",
                "params": {"message": msg},
                "serviceParams": {"A2A-Version": "1.0"},
            },
        )

    lines = served(call)
    assert all(line["id"] == 9 for line in lines)
    assert lines[-1] == {"id": 9, "end": True}
    events = [line["event"] for line in lines[:-1]]
    assert "task" in events[0]
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_the_kit_client_streams_and_subscribes_over_the_socket():
    from agentproto.course.a2a_bindings import collect, states_seen
    from agentproto.course.custom_binding import NdjsonA2AClient

    async def call(base, app):
        client = NdjsonA2AClient(app.state.custom_binding.url)
        try:
            events = await collect(client.stream("Plan my trip to Sanya from 2026-04-08 to 2026-04-12"))
            waiting = await client.send("Plan my trip to Paris")
            sub = client.subscribe(waiting.id)
            first = await sub.__anext__()
            await sub.aclose()
            return states_seen(events), first
        finally:
            await client.aclose()

    states, first = served(call)
    assert states[-1] == "completed"
    assert first.task is not None and first.task.status.state.value == "TASK_STATE_INPUT_REQUIRED"


def test_the_bearer_token_travels_as_a_service_parameter_and_a_refusal_carries_a_challenge():
    from agentproto.course.custom_binding import NdjsonA2AClient, Unauthenticated, token_table

    authenticate = token_table({"s3cret": "alice", "other": "bob"})

    async def call(base, app):
        url = app.state.custom_binding.url
        anonymous = NdjsonA2AClient(url)
        alice = NdjsonA2AClient(url, auth="s3cret")
        bob = NdjsonA2AClient(url, auth="other")
        try:
            with pytest.raises(Unauthenticated) as refused:
                await anonymous.list_tasks()
            task = await alice.send("Plan my trip to Sanya")
            return refused.value, task, await alice.list_tasks(), await bob.list_tasks()
        finally:
            for client in (anonymous, alice, bob):
                await client.aclose()

    refused, task, mine, theirs = served(call, authenticate)
    assert refused.challenge.startswith("Bearer realm=")
    assert [t.id for t in mine.tasks] == [task.id]
    assert theirs.tasks == []  # the subject reached the caller scope (spec §13.1)


def test_the_same_sequence_gives_the_same_results_on_both_bindings():
    from agentproto.a2a import A2AClient
    from agentproto.course.custom_binding import NdjsonA2AClient, interop_report, run_sequence

    async def call(base, app):
        card = await A2AClient.fetch_card(base)
        rpc = A2AClient(card.interface("JSONRPC").url)
        ndjson = NdjsonA2AClient(app.state.custom_binding.url)
        try:
            return await run_sequence(rpc), await run_sequence(ndjson)
        finally:
            await rpc.aclose()
            await ndjson.aclose()

    over_rpc, over_ndjson = served(call)
    assert [step for step, _ in over_rpc] == [
        "send",
        "get",
        "list",
        "cancel",
        "cancel again",
        "get unknown",
        "stream",
    ]
    assert over_rpc == over_ndjson
    report = interop_report(over_rpc, over_ndjson)
    assert all(row.endswith("same") for row in report.splitlines()[1:])
    assert "TaskNotCancelableError" in report and "TaskNotFoundError" in report


def test_an_empty_version_reads_as_0_3_and_the_patch_number_is_not_negotiated():
    """Spec §3.6.2: an empty A2A-Version MUST be interpreted as 0.3 (the notebook says the
    absent case is the kit's reading); §3.6: patch numbers MUST NOT be considered."""

    async def call(base, app):
        url = app.state.custom_binding.url
        return await _raw(
            url,
            {"id": 1, "op": "ListTasks", "params": {}, "serviceParams": {"A2A-Version": ""}},
            {"id": 2, "op": "ListTasks", "params": {}, "serviceParams": {"A2A-Version": "1.0.1"}},
            {"id": 3, "op": "ListTasks", "params": {}, "serviceParams": {"A2A-Version": "0.3"}},
        )

    empty, patched, old = served(call)
    assert empty["error"]["type"] == "VersionNotSupportedError" and "'0.3'" in empty["error"]["message"]
    assert "result" in patched
    assert old["error"]["code"] == -32009


def test_every_a2a_specific_error_keeps_its_section_5_4_code_on_the_error_line():
    """The notebook prints the kit's §5.4 table; pin it against the spec's JSON-RPC column."""
    from agentproto.a2a import errors
    from agentproto.course.custom_binding import error_line

    spec_5_4 = {
        "TaskNotFoundError": -32001,
        "TaskNotCancelableError": -32002,
        "PushNotificationNotSupportedError": -32003,
        "UnsupportedOperationError": -32004,
        "ContentTypeNotSupportedError": -32005,
        "InvalidAgentResponseError": -32006,
        "ExtendedAgentCardNotConfiguredError": -32007,
        "ExtensionSupportRequiredError": -32008,
        "VersionNotSupportedError": -32009,
    }
    for name, code in spec_5_4.items():
        line = error_line(5, getattr(errors, name)("boom"))
        assert line["id"] == 5
        assert (line["error"]["type"], line["error"]["code"]) == (name, code)
        # ErrorInfo reason: the type in UPPER_SNAKE_CASE without "Error" (spec §10.6, §11.6)
        stem = name.removesuffix("Error")
        assert (
            line["error"]["reason"]
            == "".join(("_" + c if c.isupper() and i else c) for i, c in enumerate(stem)).upper()
        )


def test_the_binding_serves_every_operation_of_section_3_1():
    from agentproto.a2a.jsonrpc import METHODS

    assert set(METHODS) == {
        "SendMessage",
        "SendStreamingMessage",
        "GetTask",
        "ListTasks",
        "CancelTask",
        "SubscribeToTask",
        "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig",
        "GetExtendedAgentCard",
    }
