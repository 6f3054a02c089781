"""A real server on loopback, driven over HTTP and by our client (spec §8, §9)."""

from __future__ import annotations

import json

import httpx
import pytest

from agentproto.a2a._taskstore import TaskStore
from agentproto.a2a.agents import make_agent
from agentproto.a2a.client import (
    A2AClient,
    A2AClientError,
    A2AConnectionError,
    A2AHTTPError,
    A2ATimeoutError,
    NoProgressError,
    SyncA2AClient,
)
from agentproto.a2a.errors import (
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
    VersionNotSupportedError,
)
from agentproto.a2a.server import A2AApplication, create_a2a_app
from agentproto.a2a.service import A2AService
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import AgentCard, Message
from agentproto.server import Bindings, ServerConfig, WebhookPolicy
from agentproto.sse import EventStreamDecoder
from tests.a2a.a2a_helpers import V1, msg, rpc

S = TaskState


@pytest.fixture(scope="module")
def conformance(live_servers) -> str:
    return live_servers("conformance")


# --- the Agent Card (spec §8.2, §8.6) ---------------------------------------------------------


def test_the_card_is_at_the_well_known_path_and_points_at_the_address_served(conformance):
    r = httpx.get(conformance + "/.well-known/agent-card.json")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    card = AgentCard.from_wire(r.json())
    assert card.supported_interfaces[0].url == conformance + "/a2a"
    assert card.supported_interfaces[0].protocol_binding == "JSONRPC"
    assert card.supported_interfaces[0].protocol_version == "1.0"


def test_a_host_name_not_on_the_allow_list_is_refused_and_never_echoed_into_the_card(conformance):
    r = httpx.get(
        conformance + "/.well-known/agent-card.json", headers={"Host": "agents.example.test:8443"}
    )  # a DNS-rebinding page's Host
    assert r.status_code == 421 and r.json()["error"]["code"] == "host_not_allowed"
    r = httpx.get(
        conformance + "/.well-known/agent-card.json", headers={"Host": "localhost:1"}
    )  # allowed name, but the URL is not built from it
    assert r.json()["supportedInterfaces"][0]["url"] == conformance + "/a2a"


def test_the_interface_url_comes_from_the_configured_public_url():
    from agentproto.a2a.server import create_a2a_app
    from agentproto.server import running_server

    app = create_a2a_app(
        agent="echo", public_url="https://agents.example.test:8443", allowed_hosts=("agents.example.test",)
    )
    with running_server(app) as url:
        r = httpx.get(url + "/.well-known/agent-card.json", headers={"Host": "agents.example.test:8443"})
    assert r.json()["supportedInterfaces"][0]["url"] == "https://agents.example.test:8443/a2a"


def test_the_card_can_be_cached_and_revalidated_with_its_etag(conformance):
    url = conformance + "/.well-known/agent-card.json"
    first = httpx.get(url)
    etag = first.headers["etag"]
    assert "max-age=" in first.headers["cache-control"]
    assert etag.startswith('"') and etag.endswith('"')
    for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        again = httpx.get(url, headers={"If-None-Match": header})
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == etag
    assert httpx.get(url, headers={"If-None-Match": '"stale"'}).status_code == 200


def test_v03_card_path_is_not_served(conformance):
    assert httpx.get(conformance + "/.well-known/agent.json").status_code == 404


# --- JSON-RPC over HTTP (spec §9) -------------------------------------------------------------


def test_jsonrpc_errors_travel_with_http_200(conformance):
    r = httpx.post(conformance + "/a2a", json=rpc("GetTask", {"id": "nope"}), headers=V1)
    assert r.status_code == 200 and r.json()["error"]["code"] == -32001


def test_a_missing_version_header_is_refused_over_http(conformance):
    r = httpx.post(conformance + "/a2a", json=rpc("GetTask", {"id": "nope"}))
    assert r.json()["error"]["code"] == -32009


