"""The HTTP edge of auth mode, attacked from outside (findings F7, F12, F14, F16, F18):
token-endpoint backoff, guard before auth, strict Host, strict OAuth parsing, streams that end
with their token."""

from __future__ import annotations

import asyncio
import base64
import json
import logging

import httpx
import pytest

from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import config_from_options, create_app
from agentproto.demo.auth import TOKEN_PATH
from agentproto.security import teaching_key
from agentproto.security.oauth import AuthorizationServer
from agentproto.security.serving import EXPIRED_STREAM_COMMENT, BearerAuth
from agentproto.security.throttle import PAIR_LIMIT
from agentproto.server import RunningServer
from tests.servers import AUTH_CLIENTS, secured

A2A = {"A2A-Version": "1.0"}
ORIGIN = "http://app.example"
SECRETS = {"alice": "alice-secret-0123456789", "bob": "bob-secret-0123456789"}


def gate(**app_options):
    """The app of ``serve --auth`` with :data:`SECRETS`; runs and tokens on one fake clock."""
    config = config_from_options(a2a_agent="travel", **app_options)
    config = config.with_auth(SECRETS, issuer="http://127.0.0.1/test-issuer")
    return create_app(config, clock=FakeClock(), ids=IdFactory("id"))


def call(app, method: str, path: str, *, peer: str = "127.0.0.1", **kwargs) -> httpx.Response:
    """One request to ``app`` in process, from ``peer`` (the socket is 127.0.0.1:8123)."""

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(peer, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8123") as http:
            return await http.request(method, path, **kwargs)

    return asyncio.run(go())


def post_token(app, data=None, *, content=None, headers=None, peer="127.0.0.1") -> httpx.Response:
    headers = {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
    return call(app, "POST", TOKEN_PATH, peer=peer, data=data, content=content, headers=headers)


def creds(name: str = "alice", secret: str | None = None) -> dict[str, str]:
    return {"grant_type": "client_credentials", "client_id": name, "client_secret": secret or SECRETS[name]}


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


# --------------------------------------------------------------------------- F7


def test_guessing_a_secret_is_answered_429_with_retry_after_and_logged(caplog):
    app = gate()
    caplog.set_level(logging.INFO, logger="agentproto.http")
    statuses = [
        post_token(app, creds(secret="guess"), peer="10.0.0.9").status_code
        for _ in range(PAIR_LIMIT.free_failures + 3)
    ]
    assert statuses[: PAIR_LIMIT.free_failures + 1] == [401] * (PAIR_LIMIT.free_failures + 1)
    assert statuses[-1] == 429
    refused = post_token(app, creds(), peer="10.0.0.9")  # the right secret waits there too
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert refused.json()["error"] == "slow_down" and refused.headers["cache-control"] == "no-store"
    # the same client from another address, and another client from that address, still work
    assert post_token(app, creds(), peer="10.0.0.1").status_code == 200
    assert post_token(app, creds("bob"), peer="10.0.0.9").status_code == 200
    events = [json.loads(r.getMessage()) for r in caplog.records if "oauth_refused" in r.getMessage()]
    assert {e["status"] for e in events} == {401, 429}
    assert all(e["peer"] in ("10.0.0.9",) and e["client"] == "alice" for e in events)
    assert len(events) == len(statuses) + 1


# --------------------------------------------------------------------------- F16


def test_two_client_authentication_methods_in_one_request_are_refused():
    app = gate()
    both = post_token(
        app, {**creds(secret="WRONG"), "client_id": "alice"}, headers=basic("alice", SECRETS["alice"])
    )
    assert both.status_code == 400 and both.json()["error"] == "invalid_request"
    other_id = post_token(
        app,
        {"grant_type": "client_credentials", "client_id": "bob"},
        headers=basic("alice", SECRETS["alice"]),
    )
    assert other_id.status_code == 400 and other_id.json()["error"] == "invalid_request"
    same_id = post_token(
        app,
        {"grant_type": "client_credentials", "client_id": "alice"},
        headers=basic("alice", SECRETS["alice"]),
    )
    assert same_id.status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        "grant_type=client_credentials&grant_type=password&client_id=alice&client_secret=alice-secret-0123456789",
        "grant_type=client_credentials&client_id=alice&client_id=alice&client_secret=alice-secret-0123456789",
        "grant_type=client_credentials&client_id=alice&client_secret=alice-secret-0123456789&scope=a&scope=",
    ],
)
def test_a_repeated_parameter_is_refused(body):
    answer = post_token(gate(), content=body.encode())
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_request"


