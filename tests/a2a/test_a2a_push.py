"""Push notifications delivered for real to a loopback webhook (spec §3.1.7–3.1.10, §4.3)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from agentproto.a2a.errors import InvalidParamsError, TaskNotFoundError
from agentproto.a2a.push import PushNotifier, WebhookRecorder, check_webhook_url
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import (
    AuthenticationInfo,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    TaskPushNotificationConfig,
    user_message,
)
from agentproto.server import running_server

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def webhook() -> Iterator[tuple[WebhookRecorder, str]]:
    hook = WebhookRecorder()
    with running_server(hook.app()) as url:
        yield hook, url + "/hook"


async def test_every_update_of_the_task_is_posted_to_the_webhook_in_order(make_service, webhook):
    hook, url = webhook
    hook.clear()
    svc = make_service("conformance", allow_loopback_webhooks=True)
    config = TaskPushNotificationConfig(
        url=url, token="secret-token", authentication=AuthenticationInfo(scheme="Bearer", credentials="abc")
    )
    task = await svc.send_message(
        SendMessageRequest(
            message=user_message("x", message_id="tck-stream-chunked-1"),
            configuration=SendMessageConfiguration(
                task_push_notification_config=config, return_immediately=True
            ),
        )
    )
    await asyncio.sleep(0.01)
    await svc.push.drain()
    assert hook.kinds() == [
        "task",
        "statusUpdate",
        "artifactUpdate",
        "artifactUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]
    for r in hook.received:
        assert r.event.kind in ("task", "statusUpdate", "artifactUpdate")  # a StreamResponse
        assert r.headers["content-type"] == "application/a2a+json"
        assert r.headers["x-a2a-notification-token"] == "secret-token"
        assert r.headers["authorization"] == "Bearer abc"
    assert hook.received[0].event.task.id == task.id
    assert hook.received[-1].event.status_update.status.state is TaskState.COMPLETED
    assert all(d.ok for d in svc.push.deliveries)


async def test_a_config_added_later_gets_the_updates_from_then_on(make_service, webhook):
    hook, url = webhook
    hook.clear()
    svc = make_service("conformance", allow_loopback_webhooks=True)
    task = await svc.send_message(
        SendMessageRequest(message=user_message("x", message_id="tck-input-required-1"))
    )
    created = await svc.create_push_config(TaskPushNotificationConfig(task_id=task.id, url=url))
    assert created.id == "id-4" and created.task_id == task.id  # the server assigns the id
    await svc.send_message(
        SendMessageRequest(message=user_message("more", message_id="m-2", task_id=task.id))
    )
    await svc.push.drain()
    assert hook.kinds() == ["task", "statusUpdate"]
    assert hook.received[-1].event.status_update.status.state is TaskState.COMPLETED


async def test_a_failing_webhook_is_retried_with_backoff():
    hook = WebhookRecorder(fail_first=2)
    sleeps: list[float] = []

    async def fake_sleep(s: float) -> None:
        sleeps.append(s)

    with running_server(hook.app()) as base:
        notifier = PushNotifier(attempts=3, backoff_s=0.5, sleep=fake_sleep, allow_loopback=True)
        config = TaskPushNotificationConfig(task_id="t", id="c", url=base + "/hook")
        notifier.enqueue(
            config,
            StreamResponse.from_wire(
                {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}
            ),
        )
        await notifier.drain()
        await notifier.aclose()
    assert [d.status_code for d in notifier.deliveries] == [500, 500, 204]
    assert sleeps == [0.5, 1.0]
    assert len(hook.received) == 1


async def test_an_unreachable_webhook_is_given_up_after_the_last_attempt():
    async def no_sleep(_: float) -> None:
        return None

    notifier = PushNotifier(attempts=2, sleep=no_sleep, allow_loopback=True)  # the default refuses loopback
    config = TaskPushNotificationConfig(task_id="t", id="c", url="http://127.0.0.1:9/hook")
    notifier.enqueue(
        config,
        StreamResponse.from_wire({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": 2}}}),
    )
    await notifier.drain()
    await notifier.aclose()
    assert [d.attempt for d in notifier.deliveries] == [1, 2]
    assert all(d.status_code is None and "ConnectError" in d.error for d in notifier.deliveries)


async def test_push_config_get_list_delete(make_service):
    svc = make_service("conformance", allow_private_webhooks=True)
    task = await svc.send_message(
        SendMessageRequest(message=user_message("x", message_id="tck-input-required"))
    )
    for name in ("a", "b", "c"):
        await svc.create_push_config(
            TaskPushNotificationConfig(task_id=task.id, id=name, url=f"https://client.example/{name}")
        )
    got = await svc.get_push_config(GetTaskPushNotificationConfigRequest(task_id=task.id, id="b"))
    assert got.url == "https://client.example/b"
    page = await svc.list_push_configs(ListTaskPushNotificationConfigsRequest(task_id=task.id, page_size=2))
    assert [c.id for c in page.configs] == ["a", "b"] and page.next_page_token
    rest = await svc.list_push_configs(
        ListTaskPushNotificationConfigsRequest(task_id=task.id, page_size=2, page_token=page.next_page_token)
    )
    assert [c.id for c in rest.configs] == ["c"] and rest.next_page_token == ""
    await svc.delete_push_config(DeleteTaskPushNotificationConfigRequest(task_id=task.id, id="b"))
    await svc.delete_push_config(DeleteTaskPushNotificationConfigRequest(task_id=task.id, id="b"))
    with pytest.raises(TaskNotFoundError):
        await svc.get_push_config(GetTaskPushNotificationConfigRequest(task_id=task.id, id="b"))
    with pytest.raises(TaskNotFoundError):
        await svc.create_push_config(TaskPushNotificationConfig(task_id="ghost", url="https://x.example/"))


async def test_a_loopback_webhook_is_refused_unless_the_server_allows_it(make_service):
    svc = make_service("conformance")  # the library default: no loopback (spec §13.2)
    with pytest.raises(InvalidParamsError, match="loopback"):
        await svc.send_message(
            SendMessageRequest(
                message=user_message("x", message_id="tck-complete-task"),
                configuration=SendMessageConfiguration(
                    task_push_notification_config=(
                        TaskPushNotificationConfig(url="http://127.0.0.1:8000/hook")
                    )
                ),
            )
        )
    assert (await svc.list_tasks(ListTasksRequest())).total_size == 0  # nothing was started


@pytest.mark.parametrize(
    "url, loopback, private, why",
    [
        ("ftp://client.example/hook", False, False, "scheme"),
        ("http:///hook", False, False, "no host"),
        ("http://localhost:8000/hook", False, False, "loopback"),
        ("http://[::1]/hook", False, False, "loopback"),
        ("http://10.0.0.5/hook", True, False, "private"),
        ("http://169.254.169.254/latest/meta-data", True, False, "private"),  # cloud metadata
        ("http://[::ffff:192.168.1.1]/hook", True, False, "private"),
        ("http://localhost:8000/hook", True, False, None),
        ("http://127.0.0.1:8000/hook", True, False, None),
        ("http://10.0.0.5/hook", False, True, None),
        ("https://client.example/hook", False, False, None),
    ],
)
def test_webhook_urls_are_screened_against_request_forgery(url, loopback, private, why):
    if why is None:
        check_webhook_url(url, allow_loopback=loopback, allow_private=private)
    else:
        with pytest.raises(InvalidParamsError, match=why):
            check_webhook_url(url, allow_loopback=loopback, allow_private=private)


async def test_the_final_state_reaches_the_webhook_even_when_the_client_is_gone(make_service, webhook):
    hook, url = webhook
    hook.clear()
    svc = make_service("conformance", allow_loopback_webhooks=True)
    await svc.send_message(
        SendMessageRequest(
            message=user_message("x", message_id="tck-reject-task"),
            configuration=SendMessageConfiguration(
                task_push_notification_config=TaskPushNotificationConfig(url=url), return_immediately=True
            ),
        )
    )
    await asyncio.sleep(0.01)
    await svc.push.drain()
    states = [r.event.status_update.status.state for r in hook.received if r.event.status_update]
    assert states == [TaskState.REJECTED]


async def test_a_webhook_that_checks_its_token_refuses_a_forged_notification(make_service):
    hook = WebhookRecorder(expect_token="issued-by-me")
    with running_server(hook.app()) as base:
        svc = make_service("conformance", allow_loopback_webhooks=True)
        for token in ("issued-by-me", "forged"):
            await svc.send_message(
                SendMessageRequest(
                    message=user_message("x", message_id=f"tck-complete-task-{token}"),
                    configuration=SendMessageConfiguration(
                        task_push_notification_config=TaskPushNotificationConfig(
                            url=base + "/hook", token=token
                        )
                    ),
                )
            )
        await svc.push.drain()
        await svc.aclose()
    assert {r.headers["x-a2a-notification-token"] for r in hook.received} == {"issued-by-me"}
    refused = [d for d in svc.push.deliveries if d.status_code == 401]
    assert refused and all(d.attempt == 1 for d in refused)  # a 401 is not retried


async def test_a_webhook_that_checks_authorization_accepts_only_the_configured_credentials(make_service):
    """§13.2: the receiver MUST validate the credentials of the config's ``authentication``."""
    hook = WebhookRecorder(expect_authorization=("Bearer", "s3cret"))
    with running_server(hook.app()) as base:
        svc = make_service("conformance", allow_loopback_webhooks=True)
        configs = {
            "right": AuthenticationInfo(scheme="bearer", credentials="s3cret"),  # scheme: any case
            "wrong": AuthenticationInfo(scheme="Bearer", credentials="s3cret!"),
            "basic": AuthenticationInfo(scheme="Basic", credentials="s3cret"),
            "none": None,
        }
        for name, auth in configs.items():
            await svc.send_message(
                SendMessageRequest(
                    message=user_message("x", message_id=f"tck-complete-task-auth-{name}"),
                    configuration=SendMessageConfiguration(
                        task_push_notification_config=TaskPushNotificationConfig(
                            url=base + "/hook", token=f"token-{name}", authentication=auth
                        )
                    ),
                )
            )
        await svc.push.drain()
        await svc.aclose()
    assert {r.headers["x-a2a-notification-token"] for r in hook.received} == {"token-right"}
    assert {r.headers["authorization"] for r in hook.received} == {"bearer s3cret"}
    refused = [d for d in svc.push.deliveries if d.status_code == 401]
    assert len(refused) == 6 and all(d.attempt == 1 for d in refused)  # 3 configs × 2 events


def test_the_recorder_answers_a_body_that_is_not_a_json_object_with_400():
    import httpx

    hook = WebhookRecorder()
    with running_server(hook.app()) as base:
        for body in (b"{not json", b"[1, 2]", "\u00ff".encode("latin-1"), b"[" * 100_000 + b"]" * 100_000):
            r = httpx.post(base + "/hook", content=body, headers={"content-type": "application/a2a+json"})
            assert r.status_code == 400
        r = httpx.post(base + "/hook", json={"task": {"id": "t"}})
        assert r.status_code == 204
    assert len(hook.received) == 1
    challenge = WebhookRecorder(expect_authorization=("Bearer", "x"))
    with running_server(challenge.app()) as base:
        r = httpx.post(base + "/hook", json={"task": {"id": "t"}})
    assert (r.status_code, r.headers["www-authenticate"]) == (401, "Bearer")
