"""Interop with the official a2a-sdk 1.3.0: its types, its client, its server.

These tests use the SDK as an outside oracle: if our JSON parses strictly into its protobuf
messages (unknown field names are errors there) and its client drives our server, the wire
format agrees with the reference implementation, not only with our reading of the spec.
"""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("a2a.types", reason="needs the official SDK: pip install -e .[interop]")

from a2a.client import ClientConfig, create_client
from a2a.types import a2a_pb2 as pb
from a2a.utils import errors as sdk_errors
from google.protobuf.json_format import MessageToDict

from agentproto.a2a import types as T
from agentproto.a2a._server_sdk import sdk_echo_app
from agentproto.a2a.agents import ConformanceAgent, TravelDeskAgent
from agentproto.a2a.client import A2AClient
from agentproto.a2a.errors import TaskNotFoundError
from agentproto.a2a.sdk_bridge import from_sdk, to_sdk
from agentproto.a2a.states import TaskState
from agentproto.server import running_server

pytestmark = [pytest.mark.interop]

_MSG = {
    "messageId": "m1",
    "contextId": "c1",
    "taskId": "t1",
    "role": "ROLE_USER",
    "parts": [
        {"text": "hi"},
        {"raw": "aGVsbG8=", "filename": "h.txt", "mediaType": "text/plain"},
        {"url": "https://x/doc.pdf", "mediaType": "application/pdf"},
        {"data": {"k": "v", "nested": [True, None, "s"]}},
    ],
    "metadata": {"trace": "abc"},
    "extensions": ["urn:x"],
    "referenceTaskIds": ["t0"],
}
_STATUS = {
    "state": "TASK_STATE_INPUT_REQUIRED",
    "timestamp": "2026-01-01T00:00:00.123Z",
    "message": {**_MSG, "role": "ROLE_AGENT"},
}
_ARTIFACT = {
    "artifactId": "a1",
    "name": "n",
    "description": "d",
    "parts": [{"text": "x"}],
    "metadata": {"m": "v"},
    "extensions": ["urn:y"],
}
_TASK = {
    "id": "t1",
    "contextId": "c1",
    "status": _STATUS,
    "artifacts": [_ARTIFACT],
    "history": [_MSG],
    "metadata": {"k": "v"},
}
_PUSH = {
    "tenant": "acme",
    "id": "cfg1",
    "taskId": "t1",
    "url": "https://client/hook",
    "token": "tok",
    "authentication": {"scheme": "Bearer", "credentials": "c"},
}
_CARD = {
    "name": "Travel Desk",
    "description": "d",
    "version": "1.0.0",
    "supportedInterfaces": [
        {"url": "https://a/a2a", "protocolBinding": "JSONRPC", "tenant": "acme", "protocolVersion": "1.0"}
    ],
    "provider": {"url": "https://p", "organization": "o"},
    "documentationUrl": "https://docs",
    "iconUrl": "https://icon",
    "capabilities": {
        "streaming": True,
        "pushNotifications": False,
        "extendedAgentCard": True,
        "extensions": [{"uri": "urn:e", "description": "d", "required": True, "params": {"p": "v"}}],
    },
    "securitySchemes": {
        "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}},
        "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}},
        "oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://o/.well-known"}},
        "mtls": {"mtlsSecurityScheme": {"description": "client certs"}},
        "oauth": {
            "oauth2SecurityScheme": {
                "flows": {
                    "authorizationCode": {
                        "authorizationUrl": "https://o/auth",
                        "tokenUrl": "https://o/token",
                        "scopes": {"read": "read things"},
                        "pkceRequired": True,
                    }
                },
                "oauth2MetadataUrl": "https://o/meta",
            }
        },
        "device": {
            "oauth2SecurityScheme": {
                "flows": {
                    "deviceCode": {
                        "deviceAuthorizationUrl": "https://o/device",
                        "tokenUrl": "https://o/token",
                        "scopes": {},
                    }
                }
            }
        },
        "cc": {
            "oauth2SecurityScheme": {
                "flows": {"clientCredentials": {"tokenUrl": "https://o/token", "scopes": {"a": "b"}}}
            }
        },
    },
    "securityRequirements": [{"schemes": {"oauth": {"list": ["read"]}}}],
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["application/json"],
    "skills": [
        {
            "id": "s",
            "name": "S",
            "description": "d",
            "tags": ["t"],
            "examples": ["e"],
            "inputModes": ["text/plain"],
            "outputModes": ["text/plain"],
            "securityRequirements": [{"schemes": {"bearer": {}}}],
        }
    ],
    "signatures": [{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c2ln", "header": {"kid": "k1"}}],
}

#: One wire example per object: our model, then the same name in the SDK.
EXAMPLES = [
    (T.Part, {"data": {"k": "v"}, "mediaType": "application/json", "filename": "f", "metadata": {"a": "b"}}),
    (T.Message, _MSG),
    (T.Artifact, _ARTIFACT),
    (T.TaskStatus, _STATUS),
    (T.Task, _TASK),
    (T.TaskStatusUpdateEvent, {"taskId": "t1", "contextId": "c1", "status": _STATUS, "metadata": {"x": "y"}}),
    (
        T.TaskArtifactUpdateEvent,
        {"taskId": "t1", "contextId": "c1", "artifact": _ARTIFACT, "append": True, "lastChunk": True},
    ),
    (T.StreamResponse, {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": _STATUS}}),
    (T.StreamResponse, {"task": _TASK}),
    (T.SendMessageResponse, {"message": _MSG}),
    (T.TaskPushNotificationConfig, _PUSH),
    (
        T.SendMessageRequest,
        {
            "tenant": "acme",
            "message": _MSG,
            "metadata": {"k": "v"},
            "configuration": {
                "acceptedOutputModes": ["text/plain"],
                "taskPushNotificationConfig": _PUSH,
                "historyLength": 0,
                "returnImmediately": True,
            },
        },
    ),
    (T.GetTaskRequest, {"tenant": "acme", "id": "t1", "historyLength": 3}),
    (
        T.ListTasksRequest,
        {
            "tenant": "acme",
            "contextId": "c1",
            "status": "TASK_STATE_WORKING",
            "pageSize": 10,
            "pageToken": "p",
            "historyLength": 0,
            "statusTimestampAfter": "2026-01-01T00:00:00Z",
            "includeArtifacts": False,
        },
    ),
    (T.ListTasksResponse, {"tasks": [_TASK], "nextPageToken": "n", "pageSize": 10, "totalSize": 11}),
    (T.CancelTaskRequest, {"tenant": "acme", "id": "t1", "metadata": {"why": "x"}}),
    (T.SubscribeToTaskRequest, {"tenant": "acme", "id": "t1"}),
    (T.GetTaskPushNotificationConfigRequest, {"tenant": "a", "taskId": "t1", "id": "c"}),
    (T.DeleteTaskPushNotificationConfigRequest, {"tenant": "a", "taskId": "t1", "id": "c"}),
    (
        T.ListTaskPushNotificationConfigsRequest,
        {"tenant": "a", "taskId": "t1", "pageSize": 5, "pageToken": "p"},
    ),
    (T.ListTaskPushNotificationConfigsResponse, {"configs": [_PUSH], "nextPageToken": "n"}),
    (T.GetExtendedAgentCardRequest, {"tenant": "acme"}),
    (T.AgentCard, _CARD),
]


def _ints_as_floats(value):
    """The SDK stores `data` in google.protobuf.Value: every number comes back a float."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: _ints_as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_ints_as_floats(v) for v in value]
    return value


@pytest.mark.parametrize("model, wire", EXAMPLES, ids=lambda x: getattr(x, "__name__", ""))
def test_our_json_parses_strictly_into_the_sdk_message_and_back(model, wire):
    ours = model.from_wire(wire)
    assert ours.to_wire() == wire  # our own round trip is exact
    theirs = to_sdk(ours)  # raises on any field name the SDK does not know
    back = MessageToDict(theirs)
    # What the SDK writes back parses as ours into exactly what we wrote (the SDK omits
    # REQUIRED-but-empty fields such as `scopes: {}`; we accept that and write them).
    assert model.from_wire(back).to_wire() == _ints_as_floats(wire)


@pytest.mark.parametrize(
    "card",
    [TravelDeskAgent().card("http://h/a2a"), ConformanceAgent().card("http://h/a2a")],
    ids=["travel", "conformance"],
)
def test_our_shipped_cards_are_valid_sdk_cards(card):
    sdk_card = to_sdk(card)
    assert sdk_card.supported_interfaces[0].protocol_binding == "JSONRPC"
    assert from_sdk(sdk_card, T.AgentCard) == card


def test_sdk_built_objects_parse_as_ours():
    task = pb.Task(
        id="t",
        context_id="c",
        status=pb.TaskStatus(state=pb.TASK_STATE_AUTH_REQUIRED),
        artifacts=[
            pb.Artifact(
                artifact_id="a", parts=[pb.Part(raw=b"\x00\xff", media_type="application/octet-stream")]
            )
        ],
    )
    ours = from_sdk(task, T.Task)
    assert ours.status.state is TaskState.AUTH_REQUIRED
    assert ours.artifacts[0].parts[0].raw_bytes == b"\x00\xff"
    assert ours.to_wire() == MessageToDict(task)


# --- the SDK client against our server --------------------------------------------------------


@pytest.fixture(scope="module")
def our_server(live_servers) -> str:
    return live_servers("conformance")


def _send(message_id: str, text: str = "hi", **fields) -> pb.SendMessageRequest:
    return pb.SendMessageRequest(
        message=pb.Message(message_id=message_id, role=pb.ROLE_USER, parts=[pb.Part(text=text)], **fields)
    )


@pytest.mark.anyio
async def test_sdk_client_sends_blocking_to_our_server(our_server):
    client = await create_client(our_server, client_config=ClientConfig(streaming=False))
    try:
        events = [e async for e in client.send_message(_send("tck-artifact-data-sdk"))]
        assert len(events) == 1 and events[0].HasField("task")
        task = events[0].task
        assert task.status.state == pb.TASK_STATE_COMPLETED
        assert MessageToDict(task.artifacts[0].parts[0])["data"] == {"key": "value", "count": 42.0}
        got = await client.get_task(pb.GetTaskRequest(id=task.id, history_length=1))
        assert got.id == task.id and len(got.history) == 1
        listed = await client.list_tasks(pb.ListTasksRequest(page_size=1))
        assert listed.page_size == 1 and listed.total_size >= 1
    finally:
        await client.close()


@pytest.mark.anyio
async def test_sdk_client_streams_from_our_server(our_server):
    client = await create_client(our_server, client_config=ClientConfig(streaming=True))
    try:
        events = [e async for e in client.send_message(_send("tck-stream-chunked-sdk"))]
        kinds = [e.WhichOneof("payload") for e in events]
        assert kinds == [
            "task",
            "status_update",
            "artifact_update",
            "artifact_update",
            "artifact_update",
            "status_update",
        ]
        assert events[-1].status_update.status.state == pb.TASK_STATE_COMPLETED
        direct = [e async for e in client.send_message(_send("tck-message-response-sdk"))]
        assert [e.WhichOneof("payload") for e in direct] == ["message"]
    finally:
        await client.close()


@pytest.mark.anyio
async def test_sdk_client_resumes_and_cancels_on_our_server(our_server):
    client = await create_client(our_server, client_config=ClientConfig(streaming=False))
    try:
        [first] = [e async for e in client.send_message(_send("tck-input-required-sdk"))]
        task = first.task
        assert task.status.state == pb.TASK_STATE_INPUT_REQUIRED
        [again] = [
            e
            async for e in client.send_message(
                _send("m-2", "ok", task_id=task.id, context_id=task.context_id)
            )
        ]
        assert again.task.status.state == pb.TASK_STATE_COMPLETED
        [other] = [e async for e in client.send_message(_send("tck-auth-required-sdk"))]
        canceled = await client.cancel_task(pb.CancelTaskRequest(id=other.task.id))
        assert canceled.status.state == pb.TASK_STATE_CANCELED
    finally:
        await client.close()


@pytest.mark.anyio
async def test_our_errors_map_to_the_sdk_exception_classes(our_server):
    client = await create_client(our_server, client_config=ClientConfig(streaming=True))
    try:
        with pytest.raises(sdk_errors.TaskNotFoundError) as info:
            await client.get_task(pb.GetTaskRequest(id="ghost"))
        assert info.value.data == {"taskId": "ghost"}  # our ErrorInfo metadata, read by the SDK
        events = [e async for e in client.send_message(_send("tck-complete-task-sdk-err"))]
        done = events[0].task
        with pytest.raises(sdk_errors.TaskNotCancelableError):
            await client.cancel_task(pb.CancelTaskRequest(id=done.id))
        with pytest.raises(sdk_errors.UnsupportedOperationError):  # message to a terminal task
            [_ async for _ in client.send_message(_send("m-3", task_id=done.id, context_id=done.context_id))]
        with pytest.raises(sdk_errors.UnsupportedOperationError):  # subscribe to it
            [_ async for _ in client.subscribe(pb.SubscribeToTaskRequest(id=done.id))]
        [waiting] = [e async for e in client.send_message(_send("tck-input-required-sdk-e"))][:1]
        with pytest.raises(sdk_errors.InvalidParamsError):  # context mismatch (spec §3.4.3)
            [
                _
                async for _ in client.send_message(
                    _send("m-4", task_id=waiting.task.id, context_id="not-its-context")
                )
            ]
    finally:
        await client.close()


# --- our client against an SDK server ---------------------------------------------------------


@pytest.fixture(scope="module")
def sdk_server():
    # The SDK serves a fixed card, so its URL must be known before the server starts.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with running_server(sdk_echo_app(url=f"http://127.0.0.1:{port}"), port=port) as url:
        yield url


@pytest.mark.anyio
async def test_our_client_drives_an_sdk_server(sdk_server):
    async with await A2AClient.discover(sdk_server) as client:
        assert client.card.name == "Echo"
        task = await client.send("ping")
        assert task.status.state is TaskState.COMPLETED
        assert task.artifacts[0].text == "ping"
        assert (await client.get_task(task.id)).id == task.id
        events = [e async for e in client.stream("pong")]
        assert events[0].kind in ("task", "statusUpdate", "artifactUpdate")
        assert events[-1].status_update.status.state is TaskState.COMPLETED
        page = await client.list_tasks(page_size=1)
        assert page.page_size == 1 and page.total_size == 2
        polled = await client.send_and_wait("poll me", mode="polling", poll_interval=0.01)
        assert polled.status.state is TaskState.COMPLETED


@pytest.mark.anyio
async def test_sdk_server_errors_arrive_as_our_typed_exceptions(sdk_server):
    async with await A2AClient.discover(sdk_server) as client:
        with pytest.raises(TaskNotFoundError) as info:
            await client.get_task("ghost")
        assert info.value.code == -32001
