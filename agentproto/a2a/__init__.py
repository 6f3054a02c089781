"""A2A v1.0 (agent ↔ agent): types, the task state machine, the JSON-RPC binding, server, client.

Layers, from the core outwards. The first group is the sans-I/O protocol core (in the style of
h11: no sockets, no clock, no randomness — time and ids are injected); the second runs agents;
the third are the adapters that own I/O.

==========================  ====================================================================
``types``                   pydantic models of every A2A object in ProtoJSON shape
``states``                  the nine task states and the terminal / interrupted / active sets
``machine``                 the derived transition table, ``TaskMachine`` (clock injected) and
                            ``lifecycle_diagram()``: the state diagram's drawing data
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
``_taskstore``               SQLite persistence of tasks, transitions and push configs
``push``                    webhook delivery of task updates (httpx), ``WebhookRecorder``
``server`` / ``client``     the Starlette adapter and the httpx clients (``client_bindings``:
                            REST and gRPC); ``_cli``: ``agentproto a2a``
``_client_core``             the clients' sans-I/O half: their errors, requests, responses, discovery
``cli_samples``             writes the sample files under ``data/a2a/``
``sdk_bridge``              conversions to and from the official ``a2a-sdk`` (optional)
==========================  ====================================================================

Imports are lazy (PEP 562, :mod:`agentproto._lazy`): the ``if TYPE_CHECKING:`` imports below
say where each public name lives, and ``from agentproto.a2a import TaskMachine`` loads only what
that name needs, so the core works on a base install (pydantic, no httpx or Starlette) and the CLI
and notebooks that use it do not pay for the web stack. The notebook pictures and widgets are
in ``agentproto.course.a2a_*``; the three-protocol concierge demo in
``agentproto.demo.concierge``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentproto._lazy import lazy_exports

if TYPE_CHECKING:  # the public names and their homes; served lazily below
    from agentproto.a2a._client_core import (
        A2AClientError,
        A2AConnectionError,
        A2AHTTPError,
        A2ATimeoutError,
        InvalidResponseError,
        NoProgressError,
        card_token_url,
    )
    from agentproto.a2a._service_streams import ServiceLimits
    from agentproto.a2a._taskstore import TaskStore
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
    from agentproto.a2a.client_bindings import GrpcA2AClient, RestA2AClient
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
        ResourceExhaustedError,
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
        LifecycleDiagram,
        Operation,
        TaskMachine,
        Transition,
        edges,
        lifecycle_diagram,
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
    from agentproto.a2a.server import A2AApplication, a2a_config, create_a2a_app
    from agentproto.a2a.service import A2AService
    from agentproto.a2a.states import (
        ACTIVE_STATES,
        INTERRUPTED_STATES,
        TERMINAL_STATES,
        TaskState,
    )
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
    "lifecycle_diagram",
    "LifecycleDiagram",
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
    "ResourceExhaustedError",
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
    "ServiceLimits",
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
    "a2a_config",
    "create_a2a_app",
    "A2AClient",
    "SyncA2AClient",
    "RestA2AClient",
    "GrpcA2AClient",
    "card_token_url",
    "A2AClientError",
    "A2AConnectionError",
    "A2AHTTPError",
    "A2ATimeoutError",
    "NoProgressError",
    "InvalidResponseError",
]

__getattr__, __dir__, _EXPORTS = lazy_exports(globals())