def test_streaming_answers_with_sse_whose_data_lines_are_jsonrpc_responses(conformance):
    body = rpc("SendStreamingMessage", {"message": msg(message_id="tck-stream-basic-http")}, id=9)
    with httpx.stream("POST", conformance + "/a2a", json=body, headers=V1) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        decoder = EventStreamDecoder()
        frames = [json.loads(d) for chunk in r.iter_bytes() for d in decoder.feed(chunk)]
    assert all(f["id"] == 9 and f["jsonrpc"] == "2.0" for f in frames)
    assert [next(iter(f["result"])) for f in frames] == [
        "task",
        "statusUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]


def test_subscribing_to_a_terminal_task_answers_plain_json_not_sse(conformance):
    done = httpx.post(
        conformance + "/a2a",
        headers=V1,
        json=rpc("SendMessage", {"message": msg(message_id="tck-complete-task-http")}),
    ).json()
    r = httpx.post(
        conformance + "/a2a", headers=V1, json=rpc("SubscribeToTask", {"id": done["result"]["task"]["id"]})
    )
    assert r.headers["content-type"] == "application/json"
    assert r.json()["error"]["code"] == -32004


def test_the_a2a_routes_are_the_card_json_rpc_with_and_without_slash_and_rest():
    service = A2AService(make_agent("echo"), store=TaskStore(":memory:"))
    paths = sorted(route.path for route in A2AApplication(service).routes())
    assert paths == ["/.well-known/agent-card.json", "/a2a", "/a2a/", "/a2a/rest/{rest:path}"]
    no_rest = A2AApplication.for_server(service, ServerConfig(bindings=Bindings(rest=False)))
    card_and_rpc = ["/.well-known/agent-card.json", "/a2a", "/a2a/"]
    assert sorted(route.path for route in no_rest.routes()) == card_and_rpc


def test_create_a2a_app_takes_a_server_config_or_its_options_not_both():
    config = ServerConfig(allowed_hosts=("agents.example",), webhooks=WebhookPolicy(loopback=True))
    app = create_a2a_app(config, agent="echo")
    assert app.state.a2a.service.allow_loopback_webhooks is True
    assert create_a2a_app(agent="echo").state.a2a.service.allow_loopback_webhooks is False  # §13.2
    with pytest.raises(TypeError, match="not both"):
        create_a2a_app(config, public_url="http://x.example")


# --- our client, async ------------------------------------------------------------------------


@pytest.mark.anyio
async def test_client_discovers_the_agent_and_sends_blocking(travel):
    async with await A2AClient.discover(travel) as client:
        assert client.card.name == "Travel Desk" and client.url == travel + "/a2a"
        task = await client.send("Plan my trip to Sanya")
        assert task.status.state is S.INPUT_REQUIRED
        done = await client.send("2026-04-08 to 2026-04-12", task_id=task.id, context_id=task.context_id)
        assert done.status.state is S.COMPLETED and len(done.artifacts) == 2


@pytest.mark.anyio
async def test_client_gets_a_direct_message_back(travel):
    async with await A2AClient.discover(travel) as client:
        reply = await client.send("hello")
        assert isinstance(reply, Message) and "Travel Desk" in reply.text


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["blocking", "polling", "streaming"])
async def test_the_three_ways_of_waiting_reach_the_same_result(conformance, mode):
    async with await A2AClient.discover(conformance) as client:
        task = await client.send_and_wait(
            Message.from_wire(msg(message_id=f"tck-artifact-data-{mode}")), mode=mode, poll_interval=0.01
        )
        assert task.status.state is S.COMPLETED
        assert task.artifacts[0].parts[0].data == {"key": "value", "count": 42}


@pytest.mark.anyio
async def test_client_streams_subscribes_and_cancels(conformance):
    async with await A2AClient.discover(conformance) as client:
        stream = client.stream(Message.from_wire(msg(message_id="tck-cancel-stream")))
        first = await anext(stream)
        task_id = first.task.id
        working = await anext(stream)
        assert working.status_update.status.state is S.WORKING
        other = client.subscribe(task_id)
        assert (await anext(other)).task.id == task_id
        canceled = await client.cancel_task(task_id)
        assert canceled.status.state is S.CANCELED
        assert [e.status_update.status.state async for e in stream] == [S.CANCELED]
        assert [e.status_update.status.state async for e in other] == [S.CANCELED]
        with pytest.raises(TaskNotCancelableError) as info:
            await client.cancel_task(task_id)
        assert info.value.code == -32002