def test_basic_credentials_are_form_url_decoded():
    app = gate()
    encoded = SECRETS["alice"].replace("-", "%2D")
    answer = post_token(app, {"grant_type": "client_credentials"}, headers=basic("alice", encoded))
    assert answer.status_code == 200, answer.text
    plus = post_token(app, {"grant_type": "client_credentials"}, headers=basic("al%69ce", SECRETS["alice"]))
    assert plus.status_code == 200, plus.text


# --------------------------------------------------------------------------- F12


def test_a_cors_preflight_from_an_allowed_origin_gets_204_in_auth_mode():
    app = gate(allowed_origins=(ORIGIN,))
    preflight = {
        "Origin": ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, a2a-version",
    }
    for path in ("/a2a", "/ag-ui/agent", TOKEN_PATH):
        answer = call(app, "OPTIONS", path, headers=preflight)
        assert answer.status_code == 204, (path, answer.status_code, answer.text)
        assert answer.headers["access-control-allow-origin"] == ORIGIN
    # the real request without a token: 401, readable by that origin (one ACAO, not two)
    anonymous = call(app, "POST", "/a2a", headers={"Origin": ORIGIN, **A2A}, json={})
    assert anonymous.status_code == 401
    assert anonymous.headers.get_list("access-control-allow-origin") == [ORIGIN]
    assert anonymous.headers["www-authenticate"].startswith("Bearer")


def test_a_foreign_origin_is_refused_403_before_any_token_is_asked_for():
    app = gate(allowed_origins=(ORIGIN,))
    for method in ("POST", "OPTIONS"):
        answer = call(app, method, "/a2a", headers={"Origin": "https://evil.example", **A2A})
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "origin_not_allowed"
        assert "www-authenticate" not in answer.headers


# --------------------------------------------------------------------------- F14


def bearer(app) -> dict[str, str]:
    tok = post_token(app, creds()).json()["access_token"]
    return {"Authorization": f"Bearer {tok}", **A2A}


def test_the_rest_extended_card_never_takes_its_urls_from_host():
    app = gate()
    headers = bearer(app)
    rest = call(app, "GET", "/a2a/rest/extendedAgentCard", headers={**headers, "Host": "localhost:9999"})
    assert rest.status_code == 200, rest.text
    rpc = call(
        app,
        "POST",
        "/a2a",
        headers={**headers, "Host": "localhost:9999"},
        json={"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard", "params": {}},
    )
    assert "9999" not in rest.text and "localhost" not in rest.text
    urls = [i["url"] for i in rest.json()["supportedInterfaces"]]
    assert urls == [i["url"] for i in rpc.json()["result"]["supportedInterfaces"]]
    assert "http://127.0.0.1:8123/a2a" in urls


def test_the_rest_extended_card_uses_the_configured_public_url():
    app = gate(public_url="https://agents.example")
    rest = call(app, "GET", "/a2a/rest/extendedAgentCard", headers=bearer(app))
    assert rest.status_code == 200
    assert all(i["url"].startswith("https://agents.example/") for i in rest.json()["supportedInterfaces"])


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:1@attacker.example",
        "[::1].attacker.example",
        "[::1]@attacker.example:80",
        "localhost:80/attacker",
        "127.0.0.1:80#@attacker.example",
        "127.0.0.1:abc",
        "[not-ipv6]",
        "local host",
        "",
    ],
)
def test_a_malformed_host_is_400(host):
    answer = call(secured(a2a_agent="echo"), "GET", "/.well-known/agent-card.json", headers={"Host": host})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == "bad_host"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8123", "localhost:8123", "[::1]:8123", "LOCALHOST"])
def test_well_formed_loopback_hosts_still_pass(host):
    answer = call(secured(a2a_agent="echo"), "GET", "/.well-known/agent-card.json", headers={"Host": host})
    assert answer.status_code == 200


def test_a_well_formed_foreign_host_is_still_421():
    app = secured(a2a_agent="echo")
    assert call(app, "GET", "/", headers={"Host": "evil.example:8123"}).status_code == 421


