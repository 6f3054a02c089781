"""Ownership and tenants in the service layer (spec §13.1): a task, its push configs and its
context belong to the caller scope that created them; any other scope is told "not found"."""

from __future__ import annotations

import httpx
import pytest

from agentproto.a2a._taskstore import _SCHEMA_V1, A2A_SCHEMA_VERSION, TaskStore
from agentproto.a2a.errors import InvalidParamsError, TaskNotFoundError
from agentproto.a2a.jsonrpc import ANONYMOUS, CallerScope
from agentproto.a2a.machine import Transition
from agentproto.a2a.server import create_a2a_app
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import (
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskStatus,
    user_message,
)
from agentproto.clock import FakeClock, IdFactory
from agentproto.server import RunningServer
from agentproto.store import Store

pytestmark = pytest.mark.anyio

ALICE = CallerScope("", "alice")
BOB = CallerScope("", "bob")
A2A = {"A2A-Version": "1.0"}


def send_req(
    message_id: str, *, task_id: str = "", context_id: str = "", tenant: str = ""
) -> SendMessageRequest:
    m = user_message("hi", message_id=message_id, task_id=task_id, context_id=context_id)
    return SendMessageRequest(message=m, tenant=tenant)


async def waiting_task(svc, scope: CallerScope, n: int = 1, tenant: str = "") -> Task:
    out = await svc.send_message(send_req(f"tck-input-required-{scope.owner}-{n}", tenant=tenant), scope)
    assert isinstance(out, Task) and out.status.state is TaskState.INPUT_REQUIRED
    return out


# --- one subject cannot see another's ------------------------------------------------------


async def test_another_subject_gets_task_not_found_for_every_task_operation(make_service):
    svc = make_service("conformance", allow_loopback_webhooks=True)
    task = await waiting_task(svc, ALICE)
    with pytest.raises(TaskNotFoundError):
        await svc.get_task(GetTaskRequest(id=task.id), BOB)
    with pytest.raises(TaskNotFoundError):
        await svc.cancel_task(CancelTaskRequest(id=task.id), BOB)
    with pytest.raises(TaskNotFoundError):
        await svc.subscribe(SubscribeToTaskRequest(id=task.id), BOB)
    with pytest.raises(TaskNotFoundError):  # nor may bob answer alice's question
        await svc.send_message(send_req("m-bob", task_id=task.id), BOB)
    with pytest.raises(TaskNotFoundError):
        await svc.get_task(GetTaskRequest(id=task.id))  # the anonymous caller is a scope too
    assert (await svc.get_task(GetTaskRequest(id=task.id), ALICE)).id == task.id


async def test_another_subject_gets_task_not_found_for_every_push_config_operation(make_service):
    svc = make_service("conformance", allow_loopback_webhooks=True)
    task = await waiting_task(svc, ALICE)
    cfg = await svc.create_push_config(
        TaskPushNotificationConfig(task_id=task.id, url="http://127.0.0.1:9/hook"), ALICE
    )
    for call in (
        svc.create_push_config(TaskPushNotificationConfig(task_id=task.id, url="http://127.0.0.1:9/x"), BOB),
        svc.get_push_config(GetTaskPushNotificationConfigRequest(task_id=task.id, id=cfg.id), BOB),
        svc.list_push_configs(ListTaskPushNotificationConfigsRequest(task_id=task.id), BOB),
        svc.delete_push_config(DeleteTaskPushNotificationConfigRequest(task_id=task.id, id=cfg.id), BOB),
    ):
        with pytest.raises(TaskNotFoundError):
            await call
    mine = await svc.list_push_configs(ListTaskPushNotificationConfigsRequest(task_id=task.id), ALICE)
    assert [c.id for c in mine.configs] == [cfg.id]  # bob's delete deleted nothing
    # the store itself filters by scope, not only the service in front of it
    assert svc.store.push_config(task.id, cfg.id, BOB) is None
    assert svc.store.push_configs(task.id, BOB) == []


