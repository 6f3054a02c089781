"""One server configuration, one factory (issue 20): the input limits of a configuration hold
on every binding, and auth mode is built inside the app — the card declares it from the start,
nothing is replaced at run time and no setting travels through ``app.state``."""

from __future__ import annotations

import asyncio
import dataclasses

import httpx
import pytest

from agentproto.clock import FakeClock, IdFactory
from agentproto.demo.app import create_app
from agentproto.limits import Limits
from agentproto.server import AGENT_CARD_PATH, TOKEN_PATH, Bindings, RunningServer, ServerConfig

V = {"A2A-Version": "1.0"}
SECRETS = {"alice": "alice-secret-0123456789"}
TIGHT = Limits(max_string_chars=12)  # "SendMessage" still fits


def _message(text: str) -> dict:
    return {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}


def _call(app, method: str, path: str, **kwargs) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8123") as http:
            return await http.request(method, path, **kwargs)

    return asyncio.run(go())


@pytest.fixture(scope="module")
def tight():
    """The demo app of a configuration whose strings may have at most 12 characters."""
    pytest.importorskip("grpc", reason="needs grpcio")
    config = ServerConfig(port=0, a2a_agent="echo", limits=TIGHT, bindings=Bindings(grpc=True))
    server = RunningServer(create_app(config, clock=FakeClock(), ids=IdFactory("cfg"))).start()
    try:
        card = httpx.get(server.url + AGENT_CARD_PATH, timeout=10).json()
        target = next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC")
        yield server.url, target
    finally:
        server.stop()


def test_the_configured_input_limits_hold_on_json_rpc(tight):
    url, _ = tight
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": _message("x" * 13)}}
    answer = httpx.post(url + "/a2a", json=body, headers=V, timeout=10).json()
    assert answer["error"]["code"] == -32602 and "at most 12" in answer["error"]["message"]
    body["params"]["message"] = _message("short")
    assert "result" in httpx.post(url + "/a2a", json=body, headers=V, timeout=10).json()


def test_the_configured_input_limits_hold_on_rest(tight):
    url, _ = tight
    answer = httpx.post(url + "/a2a/rest/message:send", json={"message": _message("x" * 13)}, headers=V)
    assert answer.status_code == 400 and "at most 12" in answer.json()["error"]["message"]
    ok = httpx.post(url + "/a2a/rest/message:send", json={"message": _message("short")}, headers=V)
    assert ok.status_code == 200, ok.text


def test_the_configured_input_limits_hold_on_grpc(tight):
    grpc = pytest.importorskip("grpc")
    from a2a.types import a2a_pb2 as pb
    from a2a.types import a2a_pb2_grpc

    _, target = tight

    async def send(text: str) -> object:
        async with grpc.aio.insecure_channel(target) as channel:
            stub = a2a_pb2_grpc.A2AServiceStub(channel)
            request = pb.SendMessageRequest(
                message=pb.Message(message_id="m-1", role=pb.ROLE_USER, parts=[pb.Part(text=text)])
            )
            return await stub.SendMessage(request, metadata=(("a2a-version", "1.0"),))

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        asyncio.run(send("x" * 13))
    assert (
        refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "at most 12" in refused.value.details()
    )
    assert asyncio.run(send("short")) is not None


def test_auth_mode_is_built_into_the_app_and_its_card_declares_it_from_the_start():
    config = ServerConfig(port=0, a2a_agent="travel").with_auth(SECRETS, issuer="https://auth.example")
    app = create_app(config, clock=FakeClock(), ids=IdFactory("cfg"))
    service = app.state.a2a_service
    assert "card" not in vars(service)  # the service's own method: nothing replaced it
    assert not hasattr(app.state, "guard_config") and not hasattr(app.state, "a2a_grpc_authenticate")
    for card in (service.card("http://127.0.0.1:8123"), asyncio.run(service.extended_card())):
        flow = card.to_wire()["securitySchemes"]["oauth"]["oauth2SecurityScheme"]["flows"]
        assert flow["clientCredentials"]["tokenUrl"] == "https://auth.example" + TOKEN_PATH
    served = _call(app, "GET", AGENT_CARD_PATH).json()
    assert served["securityRequirements"] and "oauth" in served["securitySchemes"]
    assert _call(app, "POST", "/a2a", json={}).status_code == 401  # the bearer check is inside


def test_without_auth_the_card_declares_nothing_and_every_endpoint_is_open():
    app = create_app(ServerConfig(port=0, a2a_agent="echo"), clock=FakeClock(), ids=IdFactory("cfg"))
    assert "securitySchemes" not in _call(app, "GET", AGENT_CARD_PATH).json()
    assert _call(app, "POST", TOKEN_PATH).status_code == 404


def test_a_config_and_options_are_not_mixed():
    with pytest.raises(TypeError):
        create_app(ServerConfig(), a2a_agent="echo")


def test_json_rpc_cannot_be_switched_off_while_the_card_names_it_first():
    config = dataclasses.replace(ServerConfig(a2a_agent="echo"), bindings=Bindings(jsonrpc=False))
    with pytest.raises(ValueError, match="JSON-RPC"):
        create_app(config)


def test_the_rest_binding_can_be_left_out_and_the_card_then_omits_it():
    config = ServerConfig(port=0, a2a_agent="echo", bindings=Bindings(rest=False))
    app = create_app(config, clock=FakeClock(), ids=IdFactory("cfg"))
    bindings = [
        i["protocolBinding"] for i in _call(app, "GET", AGENT_CARD_PATH).json()["supportedInterfaces"]
    ]
    assert bindings == ["JSONRPC"]
    assert _call(app, "POST", "/a2a/rest/message:send", json={}, headers=V).status_code == 404


def test_the_agui_binding_can_be_left_out():
    config = ServerConfig(port=0, a2a_agent="echo", bindings=Bindings(agui=False))
    app = create_app(config, clock=FakeClock(), ids=IdFactory("cfg"))
    assert _call(app, "POST", "/ag-ui/agent", json={}).status_code == 404
    assert _call(app, "GET", "/").json()["agui"] is None


def test_the_configured_input_limits_hold_on_ag_ui():
    config = ServerConfig(port=0, a2a_agent=None, limits=TIGHT)
    app = create_app(config, clock=FakeClock(), ids=IdFactory("cfg"))
    message = {"id": "u-1", "role": "user", "content": "x" * 13}
    body = {"threadId": "t-1", "runId": "r-1", "messages": [message]}
    answer = _call(app, "POST", "/ag-ui/agent", json=body, headers={"Accept": "text/event-stream"})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "input_limit", answer.text
