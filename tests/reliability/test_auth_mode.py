"""Auth mode (``agentproto serve --auth --client NAME:SECRET``): tokens from the app's own
authorization server, a bearer token on every endpoint, and two clients kept apart."""

from __future__ import annotations

import base64

import httpx
import pytest

from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.auth import JWKS_PATH, TOKEN_PATH, parse_client
from agentproto.server import RunningServer
from tests.servers import SSE_HEADERS, decode, run_body, secured

A2A = {"A2A-Version": "1.0"}


@pytest.fixture(scope="module")
def url():
    running = RunningServer(secured(clock=FakeClock(), ids=IdFactory("id"), a2a_agent="echo")).start()
    try:
        yield running.url
    finally:
        running.stop()


def token(url: str, name: str, secret: str, basic: bool = False) -> str:
    form = {"grant_type": "client_credentials"}
    headers = {}
    if basic:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{name}:{secret}".encode()).decode()
    else:
        form |= {"client_id": name, "client_secret": secret}
    r = httpx.post(url + TOKEN_PATH, data=form, headers=headers)
    assert r.status_code == 200, r.text
    assert r.json()["token_type"] == "Bearer" and r.headers["cache-control"] == "no-store"
    return r.json()["access_token"]


def rpc(url: str, tok: str | None, method: str, params: dict) -> httpx.Response:
    headers = {**A2A, **({"Authorization": f"Bearer {tok}"} if tok else {})}
    return httpx.post(
        url + "/a2a",
        headers=headers,
        timeout=10,
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
    )


def send(url: str, tok: str, text: str = "hi") -> dict:
    r = rpc(
        url,
        tok,
        "SendMessage",
        {"message": {"messageId": f"m-{text}", "role": "ROLE_USER", "parts": [{"text": text}]}},
    )
    return r.json()["result"]


def test_the_client_option_is_name_colon_secret():
    assert parse_client("alice:a:b") == ("alice", "a:b")
    with pytest.raises(ValueError):
        parse_client("alice")


def test_tokens_come_from_client_credentials_post_or_basic(url):
    assert token(url, "alice", "s3cret-a") and token(url, "bob", "s3cret-b", basic=True)
    wrong = httpx.post(
        url + TOKEN_PATH,
        data={"grant_type": "client_credentials", "client_id": "alice", "client_secret": "nope"},
    )
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    assert httpx.get(url + JWKS_PATH).json()["keys"]


def test_the_public_card_is_public_and_declares_how_to_authenticate(url):
    card = httpx.get(url + "/.well-known/agent-card.json").json()
    assert "oauth" in card["securitySchemes"] and card["securityRequirements"]


@pytest.mark.parametrize("auth", [None, "Bearer not-a-jwt"])
def test_without_a_valid_token_every_endpoint_is_a_401_with_a_challenge(url, auth):
    headers = {"Authorization": auth} if auth else {}
    for method, path in [
        ("POST", "/a2a"),
        ("POST", "/ag-ui/agent"),
        ("GET", "/ag-ui/threads/t-1"),
        ("POST", "/ag-ui/runs/r-1/cancel"),
    ]:
        r = httpx.request(
            method, url + path, headers={**headers, **A2A, "Content-Type": "application/json"}, content=b"{}"
        )
        assert r.status_code == 401, (path, r.text)
        assert r.headers["www-authenticate"].startswith("Bearer realm=")


def test_the_extended_card_needs_a_token(url):
    assert rpc(url, None, "GetExtendedAgentCard", {}).status_code == 401


def test_another_client_gets_task_not_found_never_the_task(url):
    alice, bob = token(url, "alice", "s3cret-a"), token(url, "bob", "s3cret-b")
    result = send(url, alice, "alice-private")
    task = result.get("task")
    if task is None:
        pytest.skip("the echo agent answered with a message, not a task")
    assert rpc(url, alice, "GetTask", {"id": task["id"]}).json()["result"]["id"] == task["id"]
    stolen = rpc(url, bob, "GetTask", {"id": task["id"]}).json()
    assert stolen["error"]["code"] == -32001
    assert rpc(url, bob, "CancelTask", {"id": task["id"]}).json()["error"]["code"] == -32001
    listed = rpc(url, bob, "ListTasks", {}).json()["result"]
    assert task["id"] not in [t["id"] for t in listed.get("tasks", [])]


def test_another_client_cannot_read_or_continue_a_thread(url):
    alice, bob = token(url, "alice", "s3cret-a"), token(url, "bob", "s3cret-b")
    r = httpx.post(
        url + "/ag-ui/agent",
        json=run_body("alice-t", "alice-r1"),
        timeout=10,
        headers={**SSE_HEADERS, "Authorization": f"Bearer {alice}"},
    )
    assert r.status_code == 200 and decode(r.content)
    mine = httpx.get(url + "/ag-ui/threads/alice-t", headers={"Authorization": f"Bearer {alice}"})
    assert mine.status_code == 200
    theirs = httpx.get(url + "/ag-ui/threads/alice-t", headers={"Authorization": f"Bearer {bob}"})
    assert theirs.status_code == 404 and "alice" not in theirs.text.replace("alice-t", "")
    hijack = httpx.post(
        url + "/ag-ui/agent",
        json=run_body("alice-t", "bob-r1"),
        timeout=10,
        headers={**SSE_HEADERS, "Authorization": f"Bearer {bob}"},
    )
    assert hijack.status_code == 200  # bob gets a thread of his own under that id (ids per caller)
    again = httpx.get(url + "/ag-ui/threads/alice-t", headers={"Authorization": f"Bearer {alice}"})
    assert again.json() == mine.json()  # and alice's thread is as it was


def test_serve_refuses_auth_mode_without_a_client(capsys):
    import argparse

    from agentproto.demo.serve import configure, run

    parser = argparse.ArgumentParser()
    configure(parser)
    assert run(parser.parse_args(["--auth", "--db", ":memory:"])) == 2
    assert "--client" in capsys.readouterr().err
    assert run(parser.parse_args(["--auth", "--client", "nosecret", "--db", ":memory:"])) == 2
    args = parser.parse_args(
        [
            "--auth",
            "--client",
            "a:b",
            "--client",
            "c:d",
            "--allow-loopback-webhooks",
            "--allowed-origin",
            "http://x.test",
        ]
    )
    assert args.client == ["a:b", "c:d"] and args.allow_loopback_webhooks


def test_the_token_and_jwks_endpoints_sit_behind_the_same_guard_as_the_app(url):
    form = {"grant_type": "client_credentials", "client_id": "alice", "client_secret": "s3cret-a"}
    assert httpx.post(url + TOKEN_PATH, data=form, headers={"Host": "evil.example"}).status_code == 421
    assert httpx.get(url + JWKS_PATH, headers={"Host": "evil.example"}).status_code == 421
    refused = httpx.post(url + TOKEN_PATH, data=form, headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403 and "access_token" not in refused.text
    huge = httpx.post(url + TOKEN_PATH, data={**form, "pad": "x" * 1_500_000})
    assert huge.status_code == 413
    assert httpx.post(url + TOKEN_PATH, data=form).status_code == 200  # and the plain request still works
