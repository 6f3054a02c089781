"""agentproto.client_auth: the one ``auth=`` every client takes (a token, or client credentials)."""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qsl

import httpx
import pytest

from agentproto.client_auth import BearerToken, ClientCredentials, TokenRequestError, as_auth
from agentproto.clock import FakeClock

TOKEN_URL = "http://agent.test/oauth/token"


class Agent:
    """A token endpoint and one protected route, as a mock transport; records what it saw."""

    def __init__(self, *, expires_in: int | None = 3600, refuse: bool = False) -> None:
        self.expires_in = expires_in
        self.refuse = refuse
        self.token_requests: list[httpx.Request] = []
        self.calls: list[str] = []
        self.valid: set[str] = set()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/oauth/token":
            self.token_requests.append(request)
            if self.refuse:
                return httpx.Response(401, json={"error": "invalid_client", "error_description": "no"})
            token = f"t{len(self.token_requests)}"
            self.valid = {token}
            body = {"access_token": token, "token_type": "Bearer"}
            if self.expires_in is not None:
                body["expires_in"] = self.expires_in
            return httpx.Response(200, json=body)
        auth = request.headers.get("authorization", "")
        self.calls.append(auth)
        if auth.removeprefix("Bearer ") not in self.valid:
            return httpx.Response(401, headers={"www-authenticate": 'Bearer error="invalid_token"'})
        return httpx.Response(200, json={"ok": True})


def credentials(agent: Agent, clock: FakeClock, **kwargs) -> ClientCredentials:
    transport = httpx.MockTransport(agent)
    return ClientCredentials(TOKEN_URL, "alice", "s3cret:x", clock=clock, transport=transport, **kwargs)


def test_the_token_request_is_form_encoded_with_the_client_in_basic_auth():
    agent, clock = Agent(), FakeClock()
    auth = credentials(agent, clock, scope="agent:use")
    with httpx.Client(transport=httpx.MockTransport(agent), auth=auth) as http:
        assert http.get("http://agent.test/a2a").status_code == 200
    (request,) = agent.token_requests
    assert request.method == "POST"
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert dict(parse_qsl(request.content.decode())) == {
        "grant_type": "client_credentials",
        "scope": "agent:use",
    }
    scheme, _, value = request.headers["authorization"].partition(" ")
    assert scheme == "Basic" and base64.b64decode(value).decode() == "alice:s3cret%3Ax"  # §2.3.1
    assert agent.calls == ["Bearer t1"]


def test_client_secret_post_puts_the_client_in_the_form_instead():
    agent, clock = Agent(), FakeClock()
    auth = credentials(agent, clock, method="client_secret_post")
    assert auth.token() == "t1"
    (request,) = agent.token_requests
    form = dict(parse_qsl(request.content.decode()))
    assert form["client_id"] == "alice" and form["client_secret"] == "s3cret:x"
    assert "authorization" not in request.headers


def test_one_token_serves_every_request_until_it_is_due_for_renewal():
    agent, clock = Agent(expires_in=3600), FakeClock()
    auth = credentials(agent, clock, refresh_before=30)
    with httpx.Client(transport=httpx.MockTransport(agent), auth=auth) as http:
        http.get("http://agent.test/a")
        clock.advance(3_569_000)  # 1 s before the renewal point
        http.get("http://agent.test/b")
        assert len(agent.token_requests) == 1
        clock.advance(1_000)  # expires_in - refresh_before: renewed before the server refuses it
        http.get("http://agent.test/c")
    assert len(agent.token_requests) == 2 and agent.calls == ["Bearer t1", "Bearer t1", "Bearer t2"]
    assert auth.tokens_fetched == 2


def test_a_short_lived_token_is_renewed_at_half_its_lifetime():
    agent, clock = Agent(expires_in=20), FakeClock()
    auth = credentials(agent, clock, refresh_before=30)
    auth.token()
    clock.advance(9_999)
    assert auth.token() == "t1"
    clock.advance(1)
    assert auth.token() == "t2"


