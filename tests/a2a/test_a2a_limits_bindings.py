"""The limits on every binding (findings F3, F5, F18): what a client of JSON-RPC, HTTP+JSON and
gRPC gets when it passes a stream cap or an input limit, and a gRPC stream that outlives its
bearer token."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from types import SimpleNamespace

import httpx
import pytest

grpc = pytest.importorskip("grpc", reason="needs grpcio")
pytest.importorskip("a2a.types", reason="needs the official protobuf stubs (a2a-sdk)")

from a2a.types import a2a_pb2 as pb  # noqa: E402
from a2a.types import a2a_pb2_grpc  # noqa: E402
from google.protobuf import json_format  # noqa: E402

from agentproto import limits  # noqa: E402
from agentproto.a2a._grpc_server import SERVER_OPTIONS, start_grpc_server  # noqa: E402
from agentproto.a2a._service_streams import MAX_STREAMS_PER_TASK, ServiceLimits  # noqa: E402
from agentproto.a2a.agents import make_agent  # noqa: E402
from agentproto.a2a.server import create_a2a_app  # noqa: E402
from agentproto.a2a.service import A2AService  # noqa: E402
from agentproto.clock import FakeClock, IdFactory  # noqa: E402
from agentproto.server import RunningServer  # noqa: E402

pytestmark = pytest.mark.anyio
V = {"A2A-Version": "1.0"}
GRPC_MD = (("a2a-version", "1.0"),)


@pytest.fixture(scope="module")
def served():
    app = create_a2a_app(agent="conformance", clock=FakeClock(), ids=IdFactory("lim"), grpc=True)
    yield from _serving(app)


def _serving(app):
    """Serve ``app`` for a module: yields its base URL and its gRPC target (from its card)."""
    server = RunningServer(app).start()
    try:
        card = httpx.get(server.url + "/.well-known/agent-card.json").json()
        target = next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC")
        yield server.url, target
    finally:
        server.stop()


def rpc(url: str, method: str, params: dict) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(url + "/a2a", json=body, headers=V, timeout=30)


def interrupted_task(url: str, message_id: str) -> str:
    msg = {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": "hi"}]}
    answer = rpc(url, "SendMessage", {"message": msg}).json()
    assert answer["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", answer
    return answer["result"]["task"]["id"]


# --- F3: the stream cap on each binding ---------------------------------------------------------


async def test_the_stream_cap_is_resource_exhausted_on_every_binding(served):
    url, target = served
    tid = interrupted_task(url, "tck-multi-turn-cap")
    async with grpc.aio.insecure_channel(target) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        calls = []
        for _ in range(MAX_STREAMS_PER_TASK):
            call = stub.SubscribeToTask(pb.SubscribeToTaskRequest(id=tid), metadata=GRPC_MD)
            first = await call.read()
            assert first.task.id == tid and len(first.task.history) == 0
            calls.append(call)
        try:
            extra = stub.SubscribeToTask(pb.SubscribeToTaskRequest(id=tid), metadata=GRPC_MD)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await extra.read()
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            answer = await asyncio.to_thread(rpc, url, "SubscribeToTask", {"id": tid})
            assert answer.status_code == 200
            err = answer.json()["error"]
            assert err["code"] == -32603 and err["data"][0]["reason"] == "RESOURCE_EXHAUSTED"
            assert err["data"][0]["metadata"]["retryAfterSeconds"] == "5"
            rest = await asyncio.to_thread(
                httpx.post, f"{url}/a2a/rest/tasks/{tid}:subscribe", headers=V, timeout=30
            )
            assert rest.status_code == 429
        finally:
            for call in calls:
                call.cancel()


# --- F5: the same input limits on the three bindings -------------------------------------------


def _message(parts=None, metadata=None) -> dict:
    msg: dict = {"messageId": "m-big", "role": "ROLE_USER", "parts": parts or [{"text": "hi"}]}
    if metadata is not None:
        msg["metadata"] = metadata
    return msg


BODIES = {
    "3,000,000-char text": _message([{"text": "x" * 3_000_000}]),
    "300,000-char text": _message([{"text": "x" * 300_000}]),
    "5,000 parts": _message([{"text": "p"}] * 5_000),
    "50,000-item array": _message(metadata={"items": list(range(50_000))}),
}
OVER_THE_BODY_BUDGET = {"3,000,000-char text"}


@pytest.mark.parametrize("name", BODIES)
def test_jsonrpc_refuses_each_body(served, name):
    url, _ = served
    answer = rpc(url, "SendMessage", {"message": BODIES[name]})
    if name in OVER_THE_BODY_BUDGET:
        assert answer.status_code == 413
    else:
        assert answer.json()["error"]["code"] == -32602


@pytest.mark.parametrize("name", BODIES)
def test_rest_refuses_each_body(served, name):
    url, _ = served
    answer = httpx.post(f"{url}/a2a/rest/message:send", json={"message": BODIES[name]}, headers=V, timeout=30)
    assert answer.status_code == (413 if name in OVER_THE_BODY_BUDGET else 400)


@pytest.mark.parametrize("name", BODIES)
async def test_grpc_refuses_each_body_as_http_does(served, name):
    _, target = served
    request = json_format.ParseDict({"message": BODIES[name]}, pb.SendMessageRequest())
    async with grpc.aio.insecure_channel(
        target, options=[("grpc.max_send_message_length", 16_000_000)]
    ) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.SendMessage(request, metadata=GRPC_MD, timeout=30)
    if name in OVER_THE_BODY_BUDGET:  # grpc's own answer for a message over the budget
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    else:
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "at most" in info.value.details()


def test_the_grpc_message_budget_is_the_http_body_budget():
    assert dict(SERVER_OPTIONS)["grpc.max_receive_message_length"] == limits.MAX_BODY_BYTES == 1_000_000


# --- F18: a gRPC stream ends with its token ----------------------------------------------------


def _fake_jwt(exp: float) -> str:
    def seg(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    return f"{seg({'alg': 'ES256'})}.{seg({'sub': 'alice', 'exp': exp})}.c2ln"


@pytest.mark.parametrize("hook_returns", ["claims", "subject"])
async def test_a_grpc_subscription_ends_unauthenticated_when_the_token_expires(hook_returns):
    expires = time.time() + 1.5

    def authenticate(metadata):
        if hook_returns == "claims":  # e.g. agentproto.security.tokens.Claims
            return SimpleNamespace(subject="alice", expires_at=expires)
        return "alice"  # the binding reads `exp` from the (verified) bearer token itself

    service = A2AService(make_agent("conformance"), clock=FakeClock(), ids=IdFactory("exp"))
    server = await start_grpc_server(service, authenticate=authenticate)
    md = (*GRPC_MD, ("authorization", f"Bearer {_fake_jwt(expires)}"))
    try:
        async with grpc.aio.insecure_channel(server.url) as channel:
            stub = a2a_pb2_grpc.A2AServiceStub(channel)
            msg = pb.Message(message_id="tck-multi-turn-exp", role=pb.ROLE_USER, parts=[pb.Part(text="hi")])
            task = (await stub.SendMessage(pb.SendMessageRequest(message=msg), metadata=md)).task
            assert task.status.state == pb.TASK_STATE_INPUT_REQUIRED
            call = stub.SubscribeToTask(pb.SubscribeToTaskRequest(id=task.id), metadata=md)
            assert (await call.read()).task.id == task.id
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await asyncio.wait_for(call.read(), 30)  # the task stays interrupted: no event
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "expired" in info.value.details()
            challenge = dict(info.value.trailing_metadata())["www-authenticate"]
            assert 'error="invalid_token"' in challenge
    finally:
        await server.stop()
        await service.aclose()


# --- numbers JSON cannot carry ------------------------------------------------------------------

#: Message bodies with a number no JSON text may hold (RFC 8259 section 6: no NaN or Infinity)
#: or no float can (1e999), as raw text: Python's json would accept the first two by default.
NOT_JSON_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e999"]


def _raw_send(number: str, message_id: str) -> str:
    return (
        f'{{"message": {{"messageId": "{message_id}", "role": "ROLE_USER", "parts": [{{"text": "hi"}}],'
        f' "metadata": {{"x": {number}}}}}}}'
    )


@pytest.mark.parametrize("number", NOT_JSON_NUMBERS)
def test_http_bindings_refuse_a_number_json_cannot_carry_and_store_nothing(served, number):
    url, _ = served
    mid = f"nan-{NOT_JSON_NUMBERS.index(number)}"
    envelope = f'{{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {_raw_send(number, mid)}}}'
    answer = httpx.post(url + "/a2a", content=envelope, headers=V | {"Content-Type": "application/json"})
    assert answer.status_code == 200 and answer.json()["error"]["code"] == -32700, answer.text
    rest = httpx.post(
        f"{url}/a2a/rest/message:send",
        content=_raw_send(number, mid + "r"),
        headers=V | {"Content-Type": "application/json"},
    )
    assert rest.status_code == 400, rest.text
    listed = rpc(url, "ListTasks", {}).json()["result"]["tasks"]
    assert not [
        t for t in listed if any(m.get("messageId", "").startswith(mid) for m in t.get("history", []))
    ]


@pytest.mark.parametrize("number", [float("inf"), float("-inf"), float("nan")])
async def test_grpc_refuses_a_struct_number_json_cannot_carry(served, number):
    _, target = served
    request = pb.SendMessageRequest(message=pb.Message(message_id="m-inf", role=pb.ROLE_USER))
    request.message.parts.add(text="hi")
    request.metadata.update({"x": number})
    async with grpc.aio.insecure_channel(target) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.SendMessage(request, metadata=GRPC_MD, timeout=30)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()


# --- one task's history ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def short_history():
    """A real server whose tasks keep at most 4 messages (the default is 1,000)."""
    service = A2AService(
        make_agent("conformance"),
        clock=FakeClock(),
        ids=IdFactory("hist"),
        limits=ServiceLimits(max_task_history=4),
    )
    yield from _serving(create_a2a_app(service=service, grpc=True))


async def test_a_follow_up_to_a_full_task_is_unsupported_operation_on_every_binding(short_history):
    url, target = short_history
    tid = interrupted_task(url, "tck-multi-turn-full")
    more = {"messageId": "m-more", "role": "ROLE_USER", "parts": [{"text": "more"}], "taskId": tid}
    full = rpc(url, "SendMessage", {"message": more}).json()["result"]["task"]
    assert len(full["history"]) == 4 and full["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"

    late = dict(more, messageId="m-late", parts=[{"text": "done"}])
    err = rpc(url, "SendMessage", {"message": late}).json()["error"]
    assert err["code"] == -32004 and "new task in context" in err["message"], err
    info = next(d for d in err["data"] if d.get("reason"))
    assert info["metadata"] == {"taskId": tid, "limit": "taskHistory", "max": "4"}

    rest = httpx.post(f"{url}/a2a/rest/message:send", json={"message": late}, headers=V, timeout=30)
    assert rest.status_code == 400 and rest.json()["error"]["status"] == "FAILED_PRECONDITION", rest.text
    assert "retry-after" not in rest.headers  # waiting never helps: not a 429

    msg = pb.Message(message_id="m-late-grpc", role=pb.ROLE_USER, task_id=tid, parts=[pb.Part(text="done")])
    async with grpc.aio.insecure_channel(target) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.SendMessage(pb.SendMessageRequest(message=msg), metadata=GRPC_MD, timeout=30)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION, refused.value.details()

    kept = rpc(url, "GetTask", {"id": tid}).json()["result"]
    assert len(kept["history"]) == 4 and kept["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