# --------------------------------------------------------------------------- F18


def short_token(clock: FakeClock, ttl_s: int) -> tuple[AuthorizationServer, str]:
    auth = AuthorizationServer(
        "https://auth.example", teaching_key("auth", "EdDSA"), kid="a", clock=clock, ttl_s=ttl_s
    )
    auth.register_client("alice", SECRETS["alice"], scopes={"s"}, resources={"r"})
    form = {**creds(), "resource": "r"}
    return auth, auth.token(form)["access_token"]


async def endless_sse(scope, receive, send):
    """A stream that sends one event, then only waits (as a subscription to an idle task)."""
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]}
    )
    await send({"type": "http.response.body", "body": b'data: {"n": 1}\n\n', "more_body": True})
    await asyncio.Event().wait()


async def slow_answer(scope, receive, send):
    """A response that has not begun when the token expires."""
    await asyncio.Event().wait()


def test_a_stream_ends_when_its_token_expires():
    clock = FakeClock()
    auth, tok = short_token(clock, ttl_s=60)
    app = BearerAuth(endless_sse, audience="r", keys=auth.key_set(), clock=clock, expiry_check_s=0.05)
    with RunningServer(app) as server:
        headers = {"Authorization": f"Bearer {tok}"}
        with httpx.stream("GET", server.url + "/events", headers=headers, timeout=10) as stream:
            chunks = stream.iter_raw()
            assert next(chunks) == b'data: {"n": 1}\n\n'
            clock.advance(61_000)
            rest = b"".join(chunks)  # ends (today: a read timeout, the stream stays open)
        assert rest == EXPIRED_STREAM_COMMENT
        assert list(app.log)[-1][2] == "token.expired-during-response"
        again = httpx.get(server.url + "/events", headers=headers, timeout=10)
        assert again.status_code == 401 and 'error="invalid_token"' in again.headers["www-authenticate"]


def test_a_response_not_begun_when_the_token_expires_is_a_401():
    clock = FakeClock()
    auth, tok = short_token(clock, ttl_s=60)
    app = BearerAuth(slow_answer, audience="r", keys=auth.key_set(), clock=clock, expiry_check_s=0.05)

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8123") as http:
            pending = asyncio.ensure_future(http.get("/x", headers={"Authorization": f"Bearer {tok}"}))
            await asyncio.sleep(0.1)
            clock.advance(61_000)
            return await asyncio.wait_for(pending, 10)

    answer = asyncio.run(go())
    assert answer.status_code == 401 and "expired" in answer.text


def test_a_response_that_finishes_in_time_is_untouched():
    clock = FakeClock()
    auth, tok = short_token(clock, ttl_s=60)

    async def quick(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    app = BearerAuth(quick, audience="r", keys=auth.key_set(), clock=clock)
    with RunningServer(app) as server:
        answer = httpx.get(server.url + "/", headers={"Authorization": f"Bearer {tok}"}, timeout=10)
    assert (answer.status_code, answer.text) == (200, "ok")
    assert AUTH_CLIENTS  # the shared secured() helper keeps its clients


def test_the_grpc_side_gets_the_verified_claims_and_so_the_tokens_expiry():
    from agentproto.security.tokens import valid_until_ms

    app = gate()
    tok = post_token(app, creds()).json()["access_token"]
    claims = app.state.auth.grpc_authenticate()({"authorization": f"Bearer {tok}"})
    assert claims.subject == "alice" and claims.expires_at > 0
    assert valid_until_ms(claims, 30) == (claims.expires_at + 30) * 1000


# --------------------------------------------------------------------------- a body not form-encoded


@pytest.mark.parametrize(
    "headers",
    [{"Content-Type": "application/json"}, {"Content-Type": ""}],
    ids=["json", "no-content-type"],
)
def test_a_token_request_that_is_not_form_encoded_is_told_so(headers):
    answer = call(gate(), "POST", TOKEN_PATH, json=creds(), headers=headers)
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_request"
    description = answer.json()["error_description"]
    assert "application/x-www-form-urlencoded" in description and "grant_type" not in description


def test_a_form_with_a_charset_parameter_is_still_a_form():
    headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
    answer = call(gate(), "POST", TOKEN_PATH, data=creds(), headers=headers)
    assert answer.status_code == 200, answer.text
