"""The HTTP+JSON/REST binding (spec §11), served by the same service as JSON-RPC."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from agentproto.a2a._rest import match_route
from agentproto.a2a.server import create_a2a_app
from agentproto.clock import FakeClock, IdFactory

pytestmark = pytest.mark.anyio
V = {"A2A-Version": "1.0"}
BASE = "http://testserver"


def _msg(text: str, mid: str = "m-1", **extra: Any) -> dict[str, Any]:
    return {"message": {"messageId": mid, "role": "ROLE_USER", "parts": [{"text": text}], **extra}}


@pytest.fixture
def client() -> httpx.AsyncClient:
    app = create_a2a_app(agent="conformance", clock=FakeClock(), ids=IdFactory("r"))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE, headers=V)


def _sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    events, name = [], "message"
    for line in text.splitlines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            events.append((name, json.loads(line[5:])))
            name = "message"
    return events


def test_each_operation_has_the_url_of_the_spec_table() -> None:
    assert match_route("POST", "message:send").operation == "SendMessage"
    assert match_route("POST", "message:stream").operation == "SendStreamingMessage"
    assert match_route("GET", "tasks/t1").operation == "GetTask"
    assert match_route("GET", "tasks").operation == "ListTasks"
    assert match_route("POST", "tasks/t1:cancel").task_id == "t1"
    assert match_route("POST", "tasks/t1:subscribe").operation == "SubscribeToTask"
    assert match_route("GET", "tasks/t1:subscribe").operation == "SubscribeToTask"
    assert (
        match_route("POST", "tasks/t1/pushNotificationConfigs").operation
        == "CreateTaskPushNotificationConfig"
    )
    got = match_route("DELETE", "tasks/t1/pushNotificationConfigs/c9")
    assert (got.operation, got.task_id, got.config_id) == ("DeleteTaskPushNotificationConfig", "t1", "c9")
    assert match_route("GET", "extendedAgentCard").operation == "GetExtendedAgentCard"


def test_a_tenant_segment_may_prefix_every_route_and_a_trailing_slash_is_the_same_url() -> None:
    got = match_route("GET", "acme/tasks/t1/")
    assert (got.operation, got.tenant, got.task_id) == ("GetTask", "acme", "t1")
    assert match_route("POST", "acme/message:send/").tenant == "acme"


async def test_message_send_returns_a_send_message_response_as_a2a_json(client) -> None:
    r = await client.post(
        "/a2a/rest/message:send", json=_msg("hello"), headers={"Accept": "application/a2a+json"}
    )
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/a2a+json")
    plain = await client.post("/a2a/rest/message:send", json=_msg("hello", "m-2"))
    assert plain.headers["content-type"].startswith("application/json")  # v1.0.0 clients
    body = r.json()
    assert set(body) <= {"task", "message"} and body


async def test_get_and_list_tasks_read_the_same_store_as_json_rpc(client) -> None:
    sent = (await client.post("/a2a/rest/message:send", json=_msg("task please"))).json()
    task_id = sent["task"]["id"]
    r = await client.post(
        "/a2a", json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": task_id}}
    )
    assert r.json()["result"]["id"] == task_id
    got = (await client.get(f"/a2a/rest/tasks/{task_id}", params={"historyLength": 0})).json()
    assert got["id"] == task_id and "history" not in got
    listed = (await client.get("/a2a/rest/tasks", params={"pageSize": 5})).json()
    assert task_id in [t["id"] for t in listed["tasks"]]


async def test_unknown_task_is_404_with_a_google_rpc_status_and_error_info(client) -> None:
    r = await client.get("/a2a/rest/tasks/nope")
    assert r.status_code == 404
    err = r.json()["error"]
    assert err["code"] == 404 and err["status"] == "NOT_FOUND"
    info = err["details"][0]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert (info["reason"], info["domain"]) == ("TASK_NOT_FOUND", "a2a-protocol.org")


async def test_a_missing_version_is_refused_like_on_json_rpc(client) -> None:
    r = await client.post("/a2a/rest/message:send", json=_msg("hi"), headers={"A2A-Version": ""})
    assert r.status_code == 400
    assert r.json()["error"]["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"


async def test_a_body_that_is_not_json_gets_content_type_not_supported(client) -> None:
    r = await client.post("/a2a/rest/message:send", content=b"hello", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    assert r.json()["error"]["details"][0]["reason"] == "CONTENT_TYPE_NOT_SUPPORTED"


async def test_a_bad_field_is_400_invalid_argument_with_a_bad_request_detail(client) -> None:
    r = await client.post(
        "/a2a/rest/message:send",
        json={"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}]}},
    )
    assert r.status_code == 400
    assert r.json()["error"]["status"] == "INVALID_ARGUMENT"


async def test_message_stream_is_sse_with_one_stream_response_per_event(client) -> None:
    r = await client.post("/a2a/rest/message:stream", json=_msg("stream please"))
    assert r.headers["content-type"].startswith("text/event-stream")
    events = _sse(r.text)
    assert events and all(name == "message" for name, _ in events)
    first = events[0][1]
    assert set(first) & {"task", "message"}
    if "task" in first:
        last = events[-1][1]
        assert "statusUpdate" in last or "task" in last


async def test_subscribing_to_a_finished_task_is_an_error_not_a_stream(client) -> None:
    sent = (await client.post("/a2a/rest/message:send", json=_msg("task please"))).json()
    if "task" not in sent:
        pytest.skip("the agent answered with a message")
    r = await client.post(f"/a2a/rest/tasks/{sent['task']['id']}:subscribe")
    if r.headers["content-type"].startswith("text/event-stream"):
        assert sent["task"]["status"]["state"] not in ("TASK_STATE_COMPLETED",)
    else:
        assert r.status_code == 400
        assert r.json()["error"]["details"][0]["reason"] == "UNSUPPORTED_OPERATION"


async def test_json_rpc_accepts_its_url_with_a_trailing_slash_without_a_redirect(client) -> None:
    r = await client.post(
        "/a2a/", json={"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "nope"}}
    )
    assert r.status_code == 200 and r.json()["id"] == 7


async def test_json_rpc_text_plain_body_gets_content_type_not_supported() -> None:
    from agentproto.a2a.agents import make_agent
    from agentproto.a2a.jsonrpc import JSONRPCDispatcher
    from agentproto.a2a.service import A2AService

    dispatcher = JSONRPCDispatcher(A2AService(make_agent("conformance"), clock=FakeClock()))
    out = await dispatcher.dispatch(
        b"{'jsonrpc': '2.0'}", {"Content-Type": "text/plain", "A2A-Version": "1.0"}
    )
    assert isinstance(out, dict) and out["error"]["code"] == -32005


async def test_the_trailing_slash_url_refuses_text_plain_too(client) -> None:
    r = await client.post("/a2a/", content=b"{'jsonrpc': '2.0'}", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 or r.json()["error"]["code"] == -32005


async def test_json_rpc_notification_gets_no_reply(client) -> None:
    r = await client.post("/a2a", json={"jsonrpc": "2.0", "method": "GetTask", "params": {"id": "nope"}})
    assert r.status_code == 204 and r.content == b""


async def test_the_card_lists_json_rpc_then_rest_and_sends_last_modified(client) -> None:
    r = await client.get("/.well-known/agent-card.json")
    assert "last-modified" in r.headers
    itfs = r.json()["supportedInterfaces"]
    assert [i["protocolBinding"] for i in itfs][:2] == ["JSONRPC", "HTTP+JSON"]
    assert itfs[1]["url"] == BASE + "/a2a/rest"


# -- the input boundary: the same limits as JSON-RPC (agentproto.limits), found by the outside probe
def _raw_send(extra: str, text: str = '"Plan a trip"') -> bytes:
    return (
        '{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":' + text + "}]}" + extra + "}"
    ).encode()


@pytest.mark.parametrize(
    "body",
    [
        _raw_send(',"metadata":{"a":' + "[" * 200 + "]" * 200 + "}"),  # stored before, then unreadable
        _raw_send(',"metadata":{"a":' + "[" * 500 + "]" * 500 + "}"),
        _raw_send(',"metadata":{"a":' + "[" * 1200 + "]" * 1200 + "}"),  # RecursionError in json.loads
        _raw_send("", text='"\\ud800"'),  # a lone surrogate SQLite cannot store
        _raw_send(',"configuration":{"historyLength":' + "9" * 5000 + "}"),
        _raw_send(',"configuration":{"historyLength":' + "9" * 25 + "}"),
    ],
    ids=["depth-200", "depth-500", "depth-1200", "lone-surrogate", "5000-digits", "25-digits"],
)
async def test_hostile_bodies_get_400_and_store_nothing(client, body) -> None:
    r = await client.post(
        "/a2a/rest/message:send", content=body, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400, r.text
    assert r.json()["error"]["status"] == "INVALID_ARGUMENT"
    listed = await client.get("/a2a/rest/tasks")
    assert listed.status_code == 200 and listed.json().get("tasks", []) == []


async def test_too_many_parts_and_a_huge_query_integer_are_refused(client) -> None:
    parts = [{"text": "x"}] * 65
    r = await client.post(
        "/a2a/rest/message:send", json={"message": {"messageId": "m", "role": "ROLE_USER", "parts": parts}}
    )
    assert r.status_code == 400 and "65 parts" in r.text
    r = await client.get("/a2a/rest/tasks", params={"pageSize": "9" * 25})
    assert r.status_code == 400


async def test_a_bodiless_text_plain_cancel_is_refused_and_cancels_nothing(client) -> None:
    sent = await client.post("/a2a/rest/message:send", json=_msg("ask me", mid="tck-input-required-1"))
    task = sent.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"  # cancelable
    r = await client.post(f"/a2a/rest/tasks/{task['id']}:cancel", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    after = await client.get(f"/a2a/rest/tasks/{task['id']}")
    assert after.json()["status"]["state"] == task["status"]["state"]
