"""A2A v1.0 (agent ↔ agent): types, the task state machine, the JSON-RPC binding, server, client.

Layers, from the core outwards. The first group is the sans-I/O protocol core (in the style of
h11: no sockets, no clock, no randomness — time and ids are injected); the second runs agents;
the third are the adapters that own I/O.

==========================  ====================================================================
``types``                   pydantic models of every A2A object in ProtoJSON shape
``states``                  the nine task states and the terminal / interrupted / active sets
``machine``                 the derived transition table and ``TaskMachine`` (clock injected)
``errors``                  the error hierarchy with JSON-RPC codes and ``google.rpc.ErrorInfo``
``cards``                   ``check_card``: an Agent Card checked the way its author needs
``card_cache``              ``CardCache``: the client's ``max-age`` / ``ETag`` / 304 bookkeeping
``artifacts``               ``ArtifactAssembler``: artifact chunks (append, lastChunk) → artifacts
``jsonrpc``                 JSON-RPC 2.0 dispatch onto any ``A2AHandler``
``modes``                   blocking, polling, streaming and push as a model on virtual time
--------------------------  --------------------------------------------------------------------
``agents``                  sans-I/O agents (travel desk, conformance SUT, echo) and their updates
``service``                 ``A2AService``, the ``A2AHandler`` that runs agents (asyncio)
--------------------------  --------------------------------------------------------------------
``taskstore``               SQLite persistence of tasks, transitions and push configs
``push``                    webhook delivery of task updates (httpx), ``WebhookRecorder``
``server`` / ``client``     the Starlette adapter and the httpx clients; ``cli``: ``agentproto a2a``
``client_core``             the clients' sans-I/O half: their errors, requests, responses, discovery
``cli_samples``             writes the sample files under ``data/a2a/``
``sdk_bridge``              conversions to and from the official ``a2a-sdk`` (optional)
==========================  ====================================================================

Imports are lazy (PEP 562): ``from agentproto.a2a import TaskMachine`` loads only what that
name needs, so the core works on a base install (pydantic, no httpx or Starlette) and the CLI
and notebooks that use it do not pay for the web stack. The notebook pictures and widgets are
in ``agentproto.course.a2a_*``; the three-protocol concierge demo in
``agentproto.demo.concierge``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "check_card": "agentproto.a2a.cards",
    "CardProblem": "agentproto.a2a.cards",
    "CardCache": "agentproto.a2a.card_cache",
    "CardFetch": "agentproto.a2a.card_cache",
    "ArtifactAssembler": "agentproto.a2a.artifacts",
    "ArtifactAssemblyError": "agentproto.a2a.artifacts",
    "MODES": "agentproto.a2a.modes",
    "ModeResult": "agentproto.a2a.modes",
    "ScheduledUpdate": "agentproto.a2a.modes",
    "agent_schedule": "agentproto.a2a.modes",
    "model_modes": "agentproto.a2a.modes",
    "A2AHandler": "agentproto.a2a.jsonrpc",
    "CallerScope": "agentproto.a2a.jsonrpc",
    "ANONYMOUS": "agentproto.a2a.jsonrpc",
    "ACTIVE_STATES": "agentproto.a2a.states",
    "AGENTS": "agentproto.a2a.agents",
    "CONFORMANCE_BEHAVIOURS": "agentproto.a2a.agents",
    "Agent": "agentproto.a2a.agents",
    "ArtifactChunk": "agentproto.a2a.agents",
    "ConformanceAgent": "agentproto.a2a.agents",
    "EchoAgent": "agentproto.a2a.agents",
    "Reply": "agentproto.a2a.agents",
    "RequestContext": "agentproto.a2a.agents",
    "Status": "agentproto.a2a.agents",
    "TravelDeskAgent": "agentproto.a2a.agents",
    "Update": "agentproto.a2a.agents",
    "Wait": "agentproto.a2a.agents",
    "make_agent": "agentproto.a2a.agents",
    "A2AClient": "agentproto.a2a.client",
    "A2AClientError": "agentproto.a2a.client_core",
    "A2AConnectionError": "agentproto.a2a.client_core",
    "A2AHTTPError": "agentproto.a2a.client_core",
    "A2ATimeoutError": "agentproto.a2a.client_core",
    "InvalidResponseError": "agentproto.a2a.client_core",
    "NoProgressError": "agentproto.a2a.client_core",
    "SyncA2AClient": "agentproto.a2a.client",
    "ERRORS_BY_CODE": "agentproto.a2a.errors",
    "A2AError": "agentproto.a2a.errors",
    "ContentTypeNotSupportedError": "agentproto.a2a.errors",
    "ExtendedAgentCardNotConfiguredError": "agentproto.a2a.errors",
    "ExtensionSupportRequiredError": "agentproto.a2a.errors",
    "InternalError": "agentproto.a2a.errors",
    "InvalidAgentResponseError": "agentproto.a2a.errors",
    "InvalidParamsError": "agentproto.a2a.errors",
    "InvalidRequestError": "agentproto.a2a.errors",
    "JSONParseError": "agentproto.a2a.errors",
    "JSONRPCProtocolError": "agentproto.a2a.errors",
    "MethodNotFoundError": "agentproto.a2a.errors",
    "PushNotificationNotSupportedError": "agentproto.a2a.errors",
    "TaskNotCancelableError": "agentproto.a2a.errors",
    "TaskNotFoundError": "agentproto.a2a.errors",
    "UnsupportedOperationError": "agentproto.a2a.errors",
    "VersionNotSupportedError": "agentproto.a2a.errors",
    "error_from_wire": "agentproto.a2a.errors",
    "METHODS": "agentproto.a2a.jsonrpc",
    "JSONRPCDispatcher": "agentproto.a2a.jsonrpc",
    "TRANSITIONS": "agentproto.a2a.machine",
    "InvalidTransitionError": "agentproto.a2a.machine",
    "Operation": "agentproto.a2a.machine",
    "TaskMachine": "agentproto.a2a.machine",
    "Transition": "agentproto.a2a.machine",
    "edges": "agentproto.a2a.machine",
    "resolve_follow_up": "agentproto.a2a.machine",
    "why_refused": "agentproto.a2a.machine",
    "Delivery": "agentproto.a2a.push",
    "WebhookRecorder": "agentproto.a2a.push",
    "PushNotifier": "agentproto.a2a.push",
    "check_webhook_url": "agentproto.a2a.push",
    "authorization_matches": "agentproto.a2a.push",
    "A2AApplication": "agentproto.a2a.server",
    "build_a2a_routes": "agentproto.a2a.server",
    "create_a2a_app": "agentproto.a2a.server",
    "A2AService": "agentproto.a2a.service",
    "INTERRUPTED_STATES": "agentproto.a2a.states",
    "TERMINAL_STATES": "agentproto.a2a.states",
    "TaskState": "agentproto.a2a.states",
    "TaskStore": "agentproto.a2a.taskstore",
    "PROTOCOL_VERSION": "agentproto.a2a.types",
    "AgentCapabilities": "agentproto.a2a.types",
    "AgentCard": "agentproto.a2a.types",
    "AgentInterface": "agentproto.a2a.types",
    "AgentSkill": "agentproto.a2a.types",
    "Artifact": "agentproto.a2a.types",
    "Message": "agentproto.a2a.types",
    "Part": "agentproto.a2a.types",
    "Role": "agentproto.a2a.types",
    "SendMessageRequest": "agentproto.a2a.types",
    "StreamResponse": "agentproto.a2a.types",
    "Task": "agentproto.a2a.types",
    "TaskArtifactUpdateEvent": "agentproto.a2a.types",
    "TaskPushNotificationConfig": "agentproto.a2a.types",
    "TaskStatus": "agentproto.a2a.types",
    "TaskStatusUpdateEvent": "agentproto.a2a.types",
    "agent_message": "agentproto.a2a.types",
    "data_part": "agentproto.a2a.types",
    "file_part": "agentproto.a2a.types",
    "text_part": "agentproto.a2a.types",
    "url_part": "agentproto.a2a.types",
    "user_message": "agentproto.a2a.types",
}

__all__ = [
    # states and machine
    "TaskState",
    "TERMINAL_STATES",
    "INTERRUPTED_STATES",
    "ACTIVE_STATES",
    "TRANSITIONS",
    "TaskMachine",
    "Transition",
    "Operation",
    "InvalidTransitionError",
    "why_refused",
    "edges",
    "resolve_follow_up",
    # types
    "PROTOCOL_VERSION",
    "Role",
    "Part",
    "Message",
    "Artifact",
    "TaskStatus",
    "Task",
    "TaskStatusUpdateEvent",
    "TaskArtifactUpdateEvent",
    "StreamResponse",
    "SendMessageRequest",
    "TaskPushNotificationConfig",
    "AgentCard",
    "AgentCapabilities",
    "AgentInterface",
    "AgentSkill",
    "text_part",
    "data_part",
    "file_part",
    "url_part",
    "user_message",
    "agent_message",
    # cards, artifacts, ways to wait
    "check_card",
    "CardProblem",
    "CardCache",
    "CardFetch",
    "ArtifactAssembler",
    "ArtifactAssemblyError",
    "MODES",
    "ModeResult",
    "ScheduledUpdate",
    "agent_schedule",
    "model_modes",
    # errors
    "A2AError",
    "JSONRPCProtocolError",
    "JSONParseError",
    "InvalidRequestError",
    "MethodNotFoundError",
    "InvalidParamsError",
    "InternalError",
    "TaskNotFoundError",
    "TaskNotCancelableError",
    "PushNotificationNotSupportedError",
    "UnsupportedOperationError",
    "ContentTypeNotSupportedError",
    "InvalidAgentResponseError",
    "ExtendedAgentCardNotConfiguredError",
    "ExtensionSupportRequiredError",
    "VersionNotSupportedError",
    "ERRORS_BY_CODE",
    "error_from_wire",
    # agents and runtime
    "Agent",
    "RequestContext",
    "Update",
    "Reply",
    "Status",
    "ArtifactChunk",
    "Wait",
    "TravelDeskAgent",
    "ConformanceAgent",
    "EchoAgent",
    "CONFORMANCE_BEHAVIOURS",
    "AGENTS",
    "make_agent",
    "A2AService",
    "TaskStore",
    "PushNotifier",
    "Delivery",
    "check_webhook_url",
    "authorization_matches",
    "WebhookRecorder",
    # binding, server, client
    "JSONRPCDispatcher",
    "A2AHandler",
    "CallerScope",
    "ANONYMOUS",
    "METHODS",
    "A2AApplication",
    "build_a2a_routes",
    "create_a2a_app",
    "A2AClient",
    "SyncA2AClient",
    "A2AClientError",
    "A2AConnectionError",
    "A2AHTTPError",
    "A2ATimeoutError",
    "NoProgressError",
    "InvalidResponseError",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentproto.a2a' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from agentproto.a2a.agents import (
        AGENTS,
        CONFORMANCE_BEHAVIOURS,
        Agent,
        ArtifactChunk,
        ConformanceAgent,
        EchoAgent,
        Reply,
        RequestContext,
        Status,
        TravelDeskAgent,
        Update,
        Wait,
        make_agent,
    )
    from agentproto.a2a.artifacts import ArtifactAssembler, ArtifactAssemblyError
    from agentproto.a2a.card_cache import CardCache, CardFetch
    from agentproto.a2a.cards import CardProblem, check_card
    from agentproto.a2a.client import A2AClient, SyncA2AClient
    from agentproto.a2a.client_core import (
        A2AClientError,
        A2AConnectionError,
        A2AHTTPError,
        A2ATimeoutError,
        InvalidResponseError,
        NoProgressError,
    )
    from agentproto.a2a.errors import (
        ERRORS_BY_CODE,
        A2AError,
        ContentTypeNotSupportedError,
        ExtendedAgentCardNotConfiguredError,
        ExtensionSupportRequiredError,
        InternalError,
        InvalidAgentResponseError,
        InvalidParamsError,
        InvalidRequestError,
        JSONParseError,
        JSONRPCProtocolError,
        MethodNotFoundError,
        PushNotificationNotSupportedError,
        TaskNotCancelableError,
        TaskNotFoundError,
        UnsupportedOperationError,
        VersionNotSupportedError,
        error_from_wire,
    )
    from agentproto.a2a.jsonrpc import ANONYMOUS, METHODS, A2AHandler, CallerScope, JSONRPCDispatcher
    from agentproto.a2a.machine import (
        TRANSITIONS,
        InvalidTransitionError,
        Operation,
        TaskMachine,
        Transition,
        edges,
        resolve_follow_up,
        why_refused,
    )
    from agentproto.a2a.modes import (
        MODES,
        ModeResult,
        ScheduledUpdate,
        agent_schedule,
        model_modes,
    )
    from agentproto.a2a.push import (
        Delivery,
        PushNotifier,
        WebhookRecorder,
        authorization_matches,
        check_webhook_url,
    )
    from agentproto.a2a.server import A2AApplication, build_a2a_routes, create_a2a_app
    from agentproto.a2a.service import A2AService
    from agentproto.a2a.states import (
        ACTIVE_STATES,
        INTERRUPTED_STATES,
        TERMINAL_STATES,
        TaskState,
    )
    from agentproto.a2a.taskstore import TaskStore
    from agentproto.a2a.types import (
        PROTOCOL_VERSION,
        AgentCapabilities,
        AgentCard,
        AgentInterface,
        AgentSkill,
        Artifact,
        Message,
        Part,
        Role,
        SendMessageRequest,
        StreamResponse,
        Task,
        TaskArtifactUpdateEvent,
        TaskPushNotificationConfig,
        TaskStatus,
        TaskStatusUpdateEvent,
        agent_message,
        data_part,
        file_part,
        text_part,
        url_part,
        user_message,
    )