async def test_list_tasks_lists_only_the_callers_tasks_and_counts_only_them(make_service):
    svc = make_service("conformance")
    a1, a2 = await waiting_task(svc, ALICE, 1), await waiting_task(svc, ALICE, 2)
    b1 = await waiting_task(svc, BOB, 1)
    alice = await svc.list_tasks(ListTasksRequest(), ALICE)
    bob = await svc.list_tasks(ListTasksRequest(), BOB)
    assert {t.id for t in alice.tasks} == {a1.id, a2.id} and alice.total_size == 2
    assert [t.id for t in bob.tasks] == [b1.id] and bob.total_size == 1
    by_context = await svc.list_tasks(ListTasksRequest(context_id=a1.context_id), BOB)
    assert by_context.tasks == [] and by_context.total_size == 0
    assert (await svc.list_tasks(ListTasksRequest())).total_size == 0


async def test_a_context_id_names_a_context_of_each_callers_own(make_service):
    """Contexts are per caller (tenant, subject, contextId): bob using alice's contextId gets a
    context of his own under that name, answered like any unused id, so nothing leaks; the
    id the client gave is kept, not replaced by a made-up one (§3.4.1)."""
    svc = make_service("conformance")
    task = await waiting_task(svc, ALICE)
    his = await svc.send_message(send_req("tck-complete-task-b", context_id=task.context_id), BOB)
    fresh = await svc.send_message(send_req("tck-complete-task-e", context_id="never-used"), BOB)
    assert his.context_id == task.context_id and fresh.context_id == "never-used"
    assert his.status.state == fresh.status.state  # the same answer as for an unused id
    hers = await svc.list_tasks(ListTasksRequest(context_id=task.context_id), ALICE)
    assert [t.id for t in hers.tasks] == [task.id]  # nothing of bob's in alice's context
    own = await svc.send_message(send_req("tck-complete-task-a", context_id=task.context_id), ALICE)
    assert own.context_id == task.context_id
    theirs = await svc.list_tasks(ListTasksRequest(context_id=task.context_id), BOB)
    assert [t.id for t in theirs.tasks] == [his.id]


async def test_a_push_config_in_the_first_message_belongs_to_the_sender(make_service):
    svc = make_service("conformance", allow_loopback_webhooks=True)
    cfg = TaskPushNotificationConfig(url="http://127.0.0.1:9/hook")
    req = send_req("tck-input-required-p").model_copy(
        update={"configuration": SendMessageConfiguration(task_push_notification_config=cfg)}
    )
    task = await svc.send_message(req, ALICE)
    assert len(svc.store.push_configs(task.id, ALICE)) == 1
    assert svc.store.push_configs(task.id, BOB) == []


# --- tenants ---------------------------------------------------------------------------------


async def test_tenants_are_isolated_even_for_the_same_subject(make_service):
    svc = make_service("conformance")
    acme = CallerScope("acme", "alice")
    task = await waiting_task(svc, acme, tenant="acme")
    got = await svc.get_task(GetTaskRequest(id=task.id, tenant="acme"), ALICE)  # tenant from the request
    assert got.id == task.id
    with pytest.raises(TaskNotFoundError):
        await svc.get_task(GetTaskRequest(id=task.id, tenant="globex"), ALICE)
    with pytest.raises(TaskNotFoundError):
        await svc.get_task(GetTaskRequest(id=task.id), ALICE)  # the default tenant is a tenant
    assert (await svc.list_tasks(ListTasksRequest(tenant="globex"), ALICE)).tasks == []
    # and the context stays in its tenant: the same id in another tenant is another context
    other = await svc.send_message(
        send_req("tck-complete-task-x", context_id=task.context_id, tenant="globex")
    )
    listed = await svc.list_tasks(ListTasksRequest(context_id=task.context_id, tenant="acme"), acme)
    assert other.id not in [t.id for t in listed.tasks]


async def test_a_request_tenant_that_contradicts_the_routes_tenant_is_refused(make_service):
    svc = make_service("conformance")
    with pytest.raises(InvalidParamsError):
        await svc.get_task(GetTaskRequest(id="t", tenant="globex"), CallerScope("acme", None))


async def test_push_configs_record_the_tenant_they_were_made_in(make_service):
    svc = make_service("conformance", allow_loopback_webhooks=True)
    acme = CallerScope("acme", None)
    task = await waiting_task(svc, acme, tenant="acme")
    cfg = await svc.create_push_config(
        TaskPushNotificationConfig(task_id=task.id, url="http://127.0.0.1:9/h", tenant="acme"), ANONYMOUS
    )
    assert cfg.tenant == "acme"
    assert svc.store.push_configs(task.id, ANONYMOUS) == []


