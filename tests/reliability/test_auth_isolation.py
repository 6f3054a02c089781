"""Auth mode keeps two clients apart on all three A2A bindings (JSON-RPC, HTTP+JSON, gRPC) and
in every tenant: the ownership check lives in the service layer, so no binding can skip it."""

from __future__ import annotations

import httpx
import pytest

from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import create_app
from agentproto.server import RunningServer
from tests.reliability.test_auth_mode import rpc, token
from tests.servers import AUTH_CLIENTS, secured

grpc = pytest.importorskip("grpc", reason="needs grpcio")

A2A = {"A2A-Version": "1.0"}


@pytest.fixture(scope="module")
def server():
    app = secured(clock=FakeClock(), ids=IdFactory("iso"), a2a_agent="conformance", a2a_grpc=True)
    running = RunningServer(app).start()
    try:
        yield running.url, app.state.a2a_service
    finally:
        running.stop()


@pytest.fixture(scope="module")
def tokens(server):
    url, _ = server
    return {name: token(url, name, secret) for name, secret in AUTH_CLIENTS.items()}


def _auth(tok: str | None) -> dict[str, str]:
    return {**A2A, **({"Authorization": f"Bearer {tok}"} if tok else {})}


def _message(mid: str, **fields) -> dict:
    return {"messageId": mid, "role": "ROLE_USER", "parts": [{"text": "hi"}], **fields}


def _alice_task(url: str, tok: str, mid: str, tenant: str = "") -> dict:
    params = {"message": _message(mid), **({"tenant": tenant} if tenant else {})}
    return rpc(url, tok, "SendMessage", params).json()["result"]["task"]


# --- JSON-RPC ------------------------------------------------------------------------------


def test_jsonrpc_another_client_gets_task_not_found_for_subscribe_and_push_configs(server, tokens):
    url, _ = server
    task = _alice_task(url, tokens["alice"], "tck-input-required-j1")
    bob = tokens["bob"]
    for method, params in [
        ("SubscribeToTask", {"id": task["id"]}),
        ("CreateTaskPushNotificationConfig", {"taskId": task["id"], "url": "https://example.com/h"}),
        ("ListTaskPushNotificationConfigs", {"taskId": task["id"]}),
        ("GetTaskPushNotificationConfig", {"taskId": task["id"], "id": "any"}),
        ("DeleteTaskPushNotificationConfig", {"taskId": task["id"], "id": "any"}),
        ("SendMessage", {"message": _message("m-b", taskId=task["id"])}),
    ]:
        answer = rpc(url, bob, method, params)
        assert answer.headers["content-type"].startswith("application/json"), method
        assert answer.json()["error"]["code"] == -32001, method
        assert "result" not in answer.json()


def test_jsonrpc_another_client_cannot_join_a_context(server, tokens):
    """Contexts are per caller: bob's message with alice's contextId lands in a context of his
    own under that name, and nothing of it reaches alice's (nor is the id's existence told)."""
    url, _ = server
    task = _alice_task(url, tokens["alice"], "tck-input-required-j2")
    joined = rpc(
        url,
        tokens["bob"],
        "SendMessage",
        {"message": _message("tck-complete-task-j", contextId=task["contextId"])},
    ).json()
    his = joined["result"]["task"]
    assert his["contextId"] == task["contextId"] and his["id"] != task["id"]
    hers = rpc(url, tokens["alice"], "ListTasks", {"contextId": task["contextId"]}).json()["result"]
    assert [t["id"] for t in hers["tasks"]] == [task["id"]]


# --- HTTP+JSON -----------------------------------------------------------------------------


def test_rest_another_client_gets_404_never_the_task(server, tokens):
    url, _ = server
    rest = url + "/a2a/rest"
    sent = httpx.post(
        rest + "/message:send",
        json={"message": _message("tck-input-required-r1")},
        headers=_auth(tokens["alice"]),
    )
    tid = sent.json()["task"]["id"]
    bob = _auth(tokens["bob"])
    assert httpx.get(f"{rest}/tasks/{tid}", headers=_auth(tokens["alice"])).status_code == 200
    for method, path in [
        ("GET", f"/tasks/{tid}"),
        ("POST", f"/tasks/{tid}:cancel"),
        ("GET", f"/tasks/{tid}/pushNotificationConfigs"),
    ]:
        r = httpx.request(method, rest + path, headers=bob)
        assert r.status_code == 404 and r.json()["error"]["status"] == "NOT_FOUND", path
        assert "tck-input-required" not in r.text
    listed = httpx.get(rest + "/tasks", headers=bob).json()
    assert tid not in [t["id"] for t in listed.get("tasks", [])]
    assert httpx.get(f"{rest}/tasks/{tid}", headers=A2A).status_code == 401  # and no token: 401


