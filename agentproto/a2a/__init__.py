"""A2A v1.0 (agent ↔ agent): types, the task state machine, the JSON-RPC binding, server, client.

Layers, from the wire inwards (each usable on its own, e.g. in a notebook cell):

==========================  ====================================================================
``types``                   pydantic models of every A2A object in ProtoJSON shape
``cards``                   ``check_card``: an Agent Card checked the way its author needs
``errors``                  the error hierarchy with JSON-RPC codes and ``google.rpc.ErrorInfo``
``machine``                 the nine task states, the derived transition table, ``TaskMachine``
``agents``                  sans-I/O agents (travel desk, conformance SUT, echo) and their updates
``service``                 the request handler: runs agents, streams, push, history, paging
``taskstore``               SQLite persistence of tasks, transitions and push configs
``push``                    webhook delivery of task updates
``jsonrpc``                 JSON-RPC 2.0 dispatch (sans I/O)
``server`` / ``client``     the Starlette adapter and the httpx client; ``cli``: ``agentproto a2a``
==========================  ====================================================================

Imports are lazy (PEP 562): ``from agentproto.a2a import TaskMachine`` loads only what that
name needs, so the CLI and notebooks that use the sans-I/O core do not pay for the web stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "check_card": "agentproto.a2a.cards",
    "CardProblem": "agentproto.a2a.cards",
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
    "A2AClientError": "agentproto.a2a.client",
    "A2AConnectionError": "agentproto.a2a.client",
    "A2AHTTPError": "agentproto.a2a.client",
    "A2ATimeoutError": "agentproto.a2a.client",
    "InvalidResponseError": "agentproto.a2a.client",
    "NoProgressError": "agentproto.a2a.client",
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
    "TaskState", "TERMINAL_STATES", "INTERRUPTED_STATES", "TRANSITIONS", "TaskMachine",
    "Transition", "Operation", "InvalidTransitionError", "why_refused", "edges",
    "resolve_follow_up",
    # types
    "PROTOCOL_VERSION", "Role", "Part", "Message", "Artifact", "TaskStatus", "Task",
    "TaskStatusUpdateEvent", "TaskArtifactUpdateEvent", "StreamResponse", "SendMessageRequest",
    "TaskPushNotificationConfig", "AgentCard", "check_card", "CardProblem",
    "AgentCapabilities", "AgentInterface", "AgentSkill", "text_part", "data_part", "file_part", "url_part", "user_message",
    "agent_message",
    # errors
    "A2AError", "JSONRPCProtocolError", "JSONParseError", "InvalidRequestError",
    "MethodNotFoundError", "InvalidParamsError", "InternalError", "TaskNotFoundError",
    "TaskNotCancelableError", "PushNotificationNotSupportedError", "UnsupportedOperationError",
    "ContentTypeNotSupportedError", "InvalidAgentResponseError",
    "ExtendedAgentCardNotConfiguredError", "ExtensionSupportRequiredError",
    "VersionNotSupportedError", "ERRORS_BY_CODE", "error_from_wire",
    # agents and runtime
    "Agent", "RequestContext", "Update", "Reply", "Status", "ArtifactChunk", "Wait",
    "TravelDeskAgent", "ConformanceAgent", "EchoAgent", "CONFORMANCE_BEHAVIOURS", "AGENTS",
    "make_agent", "A2AService", "TaskStore", "PushNotifier", "Delivery", "check_webhook_url",
    "WebhookRecorder",
    # binding, server, client
    "JSONRPCDispatcher", "METHODS", "A2AApplication", "build_a2a_routes", "create_a2a_app",
    "A2AClient", "SyncA2AClient", "A2AClientError", "A2AConnectionError", "A2AHTTPError",
    "A2ATimeoutError", "NoProgressError", "InvalidResponseError",
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
    from agentproto.a2a.cards import CardProblem, check_card
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
    from agentproto.a2a.client import (
        A2AClient,
        A2AClientError,
        A2AConnectionError,
        A2AHTTPError,
        A2ATimeoutError,
        InvalidResponseError,
        NoProgressError,
        SyncA2AClient,
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
    from agentproto.a2a.jsonrpc import METHODS, JSONRPCDispatcher
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
    from agentproto.a2a.push import Delivery, PushNotifier, WebhookRecorder, check_webhook_url
    from agentproto.a2a.server import A2AApplication, build_a2a_routes, create_a2a_app
    from agentproto.a2a.service import A2AService
    from agentproto.a2a.states import INTERRUPTED_STATES, TERMINAL_STATES, TaskState
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
