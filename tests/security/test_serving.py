"""BearerAuth in front of the real A2A server; a signed card that declares its security scheme."""

from __future__ import annotations

import httpx
import pytest

from agentproto.a2a import SyncA2AClient, TravelDeskAgent, create_a2a_app
from agentproto.a2a.client import A2AHTTPError
from agentproto.clock import FakeClock, IdFactory
from agentproto.security import (
    AuthorizationServer,
    KeySet,
    MissingScope,
    mutual_check,
    teaching_key,
    verify_card,
)
from agentproto.security.cards import signature_header
from agentproto.security.serving import (
    BearerAuth,
    SignedCardAgent,
    bearer_scheme,
    client_credentials_scheme,
    requirement,
)
from agentproto.server import RunningServer

AUDIENCE = "travel-desk"
CARD_KEY = teaching_key("travel card")


@pytest.fixture(scope="module")
def world():
    clock = FakeClock()
    auth = AuthorizationServer(
        "https://auth.example", teaching_key("auth", "EdDSA"), kid="auth-1", clock=clock, ids=IdFactory("tok")
    )
    auth.register_client(
        "orchestrator", "orchestrator-secret", scopes={"travel:plan", "travel:read"}, resources={AUDIENCE}
    )
    agent = SignedCardAgent(
        TravelDeskAgent(),
        CARD_KEY,
        kid="travel-card-1",
        security_schemes={
            "oauth": client_credentials_scheme("https://auth.example/token", {"travel:plan": "plan trips"}),
            "bearer": bearer_scheme(),
        },
        security_requirements=[requirement(oauth=["travel:plan"])],
    )
    app = BearerAuth(
        create_a2a_app(agent=agent, clock=clock, ids=IdFactory("task")),
        audience=AUDIENCE,
        keys=auth.key_set(),
        clock=clock,
        required_scopes={"travel:plan"},
        realm="travel-desk",
    )
    with RunningServer(app) as server:
        yield {"clock": clock, "auth": auth, "app": app, "url": server.url}


def token(world, scope="travel:plan"):
    return world["auth"].token(
        {
            "grant_type": "client_credentials",
            "client_id": "orchestrator",
            "client_secret": "orchestrator-secret",
            "resource": AUDIENCE,
            "scope": scope,
        }
    )["access_token"]


def rpc(world, headers):
    body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "nope"}}
    return httpx.post(f"{world['url']}/a2a", json=body, headers={"A2A-Version": "1.0", **headers})


def test_the_agent_card_is_public_signed_and_declares_how_to_authenticate(world):
    card = httpx.get(f"{world['url']}/.well-known/agent-card.json").json()
    assert set(card["securitySchemes"]) == {"oauth", "bearer"}
    assert (
        card["securitySchemes"]["oauth"]["oauth2SecurityScheme"]["flows"]["clientCredentials"]["tokenUrl"]
        == "https://auth.example/token"
    )
    assert card["securityRequirements"] == [{"schemes": {"oauth": {"list": ["travel:plan"]}}}]
    keys = KeySet()
    keys.add("travel-card-1", CARD_KEY.public_key())
    assert verify_card(card, keys)


def test_the_signed_card_is_stable_across_requests(world):
    # ECDSA signatures differ on every signing; the card is signed once and cached (ETag works).
    first = httpx.get(f"{world['url']}/.well-known/agent-card.json")
    second = httpx.get(f"{world['url']}/.well-known/agent-card.json")
    assert first.json() == second.json() and first.headers["etag"] == second.headers["etag"]


def test_a_call_without_a_token_is_challenged(world):
    response = rpc(world, {})
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Bearer realm="travel-desk"'
    assert response.json()["error"]["status"] == "UNAUTHENTICATED"


def test_a_call_with_a_valid_token_reaches_the_agent(world):
    response = rpc(world, {"Authorization": f"Bearer {token(world)}"})
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32001  # the agent's own answer: no such task


