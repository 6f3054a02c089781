"""Bridges to the official ``a2a-sdk`` (1.3.0), for interop tests, benchmarks and comparisons.

The SDK is an optional dependency (``pip install -e .[interop]``); it is imported only when a
function here is called.

* :func:`to_sdk` / :func:`from_sdk` convert between our pydantic models and the SDK's protobuf
  messages through their common ProtoJSON form — the same bytes on the wire, so a successful
  round trip is evidence that both sides agree on every field name and enum value.
* :func:`sdk_echo_app` builds an a2a-sdk server running the SDK equivalent of our
  :class:`~agentproto.a2a.agents.EchoAgent` (one artifact, then COMPLETED): the reference point of
  ``benchmarks/bench_a2a_server.py`` and the server our client is tested against.
"""

from __future__ import annotations

from typing import Any, TypeVar

from agentproto.a2a.types import ProtoModel

__all__ = ["to_sdk", "from_sdk", "sdk_echo_app", "sdk_class"]

M = TypeVar("M", bound=ProtoModel)


def sdk_class(model: type[ProtoModel] | ProtoModel) -> type:
    """The a2a-sdk protobuf class with the same name as one of our models."""
    from a2a.types import a2a_pb2

    cls = model if isinstance(model, type) else type(model)
    found: type = getattr(a2a_pb2, cls.__name__)
    return found


def to_sdk(model: ProtoModel) -> Any:
    """Our model → the SDK's protobuf message (strict: unknown field names raise)."""
    from google.protobuf.json_format import ParseDict

    return ParseDict(model.to_wire(), sdk_class(model)(), ignore_unknown_fields=False)


def from_sdk(message: Any, model: type[M]) -> M:
    """The SDK's protobuf message → our model."""
    from google.protobuf.json_format import MessageToDict

    return model.from_wire(MessageToDict(message))


def sdk_echo_app(*, rpc_path: str = "/a2a", url: str = "http://127.0.0.1") -> Any:
    """A Starlette app serving the a2a-sdk's request handler with an echo executor."""
    from a2a.helpers.proto_helpers import new_task_from_user_message
    from a2a.server.agent_execution import AgentExecutor
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types import a2a_pb2 as pb
    from starlette.applications import Starlette

    from agentproto.a2a.agents import EchoAgent

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

    card = to_sdk(EchoAgent().card(url.rstrip("/") + rpc_path))
    handler = DefaultRequestHandler(
        agent_executor=EchoExecutor(), task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(handler, rpc_path)
    return Starlette(routes=routes)
