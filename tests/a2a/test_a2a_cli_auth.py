"""``agentproto a2a send`` against an agent in auth mode: ``--token`` and ``--client-id``."""

from __future__ import annotations

import importlib.util
import json

import httpx
import pytest

from agentproto.a2a._client_core import card_token_url
from agentproto.a2a.types import AgentCard
from agentproto.cli import main
from agentproto.clock import FakeClock, IdFactory
from agentproto.server import RunningServer
from tests.servers import AUTH_CLIENTS, secured


@pytest.fixture(scope="module")
def url():
    grpc = importlib.util.find_spec("grpc") is not None  # the gRPC binding where grpcio is installed
    app = secured(clock=FakeClock(), ids=IdFactory("id"), a2a_agent="echo", a2a_grpc=grpc)
    running = RunningServer(app).start()
    try:
        yield running.url
    finally:
        running.stop()


def send(url: str, *options: str) -> list[str]:
    return ["a2a", "send", "--url", url, *options, "hello"]


def test_without_credentials_the_agent_refuses_with_401(url, capsys):
    assert main(send(url)) == 2
    assert "HTTP 401" in capsys.readouterr().err


@pytest.mark.parametrize("binding", ["jsonrpc", "rest", "grpc"])
def test_client_id_gets_a_token_with_the_secret_from_the_environment(url, binding, monkeypatch, capsys):
    if binding == "grpc":
        pytest.importorskip("grpc")
    monkeypatch.setenv("AGENTPROTO_CLIENT_SECRET_ALICE", AUTH_CLIENTS["alice"])
    code = main(send(url, "--binding", binding, "--client-id", "alice", "--token-url", url + "/oauth/token"))
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out)["status"]["state"] == "TASK_STATE_COMPLETED"


def test_token_sends_a_bearer_token_you_already_have(url, capsys):
    form = {"grant_type": "client_credentials", "client_id": "bob", "client_secret": AUTH_CLIENTS["bob"]}
    token = httpx.post(url + "/oauth/token", data=form, timeout=10).json()["access_token"]
    assert main(send(url, "--token", token, "--stream")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[-1])["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_a_missing_secret_variable_is_named(url, monkeypatch, capsys):
    monkeypatch.delenv("AGENTPROTO_CLIENT_SECRET_CAROL", raising=False)
    assert main(send(url, "--client-id", "carol")) == 2
    assert "AGENTPROTO_CLIENT_SECRET_CAROL" in capsys.readouterr().err


def test_a_wrong_secret_is_a_refused_token_request(url, monkeypatch, capsys):
    monkeypatch.setenv("AGENTPROTO_CLIENT_SECRET_ALICE", "not-the-secret-at-all")
    assert main(send(url, "--client-id", "alice", "--token-url", url + "/oauth/token")) == 2
    err = capsys.readouterr().err
    assert "token request" in err and "invalid_client" in err


def test_token_and_client_id_exclude_each_other(url, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(send(url, "--token", "t", "--client-id", "alice"))
    assert exit_.value.code == 2


def test_the_token_url_defaults_to_the_cards_client_credentials_flow(url):
    card = AgentCard.model_validate(httpx.get(url + "/.well-known/agent-card.json").json())
    assert card_token_url(card) == "http://127.0.0.1/test-issuer/oauth/token"  # the issuer's
    assert card_token_url(card.model_copy(update={"security_schemes": {}})) is None