def test_a_token_without_the_needed_scope_is_forbidden(world):
    response = rpc(world, {"Authorization": f"Bearer {token(world, 'travel:read')}"})
    assert response.status_code == 403
    assert 'error="insufficient_scope"' in response.headers["www-authenticate"]
    assert 'scope="travel:plan"' in response.headers["www-authenticate"]


def test_an_expired_token_is_refused_with_invalid_token(world):
    old = token(world)
    world["clock"].advance(3_600_000)  # the auth server's default lifetime; later tests mint anew
    response = rpc(world, {"Authorization": f"Bearer {old}"})
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]
    assert response.json()["error"]["details"][0]["metadata"]["rule"] == "token.expired"


def test_the_package_client_works_through_the_middleware_streams_included(world):
    http = httpx.Client(headers={"Authorization": f"Bearer {token(world)}"}, timeout=10)
    client = SyncA2AClient.discover(world["url"], http=http, ids=IdFactory("msg"))
    try:
        task = client.send("Plan my trip to Sanya")
        assert task.status.state.value == "TASK_STATE_INPUT_REQUIRED"
        updates = list(client.stream("Plan my trip to Tokyo from 2026-04-08 to 2026-04-12"))
        assert updates[0].kind == "task"
        assert updates[-1].status_update.status.state.value == "TASK_STATE_COMPLETED"
    finally:
        http.close()
    anonymous = SyncA2AClient.discover(world["url"], ids=IdFactory("anon"))
    with pytest.raises(A2AHTTPError) as info:
        anonymous.send("Plan my trip to Sanya")
    assert info.value.status_code == 401
    anonymous.close()


def test_the_middleware_logs_each_decision(world):
    before = len(world["app"].log)
    rpc(world, {})
    rpc(world, {"Authorization": f"Bearer {token(world)}"})
    assert [entry[2] for entry in list(world["app"].log)[before:]] == ["token.missing", "ok"]


def test_mutual_check_refuses_a_forged_orchestrator_and_a_forged_card(world):
    card = httpx.get(f"{world['url']}/.well-known/agent-card.json").json()
    card_keys = {"travel-card-1": CARD_KEY.public_key()}
    common = dict(
        audience=AUDIENCE,
        token_keys=world["auth"].key_set(),
        clock=world["clock"],
        required_scopes={"travel:plan"},
        card_keys=card_keys,
    )
    good = mutual_check(
        callee_card=card, caller_headers={"Authorization": f"Bearer {token(world)}"}, **common
    )
    assert good.ok, good.table()

    # A forged orchestrator mints its own token under the auth server's kid.
    from agentproto.security import issue_token

    forged_token = issue_token(
        "orchestrator",
        AUDIENCE,
        ["travel:plan"],
        3600,
        teaching_key("mallory", "EdDSA"),
        clock=world["clock"],
        kid="auth-1",
    )
    bad_caller = mutual_check(
        callee_card=card, caller_headers={"Authorization": f"Bearer {forged_token}"}, **common
    )
    assert bad_caller.caller_checks_callee.ok and not bad_caller.callee_checks_caller.ok
    assert "TokenForged" in bad_caller.table() and "call refused" in bad_caller.table()

    # A forged callee serves the card with its own endpoint.
    evil = {
        **card,
        "supportedInterfaces": [{**card["supportedInterfaces"][0], "url": "https://evil.example/a2a"}],
    }
    bad_callee = mutual_check(
        callee_card=evil, caller_headers={"Authorization": f"Bearer {token(world)}"}, **common
    )
    assert not bad_callee.caller_checks_callee.ok and bad_callee.callee_checks_caller.ok
    assert "CardTampered" in bad_callee.table()


