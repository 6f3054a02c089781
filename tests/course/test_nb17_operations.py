"""Notebook 17 §7, *Operating a shared server for a class* and *Restarts: draining, and what the
database keeps*; notebook 13 §4, *Capacity for a class: Little's law*.

Every claim those sections make about the kit is held here against the real server (the demo
app of ``agentproto serve`` on 127.0.0.1, port 0): a foreign ``Host`` is 421, a preflight from an
unconfigured origin 403 and from a configured one 204, the per-caller open-task quota answers
-32603 ``RESOURCE_EXHAUSTED`` (HTTP+JSON 429 with ``Retry-After``) for that caller only, another
subject's AG-UI thread is 404 like an unknown one, and a restart on the same SQLite file keeps
tasks, push configs and idempotency keys while failing the task that was running. No test
asserts a timing.
"""

from __future__ import annotations

import json
import logging
import threading

import httpx
import pytest

from agentproto.a2a._service_streams import DEFAULT_SERVICE_LIMITS, ServiceLimits
from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import create_app
from agentproto.limits import ConnectionLimits
from agentproto.security import teaching_key
from agentproto.server import AuthConfig, RunningServer, ServerConfig

STUDENTS = {"alice": "alice-secret", "bob": "bob-secret"}
PREFLIGHT = {
    "Origin": "https://class.example",
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type",
}


def _class_server(**options) -> RunningServer:
    auth = AuthConfig.of(
        STUDENTS, issuer="https://auth.class.test", signing_key=teaching_key("class auth", "EdDSA")
    )
    config = ServerConfig(port=0, a2a_agent="conformance", auth=auth, **options)
    return RunningServer(create_app(config, clock=FakeClock(), ids=IdFactory("cls"))).start()


@pytest.fixture(scope="module")
def classroom():
    server = _class_server(
        allowed_origins=("https://class.example",),
        service_limits=ServiceLimits(max_open_tasks_per_caller=2),
    )
    yield server
    server.stop()


def _token(server: RunningServer, name: str) -> str:
    form = {"grant_type": "client_credentials", "client_id": name, "client_secret": STUDENTS[name]}
    return httpx.post(server.url + "/oauth/token", data=form, timeout=10).json()["access_token"]


def _open_task(server: RunningServer, bearer: str, n: int, binding: str = "jsonrpc") -> httpx.Response:
    message = {"messageId": f"tck-input-required-{n}", "role": "ROLE_USER", "parts": [{"text": "lab"}]}
    headers = {"A2A-Version": "1.0", "Authorization": f"Bearer {bearer}"}
    if binding == "rest":
        return httpx.post(
            server.url + "/a2a/rest/message:send", json={"message": message}, headers=headers, timeout=10
        )
    rpc = {"jsonrpc": "2.0", "id": n, "method": "SendMessage", "params": {"message": message}}
    return httpx.post(server.url + "/a2a", json=rpc, headers=headers, timeout=10)


# ---------------------------------------------------------------- Host and Origin


def test_a_foreign_host_is_421_and_the_loopback_names_are_served(classroom):
    card = classroom.url + "/.well-known/agent-card.json"
    for host in ("evil.example", "evil.example:8000"):
        answer = httpx.get(card, headers={"Host": host}, timeout=10)
        assert answer.status_code == 421
        assert answer.json()["error"]["code"] == "host_not_allowed"
    for host in (f"127.0.0.1:{classroom.port}", f"localhost:{classroom.port}"):
        assert httpx.get(card, headers={"Host": host}, timeout=10).status_code == 200
    assert httpx.get(card, headers={"Host": "bad host"}, timeout=10).status_code == 400


def test_a_preflight_is_refused_by_default_and_answered_for_a_configured_origin(classroom):
    default = _class_server()
    try:
        refused = httpx.options(default.url + "/a2a", headers=PREFLIGHT, timeout=10)
    finally:
        default.stop()
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "origin_not_allowed"
    assert "access-control-allow-origin" not in refused.headers

    allowed = httpx.options(classroom.url + "/a2a", headers=PREFLIGHT, timeout=10)
    assert allowed.status_code == 204
    assert allowed.headers["access-control-allow-origin"] == "https://class.example"
    assert "authorization" in allowed.headers["access-control-allow-headers"]
    other = httpx.options(
        classroom.url + "/a2a", headers={**PREFLIGHT, "Origin": "https://evil.example"}, timeout=10
    )
    assert other.status_code == 403