@pytest.mark.anyio
async def test_client_raises_the_servers_errors_as_typed_exceptions(conformance):
    async with await A2AClient.discover(conformance) as client:
        with pytest.raises(TaskNotFoundError) as info:
            await client.get_task("ghost")
        assert info.value.code == -32001 and info.value.metadata == {"taskId": "ghost"}
        done = await client.send(Message.from_wire(msg(message_id="tck-complete-task-c")))
        with pytest.raises(UnsupportedOperationError):
            async for _ in client.subscribe(done.id):
                pass
    async with A2AClient(conformance + "/a2a", version="0.3") as old:
        with pytest.raises(VersionNotSupportedError):
            await old.get_task("x")


@pytest.mark.anyio
async def test_client_lists_tasks_page_by_page(conformance):
    async with await A2AClient.discover(conformance) as client:
        for i in range(3):
            await client.send(
                Message.from_wire(msg(message_id=f"tck-complete-task-l{i}", contextId="ctx-list"))
            )
        page = await client.list_tasks(context_id="ctx-list", page_size=2)
        rest = await client.list_tasks(context_id="ctx-list", page_size=2, page_token=page.next_page_token)
        assert page.total_size == 3 and len(page.tasks) == 2 and len(rest.tasks) == 1
        assert rest.next_page_token == ""


@pytest.mark.anyio
async def test_a_silent_stream_trips_the_no_progress_timeout(conformance):
    async with await A2AClient.discover(conformance) as client:
        events = []
        with pytest.raises(NoProgressError):
            async for event in client.stream(
                Message.from_wire(msg(message_id="tck-cancel-np")), no_progress_timeout=0.3
            ):
                events.append(event)
        assert [e.kind for e in events] == ["task", "statusUpdate"]
        await client.cancel_task(events[0].task.id)


@pytest.mark.anyio
async def test_a_task_frozen_in_working_trips_the_polling_no_progress_timeout(conformance):
    async with await A2AClient.discover(conformance) as client:
        task = await client.send(
            Message.from_wire(msg(message_id="tck-cancel-poll")), return_immediately=True
        )
        before = client.requests_made
        with pytest.raises(NoProgressError, match="no progress"):
            await client.wait(task.id, poll_interval=0.05, no_progress_timeout=0.2)
        assert client.requests_made - before >= 3  # polling costs requests
        with pytest.raises(A2ATimeoutError):
            await client.wait(task.id, poll_interval=0.05, timeout=0.15)
        await client.cancel_task(task.id)


@pytest.mark.anyio
async def test_an_unreachable_agent_is_a_connection_error():
    with pytest.raises(A2AConnectionError):
        await A2AClient.discover("http://127.0.0.1:9")


@pytest.mark.anyio
async def test_a_missing_card_is_an_http_error(conformance):
    with pytest.raises(A2AHTTPError) as info:
        await A2AClient.discover(conformance + "/nowhere")
    assert info.value.status_code == 404


def test_a_card_without_a_jsonrpc_10_interface_cannot_be_used():
    card = AgentCard.from_wire(
        {
            "name": "grpc-only",
            "description": "d",
            "version": "1",
            "supportedInterfaces": [
                {"url": "https://a", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
            ],
            "capabilities": {},
            "defaultInputModes": [],
            "defaultOutputModes": [],
            "skills": [],
        }
    )
    from agentproto.a2a._client_core import _Protocol

    with pytest.raises(A2AClientError, match="GRPC 1.0"):
        _Protocol.choose_interface(card, "1.0")


# --- our client, sync -------------------------------------------------------------------------


def test_sync_client_does_the_same(travel):
    with SyncA2AClient.discover(travel) as client:
        task = client.send("Trip to Chengdu")
        assert task.status.state is S.INPUT_REQUIRED
        events = list(client.stream("2026-07-01 to 2026-07-05", task_id=task.id))
        assert events[0].task.id == task.id
        assert events[-1].status_update.status.state is S.COMPLETED
        assert client.get_task(task.id, history_length=0).history == []
        assert client.wait(task.id).status.state is S.COMPLETED
        assert client.list_tasks(status=S.COMPLETED).total_size >= 1
        with pytest.raises(TaskNotFoundError):
            client.cancel_task("ghost")


def test_sync_client_no_progress_timeout(conformance):
    with SyncA2AClient.discover(conformance) as client:
        seen = []
        with pytest.raises(NoProgressError):
            for event in client.stream(
                Message.from_wire(msg(message_id="tck-cancel-sync")), no_progress_timeout=0.3
            ):
                seen.append(event)
        client.cancel_task(seen[0].task.id)