# --- gRPC ----------------------------------------------------------------------------------


def _stub(service):
    from a2a.types import a2a_pb2_grpc

    channel = grpc.insecure_channel(service.grpc_url)
    return channel, a2a_pb2_grpc.A2AServiceStub(channel)


def _md(tok: str | None) -> tuple[tuple[str, str], ...]:
    return (("a2a-version", "1.0"), *((("authorization", f"Bearer {tok}"),) if tok else ()))


def test_the_card_lists_grpc_in_auth_mode(server):
    url, _ = server
    card = httpx.get(url + "/.well-known/agent-card.json").json()
    assert [i["protocolBinding"] for i in card["supportedInterfaces"]] == ["JSONRPC", "HTTP+JSON", "GRPC"]


@pytest.mark.parametrize("tok", [None, "not-a-jwt"])
def test_grpc_without_a_valid_token_is_unauthenticated_with_a_challenge(server, tok):
    from a2a.types import a2a_pb2 as pb

    _, service = server
    channel, stub = _stub(service)
    with channel, pytest.raises(grpc.RpcError) as info:
        stub.ListTasks(pb.ListTasksRequest(), metadata=_md(tok))
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert dict(info.value.trailing_metadata())["www-authenticate"].startswith("Bearer realm=")


def test_grpc_another_client_gets_not_found_and_the_owner_sees_it_on_every_binding(server, tokens):
    from a2a.types import a2a_pb2 as pb

    url, service = server
    task = _alice_task(url, tokens["alice"], "tck-input-required-g1")  # made over JSON-RPC
    channel, stub = _stub(service)
    with channel:
        assert stub.GetTask(pb.GetTaskRequest(id=task["id"]), metadata=_md(tokens["alice"])).id == task["id"]
        for call, request in [
            (stub.GetTask, pb.GetTaskRequest(id=task["id"])),
            (stub.CancelTask, pb.CancelTaskRequest(id=task["id"])),
            (
                stub.ListTaskPushNotificationConfigs,
                pb.ListTaskPushNotificationConfigsRequest(task_id=task["id"]),
            ),
        ]:
            with pytest.raises(grpc.RpcError) as info:
                call(request, metadata=_md(tokens["bob"]))
            assert info.value.code() == grpc.StatusCode.NOT_FOUND
        with pytest.raises(grpc.RpcError) as info:
            list(stub.SubscribeToTask(pb.SubscribeToTaskRequest(id=task["id"]), metadata=_md(tokens["bob"])))
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
        listed = stub.ListTasks(pb.ListTasksRequest(), metadata=_md(tokens["bob"]))
        assert task["id"] not in [t.id for t in listed.tasks]


# --- tenants, authenticated ----------------------------------------------------------------


def test_the_same_client_in_two_tenants_sees_two_task_lists_on_every_binding(server, tokens):
    from a2a.types import a2a_pb2 as pb

    url, service = server
    alice = tokens["alice"]
    task = _alice_task(url, alice, "tck-input-required-t1", tenant="acme")
    assert (
        rpc(url, alice, "GetTask", {"id": task["id"], "tenant": "acme"}).json()["result"]["id"] == task["id"]
    )
    assert rpc(url, alice, "GetTask", {"id": task["id"]}).json()["error"]["code"] == -32001
    rest = url + "/a2a/rest"
    assert httpx.get(f"{rest}/acme/tasks/{task['id']}", headers=_auth(alice)).status_code == 200
    assert httpx.get(f"{rest}/globex/tasks/{task['id']}", headers=_auth(alice)).status_code == 404
    assert httpx.get(f"{rest}/acme/tasks/{task['id']}", headers=_auth(tokens["bob"])).status_code == 404
    channel, stub = _stub(service)
    with channel:
        assert stub.GetTask(pb.GetTaskRequest(id=task["id"], tenant="acme"), metadata=_md(alice)).id
        with pytest.raises(grpc.RpcError) as info:
            stub.GetTask(pb.GetTaskRequest(id=task["id"], tenant="globex"), metadata=_md(alice))
        assert info.value.code() == grpc.StatusCode.NOT_FOUND


