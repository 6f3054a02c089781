"""Hostile input never becomes a 5xx or a poison record (both endpoints of ``agentproto serve``).

Each attack the outside probes found is replayed against a real server; the answer must be the
documented 4xx (AG-UI) or JSON-RPC -32600/-32602 (A2A), and the server must keep serving.
"""

from __future__ import annotations

import json
import logging
import socket

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route

from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.types import Task
from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import create_app
from agentproto.server import GuardConfig, HTTPGuard, running_server
from tests.servers import SSE_HEADERS, run_body, user

A2A = {"A2A-Version": "1.0"}


def nested(depth: int, leaf: object = "x") -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def deep(body: object, depth: int) -> bytes:
    """``body`` as JSON with its ``"DEEP"`` string replaced by a list nested ``depth`` deep
    (built as text: the encoder itself could not go that deep)."""
    return json.dumps(body).replace('"DEEP"', "[" * depth + '"x"' + "]" * depth).encode()


def raw(body: str) -> bytes:
    """JSON text as bytes, keeping ``\\ud800`` escapes (a lone surrogate once parsed)."""
    return body.encode()


@pytest.fixture(scope="module")
def app():
    return create_app(clock=FakeClock(), ids=IdFactory("id"), a2a_agent="echo")


@pytest.fixture(scope="module")
def url(app):
    with running_server(app) as base:
        yield base


def post_agui(url: str, body: bytes) -> httpx.Response:
    return httpx.post(
        url + "/ag-ui/agent",
        content=body,
        timeout=10,
        headers={**SSE_HEADERS, "Content-Type": "application/json"},
    )


def rpc(url: str, body: bytes) -> dict:
    r = httpx.post(
        url + "/a2a", content=body, timeout=10, headers={**A2A, "Content-Type": "application/json"}
    )
    assert r.status_code == 200, r.text
    return r.json()


def send_message(parts: list, **extra: object) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": parts}, **extra},
    }


AGUI_ATTACKS = {
    "state nested 2000 deep (RecursionError)": deep(run_body("t-deep", "r-1", state={"a": "DEEP"}), 2000),
    "state nested 500 deep (serializer failure)": deep(run_body("t-deep2", "r-1", state={"a": "DEEP"}), 500),
    "lone surrogate in content": raw(
        '{"threadId":"t-s1","runId":"r-1","messages":[{"id":"u","role":"user","content":"\\ud800"}]}'
    ),
    "lone surrogate in threadId": raw('{"threadId":"t-\\ud800","runId":"r-1","messages":[]}'),
    "lone surrogate in state": raw('{"threadId":"t-s3","runId":"r-1","messages":[],"state":{"k":"\\udfff"}}'),
    "lone surrogate in a key": raw('{"threadId":"t-s4","runId":"r-1","messages":[],"state":{"\\ud800":1}}'),
    "a 5000-digit integer": raw(
        '{"threadId":"t-i","runId":"r-1","messages":[],"state":{"n":' + "9" * 5000 + "}}"
    ),
    "a 300 000-character string": json.dumps(
        run_body("t-long", "r-1", messages=[user("x" * 300_000)])
    ).encode(),
}


@pytest.mark.parametrize("body", AGUI_ATTACKS.values(), ids=AGUI_ATTACKS.keys())
def test_hostile_agui_input_is_a_422_with_a_json_error_naming_the_limit(url, body):
    r = post_agui(url, body)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "input_limit" and error["limit"] in ("depth", "surrogate", "integer", "string")
    assert httpx.get(url + "/").status_code == 200  # and the server is still serving


def test_nothing_hostile_reached_the_store(app, url):
    for thread in ("t-deep", "t-deep2", "t-s1", "t-s3", "t-s4", "t-i", "t-long"):
        assert httpx.get(f"{url}/ag-ui/threads/{thread}").status_code == 404


