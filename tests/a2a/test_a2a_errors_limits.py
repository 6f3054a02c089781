"""A limit of this server, as each binding says it (findings F3, F4, F11 of the 2026-12-01 attack).

``ResourceExhaustedError`` is one of the A2A errors (:mod:`agentproto.a2a.errors`): ``-32603``
with ErrorInfo reason ``RESOURCE_EXHAUSTED`` on JSON-RPC (§3.3.2 files rate limits under system
errors), ``429`` + ``Retry-After`` with ``status: RESOURCE_EXHAUSTED`` on HTTP+JSON, and gRPC's
``RESOURCE_EXHAUSTED``; clients rebuild it from the wire. A REST stream whose client stops reading
ends (send timeout) and gives its slot back. A push config refused with SendMessage leaves no
trace: no stuck task, no stored message.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from agentproto.a2a import A2AService, ServiceLimits, errors, jsonrpc
from agentproto.a2a import _rest as rest
from agentproto.a2a._rest import RestBinding, error_response
from agentproto.a2a.agents import make_agent
from agentproto.a2a.errors import (
    GRPC_STATUS,
    InternalError,
    InvalidParamsError,
    ResourceExhaustedError,
    error_from_details,
    error_from_wire,
    grpc_status_name,
    status_json,
)
from agentproto.a2a.server import create_a2a_app
from agentproto.a2a.types import (
    ListTasksRequest,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    user_message,
)
from agentproto.clock import FakeClock, IdFactory

pytestmark = pytest.mark.anyio
V = {"A2A-Version": "1.0"}
BASE = "http://testserver"


def service(**limits: Any) -> A2AService:
    return A2AService(
        make_agent("conformance"),
        clock=FakeClock(),
        ids=IdFactory("id"),
        limits=ServiceLimits(**limits),
        allow_private_webhooks=True,
    )


def client(svc: A2AService) -> httpx.AsyncClient:
    app = create_a2a_app(service=svc)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE, headers=V)


def waiting(message_id: str) -> dict[str, Any]:
    """A SendMessage body whose task waits for the user (INPUT_REQUIRED: it stays open)."""
    return {"message": {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


# --- one exception root, one table -------------------------------------------------------------


def test_resource_exhausted_lives_with_the_other_a2a_errors():
    assert ResourceExhaustedError.__module__ == "agentproto.a2a.errors"
    assert jsonrpc.ResourceExhaustedError is ResourceExhaustedError  # the old import still works
    assert "ResourceExhaustedError" in errors.__all__
    assert issubclass(ResourceExhaustedError, InternalError)
    assert (ResourceExhaustedError.code, ResourceExhaustedError.reason) == (-32603, "RESOURCE_EXHAUSTED")
    assert GRPC_STATUS[ResourceExhaustedError] == "RESOURCE_EXHAUSTED"
    assert grpc_status_name(ResourceExhaustedError()) == "RESOURCE_EXHAUSTED"
    assert grpc_status_name(InternalError()) == "INTERNAL"  # its base keeps §5.4's closest code


def test_the_rest_body_and_headers_of_a_limit():
    exc = ResourceExhaustedError("too many", retry_after_s=7, metadata={"limit": "x"})
    body = status_json(exc)["error"]
    assert (body["code"], body["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert body["details"][0]["reason"] == "RESOURCE_EXHAUSTED"
    assert body["details"][0]["metadata"] == {"limit": "x", "retryAfterSeconds": "7"}
    response = error_response(exc)
    assert response.status_code == 429 and response.headers["retry-after"] == "7"
    assert "retry-after" not in error_response(InvalidParamsError()).headers


def test_clients_rebuild_a_limit_from_every_wire_form():
    sent = ResourceExhaustedError("too many streams", retry_after_s=9)
    from_jsonrpc = error_from_wire(sent.to_jsonrpc())
    assert isinstance(from_jsonrpc, ResourceExhaustedError) and from_jsonrpc.retry_after_s == 9
    assert isinstance(from_jsonrpc, InternalError)  # code -32603: still an InternalError
    body = status_json(sent)["error"]
    from_rest = error_from_details(body["message"], body["details"])
    assert isinstance(from_rest, ResourceExhaustedError) and from_rest.retry_after_s == 9
    plain = error_from_wire(InternalError("boom").to_jsonrpc())
    assert type(plain) is InternalError


# --- the limits on the HTTP bindings -----------------------------------------------------------


async def test_rest_answers_the_open_task_quota_with_429_resource_exhausted_and_retry_after():
    async with client(service(max_open_tasks_per_caller=1)) as c:
        first = await c.post("/a2a/rest/message:send", json=waiting("tck-multi-turn-1"))
        assert first.status_code == 200, first.text
        refused = await c.post("/a2a/rest/message:send", json=waiting("tck-multi-turn-2"))
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "5"
    error = refused.json()["error"]
    assert (error["code"], error["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert error["details"][0]["reason"] == "RESOURCE_EXHAUSTED"
    assert error["details"][0]["metadata"]["limit"] == "openTasksPerCaller"


async def test_rest_answers_the_stream_cap_with_429_before_any_stream_starts():
    svc = service(max_streams_per_task=0)
    async with client(svc) as c:
        task = (await c.post("/a2a/rest/message:send", json=waiting("tck-multi-turn-1"))).json()["task"]
        refused = await c.get(f"/a2a/rest/tasks/{task['id']}:subscribe")
    assert refused.status_code == 429 and refused.headers["retry-after"] == "5"
    assert refused.headers["content-type"].startswith("application/")  # a Status, not a stream
    assert refused.json()["error"]["status"] == "RESOURCE_EXHAUSTED"


async def test_jsonrpc_keeps_minus_32603_with_the_reason_and_http_200():
    async with client(service(max_open_tasks_per_caller=1)) as c:
        answers = []
        for n in (1, 2):
            body = {
                "jsonrpc": "2.0",
                "id": n,
                "method": "SendMessage",
                "params": waiting(f"tck-multi-turn-{n}"),
            }
            answers.append(await c.post("/a2a", json=body))
    refused = answers[1]
    assert refused.status_code == 200 and "retry-after" not in refused.headers
    error = refused.json()["error"]
    assert error["code"] == -32603
    assert error["data"][0]["reason"] == "RESOURCE_EXHAUSTED"
    assert error["data"][0]["metadata"]["retryAfterSeconds"] == "5"


# --- a REST stream nobody reads ---------------------------------------------------------------


async def test_a_rest_stream_whose_client_stops_reading_ends_and_frees_its_slot(monkeypatch):
    monkeypatch.setattr(rest, "SSE_SEND_TIMEOUT_S", 0.2, raising=False)
    svc = service(max_streams_per_task=1)
    task = await svc.send_message(
        SendMessageRequest(message=user_message("hi", message_id="tck-multi-turn-1"))
    )
    app = Starlette(routes=RestBinding(svc).routes())
    never = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await never.wait()  # the client neither sends nor leaves
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and message.get("body"):
            await never.wait()  # ... and never takes a byte of the stream

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": f"/a2a/rest/tasks/{task.id}:subscribe",
        "raw_path": f"/a2a/rest/tasks/{task.id}:subscribe".encode(),
        "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"a2a-version", b"1.0")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }
    served = asyncio.ensure_future(app(scope, receive, send))
    done, _ = await asyncio.wait({served}, timeout=10)  # a bound against a hang, not a timing
    if not done:
        served.cancel()
        with contextlib.suppress(BaseException):
            await served
    assert served in done, "the REST stream still waits on a client that does not read"
    with contextlib.suppress(Exception):  # sse-starlette's SendTimeoutError, re-raised
        served.result()
    again = await svc.subscribe(SubscribeToTaskRequest(id=task.id))  # the slot is free again
    await again.aclose()  # type: ignore[attr-defined]
    await svc.aclose()


# --- a push config refused with SendMessage leaves no trace (F11) -----------------------------


async def test_a_new_task_whose_push_config_is_refused_is_not_created():
    svc = service()
    with pytest.raises(InvalidParamsError, match="config id"):
        await svc.send_message(
            SendMessageRequest(
                message=user_message("hi", message_id="tck-input-required-1"),
                configuration=SendMessageConfiguration(
                    task_push_notification_config=TaskPushNotificationConfig(
                        url="https://c.example/h", id="../not-a-name"
                    )
                ),
            )
        )
    listed = await svc.list_tasks(ListTasksRequest())
    await svc.aclose()
    assert listed.tasks == [] and listed.total_size == 0  # no task left SUBMITTED forever