# --- AG-UI: threads, their runs and their interrupts, per subject (checked by the AG-UI server) ---


def test_agui_another_client_cannot_read_run_events_cancel_or_answer_an_interrupt(server, tokens):
    from tests.servers import SSE_HEADERS, decode, interrupt_of, run_body
    from tests.servers import approve as approval

    url, _ = server
    alice, bob = _auth(tokens["alice"]), _auth(tokens["bob"])
    started = httpx.post(
        url + "/ag-ui/agent", json=run_body("iso-t", "iso-r1"), headers={**SSE_HEADERS, **alice}
    )
    interrupt = interrupt_of(decode(started.content))  # the refund agent asks for approval
    events = f"{url}/ag-ui/threads/iso-t/runs/iso-r1/events"
    assert httpx.get(events, headers=alice).status_code == 200
    stolen = httpx.get(events, headers=bob)
    assert stolen.status_code == 404 and "refund" not in stolen.text.lower()
    cancel = httpx.post(f"{url}/ag-ui/runs/iso-r1/cancel?threadId=iso-t", headers=bob)
    assert cancel.status_code == 404 and cancel.json()["error"]["code"] == "run_not_active"
    answered = httpx.post(
        url + "/ag-ui/agent",
        json=run_body("iso-t", "iso-bob", messages=[], resume=approval(interrupt["id"])),
        headers={**SSE_HEADERS, **bob},
    )
    assert answered.status_code == 200  # bob's own thread of that name: it knows no such interrupt
    assert interrupt["id"] in answered.text and "resume.unrecognised-entry" in answered.text
    pending = httpx.get(f"{url}/ag-ui/threads/iso-t", headers=alice).json()["pendingInterrupts"]
    assert [p["id"] for p in pending] == [interrupt["id"]]  # still alice's to answer


def test_agui_ownership_is_kept_by_the_server_not_only_by_the_demo_gate():
    """The AG-UI routes behind a plain ``BearerAuth`` (no demo gate) keep threads apart too."""
    from agentproto.security import AuthorizationServer, teaching_key
    from agentproto.security.serving import BearerAuth
    from tests.servers import SSE_HEADERS, run_body

    clock = FakeClock()
    auth = AuthorizationServer("https://auth.test", teaching_key("iso", "EdDSA"), kid="k", clock=clock)
    for name in ("alice", "bob"):
        auth.register_client(name, name, scopes=["s"], resources=["demo"])
    app = create_app(clock=clock, ids=IdFactory("plain"), a2a_agent=None)
    gate = BearerAuth(app, audience="demo", keys=auth.key_set(), clock=clock, public_paths=())
    running = RunningServer(gate).start()
    try:
        tok = {
            n: auth.token(
                {"grant_type": "client_credentials", "client_id": n, "client_secret": n, "resource": "demo"}
            )["access_token"]
            for n in ("alice", "bob")
        }
        headers = {n: {**SSE_HEADERS, "Authorization": f"Bearer {t}"} for n, t in tok.items()}
        assert (
            httpx.post(
                running.url + "/ag-ui/agent", json=run_body("p-t", "p-r1"), headers=headers["alice"]
            ).status_code
            == 200
        )
        assert httpx.get(running.url + "/ag-ui/threads/p-t", headers=headers["alice"]).status_code == 200
        assert httpx.get(running.url + "/ag-ui/threads/p-t", headers=headers["bob"]).status_code == 404
        before = httpx.get(running.url + "/ag-ui/threads/p-t", headers=headers["alice"]).json()
        again = httpx.post(running.url + "/ag-ui/agent", json=run_body("p-t", "p-r2"), headers=headers["bob"])
        assert again.status_code == 200  # a thread of bob's own under the same id
        after = httpx.get(running.url + "/ag-ui/threads/p-t", headers=headers["alice"]).json()
        assert after == before  # alice's thread is untouched
    finally:
        running.stop()