def test_an_empty_subject_is_not_a_subject():
    with pytest.raises(ValueError):
        CallerScope("", "")


# --- tenants on the three bindings (default mode: the anonymous caller) ---------------------


@pytest.fixture(scope="module")
def tenant_server():
    pytest.importorskip("grpc", reason="needs grpcio")
    app = create_a2a_app(agent="conformance", clock=FakeClock(), ids=IdFactory("tn"), grpc=True)
    running = RunningServer(app).start()
    try:
        yield running.url, app.state.a2a.service
    finally:
        running.stop()


def _rpc(url: str, method: str, params: dict) -> dict:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(url + "/a2a", json=body, headers=A2A, timeout=10).json()


def _message(mid: str) -> dict:
    return {"messageId": mid, "role": "ROLE_USER", "parts": [{"text": "hi"}]}


def test_jsonrpc_honours_the_tenant_param(tenant_server):
    url, _ = tenant_server
    task = _rpc(url, "SendMessage", {"tenant": "acme", "message": _message("tck-input-required-j")})
    tid = task["result"]["task"]["id"]
    assert _rpc(url, "GetTask", {"tenant": "acme", "id": tid})["result"]["id"] == tid
    assert _rpc(url, "GetTask", {"tenant": "globex", "id": tid})["error"]["code"] == -32001
    assert _rpc(url, "GetTask", {"id": tid})["error"]["code"] == -32001
    assert _rpc(url, "CancelTask", {"tenant": "globex", "id": tid})["error"]["code"] == -32001
    listed = _rpc(url, "ListTasks", {"tenant": "globex"})["result"]
    assert tid not in [t["id"] for t in listed.get("tasks", [])]


def test_rest_honours_the_tenant_path_segment(tenant_server):
    url, _ = tenant_server
    rest = url + "/a2a/rest"
    sent = httpx.post(
        rest + "/acme/message:send", json={"message": _message("tck-input-required-r")}, headers=A2A
    )
    tid = sent.json()["task"]["id"]
    assert httpx.get(f"{rest}/acme/tasks/{tid}", headers=A2A).status_code == 200
    other = httpx.get(f"{rest}/globex/tasks/{tid}", headers=A2A)
    assert other.status_code == 404 and other.json()["error"]["status"] == "NOT_FOUND"
    assert httpx.get(f"{rest}/tasks/{tid}", headers=A2A).status_code == 404
    assert httpx.post(f"{rest}/globex/tasks/{tid}:cancel", headers=A2A).status_code == 404
    listed = httpx.get(f"{rest}/globex/tasks", headers=A2A).json()
    assert tid not in [t["id"] for t in listed.get("tasks", [])]


def test_grpc_honours_the_tenant_request_field(tenant_server):
    import grpc
    from a2a.types import a2a_pb2 as pb
    from a2a.types import a2a_pb2_grpc

    _, service = tenant_server
    md = (("a2a-version", "1.0"),)
    with grpc.insecure_channel(service.grpc_url) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        msg = pb.Message(message_id="tck-input-required-g", role=pb.ROLE_USER, parts=[pb.Part(text="hi")])
        tid = stub.SendMessage(pb.SendMessageRequest(tenant="acme", message=msg), metadata=md).task.id
        assert stub.GetTask(pb.GetTaskRequest(tenant="acme", id=tid), metadata=md).id == tid
        for request in (pb.GetTaskRequest(tenant="globex", id=tid), pb.GetTaskRequest(id=tid)):
            with pytest.raises(grpc.RpcError) as info:
                stub.GetTask(request, metadata=md)
            assert info.value.code() == grpc.StatusCode.NOT_FOUND
        listed = stub.ListTasks(pb.ListTasksRequest(tenant="globex"), metadata=md)
        assert tid not in [t.id for t in listed.tasks]


# --- migration of a version-1 database -------------------------------------------------------