def test_a_401_gets_one_fresh_token_and_one_retry_no_more():
    agent, clock = Agent(), FakeClock()
    auth = credentials(agent, clock)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/oauth/token":
            return agent(request)
        agent.calls.append(request.headers["authorization"])
        return httpx.Response(401)  # this server refuses every token

    with httpx.Client(transport=httpx.MockTransport(handler), auth=auth) as http:
        assert http.get("http://agent.test/a").status_code == 401  # reported, no loop
    assert agent.calls == ["Bearer t1", "Bearer t2"] and len(agent.token_requests) == 2


def test_the_retry_after_a_401_succeeds_with_the_new_token():
    agent, clock = Agent(), FakeClock()
    auth = credentials(agent, clock)
    auth.token()
    agent.valid = {"t2"}  # t1 revoked; the next token the endpoint issues is t2

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/oauth/token":
            agent.token_requests.append(request)
            return httpx.Response(200, json={"access_token": "t2", "token_type": "Bearer"})
        return agent(request)

    with httpx.Client(transport=httpx.MockTransport(handler), auth=auth) as http:
        assert http.get("http://agent.test/a").status_code == 200
    assert agent.calls == ["Bearer t1", "Bearer t2"]


@pytest.mark.anyio
async def test_the_async_clients_get_the_same_behaviour():
    agent, clock = Agent(), FakeClock()
    auth = credentials(agent, clock)
    async with httpx.AsyncClient(transport=httpx.MockTransport(agent), auth=auth) as http:
        assert (await http.get("http://agent.test/a")).status_code == 200
        assert (await http.get("http://agent.test/b")).status_code == 200
        assert await auth.aheader() == "Bearer t1"
    assert len(agent.token_requests) == 1


def test_a_refused_token_request_names_the_oauth_error():
    auth = credentials(Agent(refuse=True), FakeClock())
    with pytest.raises(TokenRequestError) as caught:
        auth.token()
    assert caught.value.error == "invalid_client" and caught.value.http_status == 401
    assert "invalid_client" in str(caught.value)


def test_an_answer_without_a_bearer_token_is_an_error():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=json.dumps({"token_type": "Bearer"}))

    auth = ClientCredentials(TOKEN_URL, "alice", "s", transport=httpx.MockTransport(handler))
    with pytest.raises(TokenRequestError, match="without a bearer access_token"):
        auth.token()


def test_an_unreachable_token_endpoint_is_a_token_request_error():
    auth = ClientCredentials("http://127.0.0.1:9/oauth/token", "alice", "s", timeout=2)
    with pytest.raises(TokenRequestError, match="cannot reach the token endpoint"):
        auth.token()


def test_a_string_is_a_bearer_token_sent_as_is_and_never_retried():
    auth = as_auth("abc")
    assert isinstance(auth, BearerToken) and not auth.renewable
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return httpx.Response(401)

    with httpx.Client(transport=httpx.MockTransport(handler), auth=auth) as http:
        assert http.get("http://agent.test/").status_code == 401
    assert seen == ["Bearer abc"]
    assert "abc" not in repr(auth)
    with pytest.raises(ValueError):
        BearerToken("two words")
    with pytest.raises(TypeError):
        as_auth(42)  # type: ignore[arg-type]


def test_the_secret_is_never_in_the_repr():
    auth = ClientCredentials(TOKEN_URL, "alice", "very-secret")
    assert "very-secret" not in repr(auth) and "alice" in repr(auth)


def test_serve_and_the_clients_read_one_secret_variable():
    from agentproto import cli, client_auth
    from agentproto.demo import auth

    assert cli.CLIENT_SECRET_ENV == client_auth.SECRET_ENV_PREFIX
    assert auth.secret_env_name is client_auth.secret_env_name
