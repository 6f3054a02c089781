"""``auth=`` on the A2A clients against an agent in auth mode, on all three bindings."""

from __future__ import annotations

import pytest

from agentproto.a2a.client import A2AHTTPError, SyncA2AClient
from agentproto.a2a.client_bindings import connect
from agentproto.client_auth import ClientCredentials
from agentproto.clock import FakeClock, IdFactory
from agentproto.server import RunningServer
from tests.servers import AUTH_CLIENTS, secured

pytestmark = pytest.mark.anyio
BINDINGS = ["jsonrpc", "rest", "grpc"]


@pytest.fixture(scope="module")
def url():
    pytest.importorskip("grpc")
    app = secured(clock=FakeClock(), ids=IdFactory("id"), a2a_agent="echo", a2a_grpc=True)
    running = RunningServer(app).start()
    try:
        yield running.url
    finally:
        running.stop()


def alice(url: str) -> ClientCredentials:
    return ClientCredentials(url + "/oauth/token", "alice", AUTH_CLIENTS["alice"], clock=FakeClock())


@pytest.mark.parametrize("binding", BINDINGS)
async def test_client_credentials_authenticate_the_async_client_of_every_binding(url, binding):
    auth = alice(url)
    async with await connect(url, binding=binding, auth=auth) as client:
        assert (await client.send("hello")).status.state.value == "TASK_STATE_COMPLETED"
        async for _event in client.stream("hello again"):
            pass
    assert auth.tokens_fetched == 1


@pytest.mark.parametrize("binding", BINDINGS)
def test_a_refused_token_is_replaced_once_on_every_binding(url, binding):
    auth = alice(url)
    auth._token = "not-a-token-any-agent-accepts"  # as if revoked since it was issued
    with SyncA2AClient.connect(url, binding=binding, auth=auth) as client:
        assert client.send("hello").status.state.value == "TASK_STATE_COMPLETED"
        assert [e.kind for e in client.stream("hello again")][-1] == "statusUpdate"
    assert auth.tokens_fetched == 1


def test_a_bearer_string_is_sent_as_is_and_a_bad_one_is_refused(url):
    with SyncA2AClient.connect(url, binding="jsonrpc", auth=alice(url).token()) as client:
        assert client.send("hello").status.state.value == "TASK_STATE_COMPLETED"
    with SyncA2AClient.connect(url, binding="rest", auth="nonsense") as client:
        with pytest.raises(A2AHTTPError) as refused:
            client.send("hello")
    assert refused.value.status_code == 401


def test_the_sync_client_takes_the_same_kinds_of_http_client_as_before(url):
    import httpx

    token = alice(url).token()
    with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=10) as http:
        with SyncA2AClient.discover(url, http=http, ids=IdFactory("m")) as client:
            assert client.send("hello").status.state.value == "TASK_STATE_COMPLETED"
    with pytest.raises(TypeError, match="httpx.AsyncClient"):
        SyncA2AClient(url + "/a2a", http=httpx.Client(transport=httpx.MockTransport(lambda r: None)))
