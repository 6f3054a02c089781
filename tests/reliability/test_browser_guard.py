"""The default mode is safe from the browser: a web page cannot reach the loopback server.

Browsers send "simple" cross-site POSTs (``text/plain``) without a preflight, and a
DNS-rebinding page reaches 127.0.0.1 under its own host name. The server refuses both, and
answers CORS only for configured origins.
"""

from __future__ import annotations

import httpx
import pytest

from agentproto.a2a.server import create_a2a_app
from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import create_app
from agentproto.server import running_server

CANCEL = b'{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":"t-1"}}'


@pytest.fixture(scope="module")
def url():
    app = create_app(
        clock=FakeClock(),
        ids=IdFactory("id"),
        a2a_agent="echo",
        allowed_origins=("http://notebook.example.test",),
    )
    with running_server(app) as base:
        yield base


def test_a_text_plain_post_to_ag_ui_is_refused_with_415(url):
    r = httpx.post(url + "/ag-ui/agent", content=CANCEL, headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and r.json()["error"]["code"] == "unsupported_media_type"


@pytest.mark.parametrize("path", ["/a2a", "/a2a/"])
def test_a_text_plain_post_to_json_rpc_gets_415_and_content_type_not_supported(url, path):
    r = httpx.post(url + path, content=CANCEL, headers={"Content-Type": "text/plain"})
    body = r.json()
    assert r.status_code == 415 and body["jsonrpc"] == "2.0" and body["id"] is None
    assert body["error"]["code"] == -32005  # ContentTypeNotSupportedError, A2A §5.4


def test_a_cross_site_request_from_an_unconfigured_origin_is_refused(url):
    r = httpx.post(
        url + "/a2a",
        content=CANCEL,
        headers={"Content-Type": "application/json", "Origin": "https://evil.example"},
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "origin_not_allowed"
    assert "access-control-allow-origin" not in r.headers


def test_a_configured_origin_gets_cors_and_a_preflight_answer(url):
    origin = "http://notebook.example.test"
    pre = httpx.options(url + "/a2a", headers={"Origin": origin, "Access-Control-Request-Method": "POST"})
    assert pre.status_code == 204 and pre.headers["access-control-allow-origin"] == origin
    r = httpx.get(url + "/", headers={"Origin": origin})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == origin


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000", "10.0.0.7"])
def test_a_host_header_off_the_allow_list_is_refused(url, host):
    r = httpx.get(url + "/.well-known/agent-card.json", headers={"Host": host})
    assert r.status_code == 421 and r.json()["error"]["code"] == "host_not_allowed"


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]:9"])
def test_loopback_host_names_are_served(url, host):
    assert httpx.get(url + "/", headers={"Host": host}).status_code == 200


def test_create_a2a_app_refuses_loopback_webhooks_by_default():
    assert create_a2a_app(agent="echo").state.a2a.service.allow_loopback_webhooks is False
    assert (
        create_a2a_app(agent="echo", allow_loopback_webhooks=True).state.a2a.service.allow_loopback_webhooks
        is True
    )


def test_the_demo_keeps_loopback_webhooks_for_the_course():
    assert create_app(a2a_agent="echo").state.a2a_service.allow_loopback_webhooks is True
