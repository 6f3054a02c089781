"""Every binding against the reference: a2a-sdk 1.3.0's client drives our server over REST and
gRPC (JSON-RPC is in test_a2a_interop.py), and one agent serves the same task on all three."""

from __future__ import annotations

import httpx
import pytest

pytest.importorskip("a2a.types", reason="needs the official SDK: pip install -e .[interop]")
grpc = pytest.importorskip("grpc", reason="needs grpcio")

from a2a.client import ClientConfig, create_client  # noqa: E402
from a2a.types import a2a_pb2 as pb  # noqa: E402
from a2a.utils import errors as sdk_errors  # noqa: E402

from agentproto.a2a.server import create_a2a_app  # noqa: E402
from agentproto.clock import FakeClock, IdFactory  # noqa: E402
from agentproto.server import RunningServer  # noqa: E402

pytestmark = [pytest.mark.interop, pytest.mark.anyio]


@pytest.fixture(scope="module")
def three_bindings():
    """Our conformance agent on JSON-RPC, REST and gRPC (loopback, free ports)."""
    app = create_a2a_app(agent="conformance", clock=FakeClock(), ids=IdFactory("b"), grpc=True)
    server = RunningServer(app).start()
    try:
        card = httpx.get(server.url + "/.well-known/agent-card.json").json()
        yield server.url, card
    finally:
        server.stop()


def _config(binding: str, streaming: bool) -> ClientConfig:
    return ClientConfig(
        streaming=streaming,
        supported_protocol_bindings=[binding],
        grpc_channel_factory=grpc.aio.insecure_channel,
    )


def _send(message_id: str, text: str = "hi", **fields) -> pb.SendMessageRequest:
    return pb.SendMessageRequest(
        message=pb.Message(message_id=message_id, role=pb.ROLE_USER, parts=[pb.Part(text=text)], **fields)
    )


def test_the_card_lists_the_three_interfaces_in_preference_order(three_bindings):
    _, card = three_bindings
    itfs = card["supportedInterfaces"]
    assert [i["protocolBinding"] for i in itfs] == ["JSONRPC", "HTTP+JSON", "GRPC"]
    assert all(i["protocolVersion"] == "1.0" for i in itfs)
    assert itfs[2]["url"].startswith("127.0.0.1:")  # a gRPC target, host:port


@pytest.mark.parametrize("binding", ["HTTP+JSON", "GRPC"])
async def test_sdk_client_sends_gets_and_lists_on_each_binding(three_bindings, binding):
    url, _ = three_bindings
    client = await create_client(url, client_config=_config(binding, streaming=False))
    try:
        events = [e async for e in client.send_message(_send(f"tck-artifact-data-{binding}"))]
        assert len(events) == 1 and events[0].HasField("task")
        task = events[0].task
        assert task.status.state == pb.TASK_STATE_COMPLETED
        got = await client.get_task(pb.GetTaskRequest(id=task.id, history_length=1))
        assert got.id == task.id and len(got.history) == 1
        listed = await client.list_tasks(pb.ListTasksRequest(page_size=1))
        assert listed.page_size == 1 and listed.total_size >= 1
    finally:
        await client.close()


@pytest.mark.parametrize("binding", ["HTTP+JSON", "GRPC"])
async def test_sdk_client_streams_on_each_binding(three_bindings, binding):
    url, _ = three_bindings
    client = await create_client(url, client_config=_config(binding, streaming=True))
    try:
        events = [e async for e in client.send_message(_send(f"tck-stream-chunked-{binding}"))]
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
    finally:
        await client.close()


@pytest.mark.parametrize("binding", ["HTTP+JSON", "GRPC"])
async def test_sdk_client_resumes_and_cancels_on_each_binding(three_bindings, binding):
    url, _ = three_bindings
    client = await create_client(url, client_config=_config(binding, streaming=False))
    try:
        [first] = [e async for e in client.send_message(_send(f"tck-input-required-{binding}"))]
        task = first.task
        assert task.status.state == pb.TASK_STATE_INPUT_REQUIRED
        [again] = [
            e
            async for e in client.send_message(
                _send(f"m2-{binding}", "ok", task_id=task.id, context_id=task.context_id)
            )
        ]
        assert again.task.status.state == pb.TASK_STATE_COMPLETED
        [other] = [e async for e in client.send_message(_send(f"tck-auth-required-{binding}"))]
        canceled = await client.cancel_task(pb.CancelTaskRequest(id=other.task.id))
        assert canceled.status.state == pb.TASK_STATE_CANCELED
    finally:
        await client.close()


@pytest.mark.parametrize("binding", ["HTTP+JSON", "GRPC"])
async def test_our_errors_arrive_as_the_sdk_exception_classes_on_each_binding(three_bindings, binding):
    url, _ = three_bindings
    client = await create_client(url, client_config=_config(binding, streaming=True))
    try:
        with pytest.raises(sdk_errors.TaskNotFoundError):
            await client.get_task(pb.GetTaskRequest(id="ghost"))
        events = [e async for e in client.send_message(_send(f"tck-complete-task-e-{binding}"))]
        done = events[0].task
        with pytest.raises(sdk_errors.TaskNotCancelableError):
            await client.cancel_task(pb.CancelTaskRequest(id=done.id))
        with pytest.raises(sdk_errors.UnsupportedOperationError):
            [_ async for _ in client.subscribe(pb.SubscribeToTaskRequest(id=done.id))]
    finally:
        await client.close()