def test_missing_scope_is_forbidden_in_mutual_check_too(world):
    card = httpx.get(f"{world['url']}/.well-known/agent-card.json").json()
    result = mutual_check(
        callee_card=card,
        card_keys={"travel-card-1": CARD_KEY.public_key()},
        caller_headers={"Authorization": f"Bearer {token(world, 'travel:read')}"},
        audience=AUDIENCE,
        token_keys=world["auth"].key_set(),
        clock=world["clock"],
        required_scopes={"travel:plan"},
    )
    assert isinstance(result.callee_checks_caller.error, MissingScope)
    assert "HTTP 403" in result.callee_checks_caller.detail


# --- interop: the official SDK client on both sides of the trust question ---------------------------


def _sdk_request(text: str, message_id: str):
    from a2a.types import a2a_pb2 as pb

    return pb.SendMessageRequest(
        message=pb.Message(message_id=message_id, role=pb.ROLE_USER, parts=[pb.Part(text=text)])
    )


@pytest.mark.interop
@pytest.mark.anyio
async def test_the_sdk_client_verifies_our_signed_card_and_sends_the_token_it_declares(world):
    sdk_client = pytest.importorskip("a2a.client")
    from a2a.client.auth.credentials import InMemoryContextCredentialStore
    from a2a.client.auth.interceptor import AuthInterceptor
    from a2a.client.client import ClientCallContext
    from a2a.types import a2a_pb2 as pb
    from a2a.utils.signing import create_signature_verifier

    credentials = InMemoryContextCredentialStore()
    await credentials.set_credentials("session-1", "oauth", token(world))
    verifier = create_signature_verifier(lambda kid, jku: CARD_KEY.public_key(), ["ES256"])
    client = await sdk_client.create_client(
        world["url"],
        client_config=sdk_client.ClientConfig(streaming=False),
        interceptors=[AuthInterceptor(credentials)],
        signature_verifier=verifier,
    )
    try:
        # The interceptor reads our card's securityRequirements → scheme "oauth" → Bearer.
        events = [
            e
            async for e in client.send_message(
                _sdk_request("Plan my trip to Sanya", "m-sdk-1"),
                context=ClientCallContext(state={"sessionId": "session-1"}),
            )
        ]
        assert events[0].task.status.state == pb.TASK_STATE_INPUT_REQUIRED
        with pytest.raises(sdk_client.A2AClientError, match="401"):
            [e async for e in client.send_message(_sdk_request("no session", "m-sdk-2"))]
    finally:
        await client.close()


@pytest.mark.interop
@pytest.mark.anyio
async def test_the_sdk_client_refuses_our_card_when_it_trusts_another_key(world):
    sdk_client = pytest.importorskip("a2a.client")
    from a2a.utils.signing import SignatureVerificationError, create_signature_verifier

    stranger = teaching_key("someone else").public_key()
    verifier = create_signature_verifier(lambda kid, jku: stranger, ["ES256"])
    with pytest.raises(SignatureVerificationError):
        await sdk_client.create_client(world["url"], signature_verifier=verifier)


def test_a_signed_card_lists_every_interface_served_and_still_verifies():
    """The service adds HTTP+JSON and gRPC after JSON-RPC; a signed card is re-signed by its
    signer with all three (§8.4.1 signs the whole card), never served with one interface."""
    pytest.importorskip("grpc", reason="needs grpcio")
    agent = SignedCardAgent(TravelDeskAgent(), CARD_KEY, kid="travel-card-1")
    app = create_a2a_app(agent=agent, clock=FakeClock(), ids=IdFactory("sc"), grpc=True)
    running = RunningServer(app).start()
    try:
        first = httpx.get(running.url + "/.well-known/agent-card.json")
        again = httpx.get(running.url + "/.well-known/agent-card.json")
    finally:
        running.stop()
    card = first.json()
    assert [i["protocolBinding"] for i in card["supportedInterfaces"]] == ["JSONRPC", "HTTP+JSON", "GRPC"]
    assert (
        signature_header(verify_card(card, {"travel-card-1": CARD_KEY.public_key()}))["kid"]
        == "travel-card-1"
    )
    assert first.headers["etag"] == again.headers["etag"]  # one card, one signature