def test_a_simple_cross_origin_post_is_refused_without_a_preflight(classroom):
    """No preflight for a "simple" POST (text/plain), but it carries Origin: 403 all the same;
    from a configured origin the non-JSON body is still 415."""
    body = '{"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}'
    simple = {"Content-Type": "text/plain"}
    foreign = httpx.post(
        classroom.url + "/a2a", content=body, headers={**simple, "Origin": "https://evil.example"}, timeout=10
    )
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == "origin_not_allowed"
    listed = httpx.post(
        classroom.url + "/a2a",
        content=body,
        headers={**simple, "Origin": "https://class.example"},
        timeout=10,
    )
    assert listed.status_code == 415


def test_the_secret_backoff_starts_after_five_free_failures():
    """Notebook 17's table: six wrong secrets are answered invalid_client, the seventh try slow_down."""
    server = _class_server()
    try:
        answers = []
        for n in range(7):
            form = {"grant_type": "client_credentials", "client_id": "alice", "client_secret": f"guess-{n}"}
            answers.append(httpx.post(server.url + "/oauth/token", data=form, timeout=10).status_code)
    finally:
        server.stop()
    assert answers == [401] * 6 + [429]


# ---------------------------------------------------------------- quotas and limits


def test_the_open_task_quota_is_per_caller_and_typed_on_both_http_bindings(classroom):
    alice, bob = _token(classroom, "alice"), _token(classroom, "bob")
    states = [_open_task(classroom, alice, n).json() for n in (1, 2)]
    assert all(s["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED" for s in states)

    refused = _open_task(classroom, alice, 3)
    assert refused.status_code == 200  # a JSON-RPC error travels in a 200
    error = refused.json()["error"]
    assert error["code"] == -32603
    info = error["data"][0]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert info["reason"] == "RESOURCE_EXHAUSTED"
    assert info["metadata"]["limit"] == "openTasksPerCaller" and info["metadata"]["max"] == "2"
    assert int(info["metadata"]["retryAfterSeconds"]) > 0

    rest = _open_task(classroom, alice, 4, binding="rest")
    assert rest.status_code == 429 and rest.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert int(rest.headers["retry-after"]) > 0

    theirs = _open_task(classroom, bob, 5).json()
    assert theirs["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"


def test_the_stated_defaults_are_the_ones_the_notebooks_print():
    limits, connections = DEFAULT_SERVICE_LIMITS, ConnectionLimits()
    assert (limits.max_open_tasks_per_caller, limits.max_streams_per_caller, limits.max_streams_per_task) == (
        200,
        32,
        8,
    )
    assert (connections.max_per_peer, connections.limit_concurrency) == (256, 1000)
    assert ServerConfig().max_body_bytes == 1_000_000


def test_an_agui_body_over_the_limit_is_a_typed_413(classroom):
    bearer = _token(classroom, "alice")
    answer = httpx.post(
        classroom.url + "/ag-ui/agent",
        content=b"{" + b" " * 1_000_000 + b"}",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {bearer}"},
        timeout=10,
    )
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "body_too_large"


def test_another_subjects_agui_thread_is_404_like_an_unknown_one(classroom):
    alice, bob = _token(classroom, "alice"), _token(classroom, "bob")
    run = {
        "threadId": "alice-lab",
        "runId": "alice-lab-r1",
        "messages": [{"id": "m-1", "role": "user", "content": "hi"}],
    }
    ran = httpx.post(
        classroom.url + "/ag-ui/agent",
        json=run,
        headers={"Accept": "text/event-stream", "Authorization": f"Bearer {alice}"},
        timeout=10,
    )
    assert ran.status_code == 200

    def snapshot(bearer: str, thread: str) -> httpx.Response:
        return httpx.get(
            f"{classroom.url}/ag-ui/threads/{thread}", headers={"Authorization": f"Bearer {bearer}"}
        )

    assert snapshot(alice, "alice-lab").status_code == 200
    theirs, unknown = snapshot(bob, "alice-lab"), snapshot(bob, "no-such-thread")
    assert theirs.status_code == unknown.status_code == 404
    assert theirs.json()["error"]["code"] == unknown.json()["error"]["code"] == "thread_not_found"
    assert theirs.text.replace("alice-lab", "X") == unknown.text.replace("no-such-thread", "X")


# ---------------------------------------------------------------- restarts


def _rpc(server: RunningServer, method: str, params: dict) -> dict:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(server.url + "/a2a", json=body, headers={"A2A-Version": "1.0"}, timeout=10).json()


def _stream_until_working(server: RunningServer) -> tuple[threading.Thread, list, list]:
    events: list = []
    ended: list = []
    rpc = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "SendStreamingMessage",
        "params": {
            "message": {"messageId": "tck-cancel-lab", "role": "ROLE_USER", "parts": [{"text": "long"}]}
        },
    }

    def consume() -> None:
        try:
            with httpx.stream(
                "POST",
                server.url + "/a2a",
                json=rpc,
                headers={"A2A-Version": "1.0", "Accept": "text/event-stream"},
                timeout=10,
            ) as response:
                for line in response.iter_lines():
                    if line.startswith("data:"):
                        events.append(json.loads(line[5:])["result"])
            ended.append("clean")
        except httpx.HTTPError as exc:
            ended.append(type(exc).__name__)

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    while len(events) < 2 and thread.is_alive():
        thread.join(0.01)
    return thread, events, ended


def test_a_restart_keeps_tasks_push_configs_and_idempotency_keys_and_fails_the_running_job(tmp_path):
    db = str(tmp_path / "class.db")

    def start(tag: str):
        app = create_app(
            ServerConfig(port=0, db=db, a2a_agent="conformance"), clock=FakeClock(), ids=IdFactory(tag)
        )
        return app, RunningServer(app, graceful_shutdown_s=1.0).start()

    app, server = start("before")
    message = {"messageId": "tck-input-required-lab", "role": "ROLE_USER", "parts": [{"text": "step 1"}]}
    waiting = _rpc(server, "SendMessage", {"message": message})["result"]["task"]
    hook = _rpc(
        server,
        "CreateTaskPushNotificationConfig",
        {"taskId": waiting["id"], "url": "http://127.0.0.1:9/class-hook", "token": "hook-secret"},
    )["result"]
    first, replayed = app.state.store.idempotent("tool:refund_order:lab-1", lambda: {"refundId": "R-1"})
    assert not replayed

    thread, events, ended = _stream_until_working(server)
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"
    long_job = events[0]["task"]["id"]
    uvicorn_log = logging.getLogger("uvicorn.error")
    saved = uvicorn_log.propagate
    uvicorn_log.propagate = False  # uvicorn reports the cancelled stream; not this test's business
    try:
        server.stop()
    finally:
        uvicorn_log.propagate = saved
    thread.join(10)
    assert ended and ended[0] != "clean"  # the stream was cut, without a final event
    assert not any("TASK_STATE_FAILED" in json.dumps(e) for e in events)

    app, server = start("after")
    try:
        kept = _rpc(server, "GetTask", {"id": waiting["id"]})["result"]
        assert kept["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        configs = _rpc(server, "ListTaskPushNotificationConfigs", {"taskId": waiting["id"]})["result"][
            "configs"
        ]
        assert [(c["id"], c["url"]) for c in configs] == [(hook["id"], hook["url"])]
        failed = _rpc(server, "GetTask", {"id": long_job})["result"]
        assert failed["status"]["state"] == "TASK_STATE_FAILED"
        assert "restarted" in failed["status"]["message"]["parts"][0]["text"]
        again, replayed = app.state.store.idempotent("tool:refund_order:lab-1", lambda: {"refundId": "R-2"})
        assert replayed and again == first
    finally:
        server.stop()


def test_an_in_memory_server_keeps_nothing_across_a_restart():
    def start():
        app = create_app(ServerConfig(port=0, a2a_agent="conformance"), clock=FakeClock(), ids=IdFactory("m"))
        return RunningServer(app).start()

    server = start()
    message = {"messageId": "tck-input-required-mem", "role": "ROLE_USER", "parts": [{"text": "x"}]}
    task = _rpc(server, "SendMessage", {"message": message})["result"]["task"]
    server.stop()
    server = start()
    try:
        assert _rpc(server, "GetTask", {"id": task["id"]})["error"]["code"] == -32001
    finally:
        server.stop()