def test_a_body_that_is_not_json_is_still_a_400(url):
    r = post_agui(url, b"{not json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_json"


A2A_ATTACKS = {
    "data part nested 200 deep": (deep(send_message([{"data": "DEEP"}]), 200), -32602),
    # too deep or too long to even parse: found before params exist → -32600
    "data part nested 5000 deep": (deep(send_message([{"data": "DEEP"}]), 5000), -32600),
    "lone surrogate in a text part": (None, -32602),
    "5000-digit request id": (None, -32600),
    "5000-digit historyLength": (None, -32600),
    "65 parts in one message": (send_message([{"text": "x"}] * 65), -32602),
}


def a2a_body(name: str, body: dict | bytes | None) -> bytes:
    if isinstance(body, bytes):
        return body
    if body is not None:
        return json.dumps(body).encode()
    if name == "lone surrogate in a text part":
        return raw(
            '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":'
            '{"messageId":"m","role":"ROLE_USER","parts":[{"text":"\\ud800"}]}}}'
        )
    if name == "5000-digit request id":
        return raw('{"jsonrpc":"2.0","id":' + "1" * 5000 + ',"method":"GetTask","params":{"id":"x"}}')
    return raw(
        '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x","historyLength":' + "1" * 5000 + "}}"
    )


@pytest.mark.parametrize("name", A2A_ATTACKS.keys())
def test_hostile_a2a_input_is_an_invalid_request_or_params_error_never_internal(url, name):
    body, code = A2A_ATTACKS[name]
    answer = rpc(url, a2a_body(name, body))
    assert answer["error"]["code"] == code, answer
    assert "at most" in answer["error"]["message"] or "surrogate" in answer["error"]["message"]


def test_a_refused_message_is_never_stored_and_listing_still_works(url):
    rpc(url, json.dumps(send_message([{"data": nested(200)}])).encode())
    listing = rpc(url, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ListTasks", "params": {}}).encode())
    assert "result" in listing, listing


def test_the_a2a_endpoint_has_a_body_limit_too(url):
    r = httpx.post(
        url + "/a2a",
        content=b" " * 1_000_001,
        timeout=10,
        headers={**A2A, "Content-Type": "application/json"},
    )
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"


def test_a_poison_record_is_quarantined_reported_and_never_breaks_a_listing(caplog):
    store = TaskStore(":memory:")
    good = Task.model_validate({"id": "good", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}})
    store.save(good, status_ms=1)
    with store.store.transaction() as db:  # a record written before the limits existed
        poison = {
            "id": "poison",
            "contextId": "c",
            "status": {"state": "TASK_STATE_COMPLETED"},
            "metadata": {"a": nested(200)},
        }
        db.execute(
            "INSERT INTO a2a_tasks (id, context_id, state, status_ms, body) "
            "VALUES ('poison', 'c', 'TASK_STATE_COMPLETED', 2, ?)",
            (json.dumps(poison),),
        )
    with caplog.at_level(logging.WARNING):
        page = store.page()
        assert [t.id for t in page.tasks] == ["good"]
        assert store.load("poison") is None
    assert "poison" in store.quarantined
    assert sum("a2a_task_quarantined" in r.getMessage() for r in caplog.records) == 1


def test_after_an_internal_error_the_server_says_connection_close():
    async def boom(_request):
        raise RuntimeError("a bug")

    app = Starlette(routes=[Route("/boom", boom)], middleware=[Middleware(HTTPGuard, config=GuardConfig())])
    with running_server(app) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(b"GET /boom HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            data = b""
            while True:  # the server closes the socket after the answer: recv returns b""
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
    head = data.split(b"\r\n\r\n")[0].lower()
    assert head.startswith(b"http/1.1 500") and b"connection: close" in head


def test_every_refusal_is_one_structured_log_line(url, caplog):
    with caplog.at_level(logging.INFO, logger="agentproto"):
        post_agui(url, AGUI_ATTACKS["lone surrogate in state"])
    lines = [
        json.loads(r.getMessage())
        for r in caplog.records
        if r.name.startswith("agentproto") and r.getMessage().startswith("{")
    ]
    assert any(x["event"] == "agui_refused" and x["status"] == 422 for x in lines), lines


def test_wrong_methods_and_unknown_paths_get_json_errors_too():
    import httpx

    from agentproto.clock import FakeClock, IdFactory
    from agentproto.demo.app import create_app
    from agentproto.server import running_server

    with running_server(create_app(clock=FakeClock(), ids=IdFactory("x"), a2a_agent=None)) as url:
        wrong = httpx.get(url + "/ag-ui/agent")
        assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"
        assert wrong.json()["error"]["code"] == 405
        assert httpx.get(url + "/no-such-page").json()["error"]["code"] == 404
