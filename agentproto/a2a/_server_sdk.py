"""The official a2a-sdk (1.3.0) *server* with the SDK twin of our echo agent: an adapter.

:func:`sdk_echo_app` builds a Starlette app serving the SDK's ``DefaultRequestHandler`` with an
executor that does what :class:`~agentproto.a2a.agents.EchoAgent` does (one artifact echoing the
text, then COMPLETED), on JSON-RPC and optionally on HTTP+JSON and gRPC. It is the reference
point of ``benchmarks/bench_a2a_server.py`` and the server our client is tested against. The
SDK is the ``interop`` extra; it is imported only when the function is called.
"""

from __future__ import annotations

from typing import Any

from agentproto.a2a.sdk_bridge import to_sdk

__all__ = ["sdk_echo_app"]


def sdk_echo_app(
    *,
    rpc_path: str = "/a2a",
    url: str = "http://127.0.0.1",
    rest_path: str | None = None,
    grpc_port: int | None = None,
) -> Any:
    """A Starlette app serving the a2a-sdk's request handler with an echo executor.

    JSON-RPC is at ``rpc_path``; ``rest_path`` adds the SDK's HTTP+JSON routes under that prefix
    and ``grpc_port`` its gRPC servicer on ``127.0.0.1:grpc_port`` for the app's lifetime (the
    card then lists the interfaces in that order). One handler and one task store serve all.
    """
    import contextlib

    from a2a.helpers.proto_helpers import new_task_from_user_message
    from a2a.server.agent_execution import AgentExecutor
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types import a2a_pb2 as pb
    from starlette.applications import Starlette

    from agentproto.a2a.agents import EchoAgent
    from agentproto.a2a.cards import with_bindings

    class EchoExecutor(AgentExecutor):
        """One artifact echoing the text, then COMPLETED — like our EchoAgent."""

        async def execute(self, context: Any, event_queue: Any) -> None:
            task = context.current_task or new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            text = "".join(p.text for p in context.message.parts if p.HasField("text"))
            await updater.add_artifact([pb.Part(text=text)], artifact_id="echo", name="echo", last_chunk=True)
            await updater.complete()

        async def cancel(self, context: Any, event_queue: Any) -> None:
            updater = TaskUpdater(event_queue, context.task_id, context.context_id)
            await updater.cancel()

    base = url.rstrip("/")
    ours = with_bindings(
        EchoAgent().card(base + rpc_path),
        rest_url=base + rest_path if rest_path else None,
        grpc_url=f"127.0.0.1:{grpc_port}" if grpc_port else None,
    )
    card = to_sdk(ours)
    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    routes: list[Any] = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_path)]
    if rest_path:
        routes += create_rest_routes(handler, path_prefix=rest_path)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> Any:
        if grpc_port is None:
            yield
            return
        import grpc
        from a2a.server.request_handlers import GrpcHandler
        from a2a.types import a2a_pb2_grpc

        server = grpc.aio.server()
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)  # type: ignore[no-untyped-call]
        server.add_insecure_port(f"127.0.0.1:{grpc_port}")
        await server.start()
        try:
            yield
        finally:
            await server.stop(0.2)

    return Starlette(routes=routes, lifespan=lifespan)