async def test_grpc_errors_carry_the_spec_status_code_and_error_info(three_bindings):
    from a2a.types import a2a_pb2_grpc
    from google.rpc import error_details_pb2, status_pb2

    _, card = three_bindings
    target = card["supportedInterfaces"][2]["url"]
    async with grpc.aio.insecure_channel(target) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.GetTask(pb.GetTaskRequest(id="ghost"), metadata=(("a2a-version", "1.0"),))
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
        raw = dict(info.value.trailing_metadata())["grpc-status-details-bin"]
        status = status_pb2.Status.FromString(raw)
        detail = error_details_pb2.ErrorInfo()
        assert status.details[0].Unpack(detail)
        assert (detail.reason, detail.domain) == ("TASK_NOT_FOUND", "a2a-protocol.org")
        with pytest.raises(grpc.aio.AioRpcError) as info:  # no A2A-Version: means 0.3
            await stub.GetTask(pb.GetTaskRequest(id="ghost"))
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION


# --- our client on each binding -------------------------------------------------------------


@pytest.mark.parametrize("binding", ["jsonrpc", "rest", "grpc"])
async def test_our_client_sends_streams_and_gets_typed_errors_on_each_binding(three_bindings, binding):
    from agentproto.a2a.client_bindings import connect
    from agentproto.a2a.errors import TaskNotCancelableError, TaskNotFoundError
    from agentproto.a2a.states import TaskState

    url, _ = three_bindings
    async with await connect(url, binding=binding) as client:
        task = await client.send(_ours(f"tck-complete-task-ours-{binding}"))
        assert task.status.state is TaskState.COMPLETED
        assert (await client.get_task(task.id, history_length=1)).id == task.id
        page = await client.list_tasks(page_size=1)
        assert page.page_size == 1
        events = [e async for e in client.stream(_ours(f"tck-stream-chunked-ours-{binding}"))]
        assert [e.kind for e in events][0] == "task"
        assert events[-1].status_update.status.state is TaskState.COMPLETED
        with pytest.raises(TaskNotFoundError):
            await client.get_task("ghost")
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(task.id)


async def test_connect_passes_interceptors_to_the_grpc_channel(three_bindings):
    """A tracer (or the course's tap) goes under the kit's gRPC client through a public argument."""
    from agentproto.a2a.client_bindings import connect

    seen: list[tuple[str, dict[str, str]]] = []

    class Record(grpc.aio.UnaryUnaryClientInterceptor):
        async def intercept_unary_unary(self, continuation, details, request):
            seen.append((details.method, dict(details.metadata or ())))
            return await continuation(details, request)

    url, _ = three_bindings
    async with await connect(url, binding="grpc", interceptors=[Record()]) as client:
        task = await client.send(_ours("tck-complete-task-intercepted"))
    assert [m for m, _ in seen] == [b"/lf.a2a.v1.A2AService/SendMessage"]  # grpc.aio gives bytes
    assert seen[0][1]["a2a-version"] == "1.0"
    assert task.id
    async with await connect(url, binding="rest", interceptors=[Record()]) as client:  # not gRPC: unused
        await client.send(_ours("tck-complete-task-not-intercepted"))
    assert len(seen) == 1


def test_connect_picks_the_first_interface_of_the_card_when_not_forced(three_bindings):
    import anyio

    from agentproto.a2a.client import A2AClient
    from agentproto.a2a.client_bindings import GrpcA2AClient, RestA2AClient, connect

    url, _ = three_bindings

    async def kinds():
        out = []
        for kw in ({}, {"accept": ("GRPC", "HTTP+JSON")}, {"accept": ("GRPC",)}, {"binding": "rest"}):
            async with await connect(url, **kw) as client:
                out.append(type(client))
        return out

    # the card's order decides among accepted bindings; the caller's order does not
    assert anyio.run(kinds) == [A2AClient, RestA2AClient, GrpcA2AClient, RestA2AClient]


def _ours(message_id: str):
    from agentproto.a2a.types import user_message

    return user_message("hi", message_id=message_id)


# --- our client against the SDK's server on each binding --------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def sdk_three():
    """a2a-sdk's DefaultRequestHandler on JSON-RPC, REST (/rest) and gRPC, echo executor."""
    from agentproto.a2a._server_sdk import sdk_echo_app

    http_port, grpc_port = _free_port(), _free_port()
    app = sdk_echo_app(url=f"http://127.0.0.1:{http_port}", rest_path="/rest", grpc_port=grpc_port)
    server = RunningServer(app, port=http_port).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.mark.parametrize("binding", ["jsonrpc", "rest", "grpc"])
async def test_our_client_drives_the_sdk_server_on_each_binding(sdk_three, binding):
    from agentproto.a2a.client_bindings import connect
    from agentproto.a2a.errors import TaskNotFoundError
    from agentproto.a2a.states import TaskState

    async with await connect(sdk_three, binding=binding) as client:
        task = await client.send("ping")
        assert task.status.state is TaskState.COMPLETED
        assert task.artifacts[0].text == "ping"
        assert (await client.get_task(task.id)).id == task.id
        events = [e async for e in client.stream("pong")]
        assert events[-1].status_update.status.state is TaskState.COMPLETED
        with pytest.raises(TaskNotFoundError):
            await client.get_task("ghost")


@pytest.mark.parametrize("binding", ["jsonrpc", "rest", "grpc"])
def test_the_cli_sends_on_the_binding_it_is_told_to(three_bindings, binding, capsys):
    import json

    from agentproto.cli import main

    url, _ = three_bindings
    assert main(["a2a", "send", "hi", "--url", url, "--binding", binding]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert "status" in printed or "parts" in printed