def test_a_version_1_database_still_opens_and_its_tasks_stay_with_the_anonymous_caller(tmp_path):
    path = tmp_path / "old.sqlite3"
    old = Store(path)
    old.ensure_schema("a2a", 1, {1: _SCHEMA_V1})
    task = Task(id="t-old", context_id="c-old", status=TaskStatus(state=TaskState.INPUT_REQUIRED))
    with old.transaction() as db:
        db.execute(
            "INSERT INTO a2a_tasks (id, context_id, state, status_ms, body) VALUES (?, ?, ?, ?, ?)",
            ("t-old", "c-old", task.status.state.value, 5, task.model_dump_json(by_alias=True)),
        )
        db.execute(
            "INSERT INTO a2a_transitions VALUES (?, ?, ?, ?, ?, ?)",
            ("t-old", 0, None, TaskState.INPUT_REQUIRED.value, 5, "created"),
        )
        db.execute(
            "INSERT INTO a2a_push_configs (task_id, id, seq, body) VALUES (?, ?, ?, ?)",
            ("t-old", "p-1", 1, '{"taskId":"t-old","id":"p-1","url":"https://example.com/h"}'),
        )
    old.close()

    store = TaskStore(str(path))
    assert store.found_version == 1 and store.store.schema_version("a2a") == A2A_SCHEMA_VERSION == 3
    assert store.load("t-old").id == "t-old" and store.load("t-old", BOB) is None
    assert store.transitions("t-old") == [Transition(None, TaskState.INPUT_REQUIRED, 5, "created")]
    assert [c.id for c in store.push_configs("t-old")] == ["p-1"]
    assert store.page().total_size == 1 and store.page(scope=BOB).total_size == 0
    assert _context_owners(store, "c-old") == [("", ANONYMOUS.owner)]  # kept by its first user
    store.close()
    again = TaskStore(str(path))  # opening a migrated database again changes nothing
    assert again.found_version == 3 and again.load("t-old") is not None
    again.close()


def _context_owners(tasks: TaskStore, context_id: str) -> list[tuple[str, str]]:
    rows = (
        tasks.store.connect()
        .execute("SELECT tenant, owner FROM a2a_contexts WHERE context_id = ?", (context_id,))
        .fetchall()
    )
    return [tuple(r) for r in rows]


def test_a_demo_database_with_owners_in_the_old_asgi_table_keeps_them(tmp_path):
    from agentproto.agui._threadstore_owners import ThreadOwners
    from agentproto.demo.auth import OwnerTable

    path = tmp_path / "demo.sqlite3"
    old = Store(path)
    old.ensure_schema("a2a", 1, {1: _SCHEMA_V1})
    old.ensure_schema(
        "demo_owners",
        1,
        [
            "CREATE TABLE demo_owners (kind TEXT NOT NULL, id TEXT NOT NULL, "
            "subject TEXT NOT NULL, PRIMARY KEY (kind, id))"
        ],
    )
    task = Task(id="t-a", context_id="c-a", status=TaskStatus(state=TaskState.COMPLETED))
    with old.transaction() as db:
        db.execute(
            "INSERT INTO a2a_tasks (id, context_id, state, status_ms, body) VALUES (?, ?, ?, ?, ?)",
            ("t-a", "c-a", task.status.state.value, 5, task.model_dump_json(by_alias=True)),
        )
        db.executemany(
            "INSERT INTO demo_owners VALUES (?, ?, ?)",
            [("task", "t-a", "alice"), ("context", "c-a", "alice"), ("thread", "th-1", "alice")],
        )
    old.close()

    store = Store(path)
    owners = OwnerTable(store)
    tasks = TaskStore(store)
    assert tasks.load("t-a", ALICE) is not None and tasks.load("t-a") is None
    assert _context_owners(tasks, "c-a") == [("", "alice")]
    threads = ThreadOwners(store)  # AG-UI threads moved to the AG-UI server's own table
    assert threads.may_use("th-1", "alice") and not threads.may_use("th-1", "bob")
    assert owners.owner("thread", "th-1") is None and owners.owner("task", "t-a") is None
    assert store.schema_version("demo_owners") == 3
    store.close()


def test_verified_claims_without_a_subject_never_pass_for_the_anonymous_caller():
    from types import SimpleNamespace

    from agentproto.a2a._rest import caller_subject
    from agentproto.agui._threadstore_owners import request_subject

    assert caller_subject({}) is None and request_subject({}) == ""
    assert caller_subject({"state": {"claims": SimpleNamespace(subject="alice")}}) == "alice"
    for getter in (caller_subject, request_subject):
        with pytest.raises(ValueError):
            getter({"state": {"claims": SimpleNamespace(subject="")}})
