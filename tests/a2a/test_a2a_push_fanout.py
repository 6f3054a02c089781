"""Push fan-out is bounded: a few configs per task, one per URL, no history in the snapshot,
and a cap on outbound POSTs in flight (F11 of the 2026-12-01 attack)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from agentproto.a2a._service_push import MAX_PUSH_CONFIGS_PER_TASK
from agentproto.a2a.errors import InvalidParamsError
from agentproto.a2a.push import MAX_CONCURRENT_DELIVERIES, PushNotifier, WebhookRecorder
from agentproto.a2a.server import create_a2a_app
from agentproto.a2a.types import (
    ListTaskPushNotificationConfigsRequest,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    TaskPushNotificationConfig,
    user_message,
)
from agentproto.clock import FakeClock, IdFactory
from agentproto.server import RunningServer, running_server

pytestmark = pytest.mark.anyio

A2A = {"A2A-Version": "1.0"}


async def waiting_task(svc, n: int = 1):
    return await svc.send_message(
        SendMessageRequest(message=user_message("x", message_id=f"tck-input-required-{n}"))
    )


async def test_a_task_takes_a_few_push_configs_and_no_more(make_service):
    svc = make_service("conformance", allow_private_webhooks=True)
    task = await waiting_task(svc)
    for n in range(MAX_PUSH_CONFIGS_PER_TASK):
        await svc.create_push_config(
            TaskPushNotificationConfig(task_id=task.id, url=f"https://c.example/{n}")
        )
    with pytest.raises(InvalidParamsError, match="at most") as info:
        await svc.create_push_config(
            TaskPushNotificationConfig(task_id=task.id, url="https://c.example/more")
        )
    assert info.value.violations[0][0] == "url"
    # the same shape as every other limit: its name, and the number under "max"
    assert info.value.metadata == {"taskId": task.id, "limit": "pushConfigsPerTask", "max": "5"}
    listed = await svc.list_push_configs(ListTaskPushNotificationConfigsRequest(task_id=task.id))
    assert len(listed.configs) == MAX_PUSH_CONFIGS_PER_TASK
    other = await waiting_task(svc, 2)  # the cap is per task
    await svc.create_push_config(TaskPushNotificationConfig(task_id=other.id, url="https://c.example/more"))


async def test_one_url_is_one_config_on_a_task(make_service):
    svc = make_service("conformance", allow_private_webhooks=True)
    task = await waiting_task(svc)
    first = await svc.create_push_config(
        TaskPushNotificationConfig(task_id=task.id, url="https://c.example/h")
    )
    with pytest.raises(InvalidParamsError, match="already"):
        await svc.create_push_config(TaskPushNotificationConfig(task_id=task.id, url="https://c.example/h"))
    # Replacing a config by its id (set-or-update, as a2a-sdk does) is not a duplicate.
    again = await svc.create_push_config(
        TaskPushNotificationConfig(task_id=task.id, id=first.id, url="https://c.example/h", token="new")
    )
    assert again.id == first.id and again.token == "new"
    listed = await svc.list_push_configs(ListTaskPushNotificationConfigsRequest(task_id=task.id))
    assert [c.token for c in listed.configs] == ["new"]


async def test_a_push_config_given_again_with_a_follow_up_updates_the_one_there(make_service):
    """A client that attaches the same webhook to every SendMessage keeps one config."""
    svc = make_service("conformance", allow_private_webhooks=True)
    hook = TaskPushNotificationConfig(url="https://c.example/h", token="t1")
    task = await svc.send_message(
        SendMessageRequest(
            message=user_message("x", message_id="tck-input-required-1"),
            configuration=SendMessageConfiguration(task_push_notification_config=hook),
        )
    )
    await svc.send_message(
        SendMessageRequest(
            message=user_message("more", message_id="m-2", task_id=task.id),
            configuration=SendMessageConfiguration(
                task_push_notification_config=hook.model_copy(update={"token": "t2"})
            ),
        )
    )
    listed = await svc.list_push_configs(ListTaskPushNotificationConfigsRequest(task_id=task.id))
    assert [c.token for c in listed.configs] == ["t2"]
    await svc.aclose()


@pytest.mark.parametrize("ident", ["../x", "a/b", "x" * 65, "a b", "é"])
async def test_a_client_chosen_config_id_must_be_a_plain_short_name(make_service, ident):
    svc = make_service("conformance", allow_private_webhooks=True)
    task = await waiting_task(svc)
    with pytest.raises(InvalidParamsError, match="id"):
        await svc.create_push_config(
            TaskPushNotificationConfig(task_id=task.id, id=ident, url="https://c.example/h")
        )


async def test_the_pushed_task_snapshot_carries_no_history_by_default(make_service):
    hook = WebhookRecorder()
    with running_server(hook.app()) as base:
        svc = make_service("conformance", allow_loopback_webhooks=True)
        await svc.send_message(
            SendMessageRequest(
                message=user_message("a long private conversation", message_id="tck-complete-task"),
                configuration=SendMessageConfiguration(
                    task_push_notification_config=TaskPushNotificationConfig(url=base + "/hook")
                ),
            )
        )
        await svc.push.drain()
        await svc.aclose()
    snapshots = [r.body["task"] for r in hook.received if "task" in r.body]
    assert snapshots and all("history" not in t for t in snapshots)
    assert "a long private conversation" not in str([r.body for r in hook.received])


async def test_outbound_posts_in_flight_are_capped():
    """Ten webhooks, each holding its request until released: no more than ``max_concurrent``
    POSTs are ever open at once, and every one is delivered in the end."""
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    in_flight = 0
    peak = 0
    seen = 0

    async def slow(request):
        nonlocal in_flight, peak, seen
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            await asyncio.sleep(0.02)
        finally:
            in_flight -= 1
            seen += 1
        return Response(status_code=204)

    app = Starlette(routes=[Route("/{n}", slow, methods=["POST"])])
    event = StreamResponse.from_wire(
        {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}
    )
    assert MAX_CONCURRENT_DELIVERIES >= 1
    with running_server(app) as base:
        notifier = PushNotifier(allow_loopback=True, max_concurrent=2)
        for n in range(10):
            notifier.enqueue(TaskPushNotificationConfig(task_id="t", id=f"c{n}", url=f"{base}/{n}"), event)
        await notifier.drain()
        await notifier.aclose()
    assert seen == 10 and 1 <= peak <= 2
    assert all(d.ok for d in notifier.deliveries)


# --- the cap's error on the three bindings --------------------------------------------------


@pytest.fixture(scope="module")
def full_task():
    """A waiting task that already has the most push configs a task may have, on a server
    serving all three bindings."""
    pytest.importorskip("grpc", reason="needs grpcio")
    app = create_a2a_app(agent="conformance", clock=FakeClock(), ids=IdFactory("cap"), grpc=True)
    server = RunningServer(app).start()
    try:
        service = app.state.a2a.service
        service.allow_private_webhooks = True
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendMessage",
            "params": {
                "message": {"messageId": "tck-input-required", "role": "ROLE_USER", "parts": [{"text": "x"}]}
            },
        }
        tid = httpx.post(server.url + "/a2a", json=body, headers=A2A).json()["result"]["task"]["id"]
        for n in range(MAX_PUSH_CONFIGS_PER_TASK):
            r = httpx.post(
                f"{server.url}/a2a/rest/tasks/{tid}/pushNotificationConfigs",
                json={"url": f"https://c.example/{n}"},
                headers=A2A,
            )
            assert r.status_code == 200, r.text
        yield server.url, service, tid
    finally:
        server.stop()


def test_the_cap_is_invalid_params_on_json_rpc(full_task):
    url, _, tid = full_task
    body = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "CreateTaskPushNotificationConfig",
        "params": {"taskId": tid, "url": "https://c.example/jsonrpc"},
    }
    r = httpx.post(url + "/a2a", json=body, headers=A2A)
    assert r.status_code == 200 and r.json()["error"]["code"] == -32602
    assert "at most" in r.json()["error"]["message"]


def test_the_cap_is_400_invalid_argument_on_rest(full_task):
    url, _, tid = full_task
    r = httpx.post(
        f"{url}/a2a/rest/tasks/{tid}/pushNotificationConfigs",
        json={"url": "https://c.example/rest"},
        headers=A2A,
    )
    assert r.status_code == 400 and r.json()["error"]["status"] == "INVALID_ARGUMENT"


def test_the_cap_is_invalid_argument_on_grpc(full_task):
    import grpc
    from a2a.types import a2a_pb2 as pb
    from a2a.types import a2a_pb2_grpc

    _, service, tid = full_task
    with grpc.insecure_channel(service.grpc_url) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        with pytest.raises(grpc.RpcError) as info:
            stub.CreateTaskPushNotificationConfig(
                pb.TaskPushNotificationConfig(task_id=tid, url="https://c.example/grpc"),
                metadata=(("a2a-version", "1.0"),),
            )
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_send_message_config_over_the_cap_is_refused(make_service):
    svc = make_service("conformance", allow_private_webhooks=True)
    task = await waiting_task(svc)
    for n in range(MAX_PUSH_CONFIGS_PER_TASK):
        await svc.create_push_config(
            TaskPushNotificationConfig(task_id=task.id, url=f"https://c.example/{n}")
        )
    with pytest.raises(InvalidParamsError, match="at most"):
        await svc.send_message(
            SendMessageRequest(
                message=user_message("more", message_id="m-2", task_id=task.id),
                configuration=SendMessageConfiguration(
                    task_push_notification_config=TaskPushNotificationConfig(url="https://c.example/new")
                ),
            )
        )
    await svc.aclose()


async def test_a_refused_send_message_config_leaves_the_task_as_it_was(make_service):
    from agentproto.a2a.types import GetTaskRequest

    svc = make_service("conformance", allow_private_webhooks=True)
    task = await waiting_task(svc)
    for n in range(MAX_PUSH_CONFIGS_PER_TASK):
        await svc.create_push_config(
            TaskPushNotificationConfig(task_id=task.id, url=f"https://c.example/{n}")
        )
    before = (await svc.get_task(GetTaskRequest(id=task.id))).history
    with pytest.raises(InvalidParamsError):
        await svc.send_message(
            SendMessageRequest(
                message=user_message("more", message_id="m-2", task_id=task.id),
                configuration=SendMessageConfiguration(
                    task_push_notification_config=TaskPushNotificationConfig(url="https://c.example/new")
                ),
            )
        )
    after = (await svc.get_task(GetTaskRequest(id=task.id))).history
    await svc.aclose()
    assert [m.message_id for m in after] == [m.message_id for m in before]
