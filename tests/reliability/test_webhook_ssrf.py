"""The 2026-12-01 attack on push webhooks, replayed against a real server in ``--auth`` mode
(loopback webhooks refused): legacy IPv4 forms of loopback and metadata are refused when the
config is created, a host name that resolves to loopback is refused when the notification is
sent, and a receiver on 127.0.0.1 gets nothing either way."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from agentproto.a2a.push import WebhookRecorder
from agentproto.clock import IdFactory
from agentproto.demo.auth import TOKEN_PATH
from agentproto.server import RunningServer, running_server
from agentproto.system import SystemClock
from tests.servers import AUTH_CLIENTS, secured

A2A = {"A2A-Version": "1.0"}
DISGUISED = [
    "0",
    "2130706433",
    "0x7f000001",
    "127.1",
    "0177.0.0.1",
    "localhost.",
    "127.0.0.1.",
    "%31%32%37.0.0.1",
    "2852039166",
    "0xa9fea9fe",
    "169.254.43518",
    "0251.0376.0251.0376",
    "167772161",
    "3232235777",
    "metadata.google.internal",
]


@pytest.fixture
def auth_server(monkeypatch):
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):  # "vm" as /etc/hosts had it in the attack
        if host in ("vm", b"vm"):
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", int(port or 0)))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    app = secured(
        clock=SystemClock(), ids=IdFactory("w"), a2a_agent="conformance", allow_loopback_webhooks=False
    )
    running = RunningServer(app).start()
    try:
        yield running.url, app.state.a2a_service
    finally:
        running.stop()


def _rpc(url: str, tok: str, method: str, params: dict) -> dict:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    r = httpx.post(url + "/a2a", json=body, headers={**A2A, "Authorization": f"Bearer {tok}"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def test_no_disguised_loopback_webhook_reaches_a_receiver_in_auth_mode(auth_server):
    url, service = auth_server
    form = {"grant_type": "client_credentials", "client_id": "alice", "client_secret": AUTH_CLIENTS["alice"]}
    tok = httpx.post(url + TOKEN_PATH, data=form).json()["access_token"]
    hook = WebhookRecorder()
    with running_server(hook.app()) as hook_url:
        port = hook_url.rsplit(":", 1)[1]
        msg = {"messageId": "tck-input-required", "role": "ROLE_USER", "parts": [{"text": "x"}]}
        tid = _rpc(url, tok, "SendMessage", {"message": msg})["result"]["task"]["id"]
        for host in DISGUISED:
            out = _rpc(
                url,
                tok,
                "CreateTaskPushNotificationConfig",
                {"taskId": tid, "url": f"http://{host}:{port}/h"},
            )
            assert out["error"]["code"] == -32602, (host, out)
        created = _rpc(
            url, tok, "CreateTaskPushNotificationConfig", {"taskId": tid, "url": f"http://vm:{port}/h"}
        )
        assert created["result"]["url"] == f"http://vm:{port}/h"  # a name: judged when sent
        answer = {"messageId": "m-2", "role": "ROLE_USER", "parts": [{"text": "go"}], "taskId": tid}
        _rpc(url, tok, "SendMessage", {"message": answer})
        deadline = time.monotonic() + 10
        while not service.push.deliveries and time.monotonic() < deadline:
            time.sleep(0.05)
    assert hook.attempts == 0
    assert service.push.deliveries and all("refused" in d.error for d in service.push.deliveries)
