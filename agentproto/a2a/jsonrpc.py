"""The JSON-RPC 2.0 binding of A2A (spec §9), sans I/O.

:meth:`JSONRPCDispatcher.dispatch` takes a request body (bytes, text or an already-parsed
object) and the request's service parameters (HTTP headers, optionally query parameters) and
returns either one JSON-RPC response object, or — for ``SendStreamingMessage`` and
``SubscribeToTask`` — an async iterator of response objects, each of which the HTTP adapter
writes as one SSE ``data:`` line (spec §9.4.2: every event is a complete JSON-RPC response).
Errors found before a stream starts (unknown task, terminal task, no streaming capability …)
come back as a plain response object, not as a stream.

A request goes through these checks, in order; the first that fails decides the answer:

======================================================  ======================================
check                                                   error
======================================================  ======================================
``Content-Type``, if given, is a JSON media type        -32005 ContentTypeNotSupportedError
body is JSON                                            -32700 JSONParseError
body is one request object (no batches), ``jsonrpc``    -32600 InvalidRequestError
is ``"2.0"``, ``method`` a string, ``id`` a string,
number or null
``method`` is an A2A v1.0 method                        -32601 MethodNotFoundError
``A2A-Version`` (header or query) is served here;       -32009 VersionNotSupportedError
missing or empty means 0.3 (spec §3.6.2)
every ``required`` extension of the card is activated   -32008 ExtensionSupportRequiredError
in ``A2A-Extensions`` (spec §3.6.1, §3.3.4)
``params`` is an object that parses as the method's     -32602 InvalidParamsError (+ BadRequest
request message                                         field violations)
the operation itself                                    -32001 … -32007, -32602, -32603
======================================================  ======================================

JSON-RPC errors are ordinary responses: the HTTP status stays 200 (the spec sets none; a2a-sdk
does the same).

The dispatcher knows the operations only through the :class:`A2AHandler` protocol — eleven
``async`` methods taking validated request models — so this module imports no runtime: the
service (:class:`agentproto.a2a.service.A2AService`, which satisfies the protocol) and the HTTP
adapter (:mod:`agentproto.a2a.server`) depend on it, never the other way round. Any object with
those methods can be dispatched to, e.g. a stub in a test.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pydantic import ValidationError

from agentproto import limits
from agentproto.a2a.errors import (
    A2AError,
    ContentTypeNotSupportedError,
    ExtensionSupportRequiredError,
    InternalError,
    InvalidParamsError,
    InvalidRequestError,
    JSONParseError,
    MethodNotFoundError,
    ResourceExhaustedError,
    VersionNotSupportedError,
)
from agentproto.a2a.types import (
    PROTOCOL_VERSION,
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    ProtoModel,
    SendMessageRequest,
    SendMessageResponse,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
)

__all__ = [
    "A2AHandler",
    "ANONYMOUS",
    "ResourceExhaustedError",  # defined in agentproto.a2a.errors; importable here as before
    "CallerScope",
    "JSONRPCDispatcher",
    "METHODS",
    "V03_METHODS",
    "call_operation",
    "VERSION_HEADER",
    "JSON_MEDIA_TYPES",
    "EXTENSIONS_HEADER",
    "requested_version",
    "success",
    "success_json",
    "validation_error",
]

log = logging.getLogger(__name__)

VERSION_HEADER = "A2A-Version"
#: Request media types the JSON bindings accept (``application/a2a+json`` is the v1.0 one).
JSON_MEDIA_TYPES = ("application/json", "application/a2a+json")
EXTENSIONS_HEADER = "A2A-Extensions"


@dataclass(frozen=True)
class CallerScope:
    """Who is asking, and in which tenant: the boundary every task, context and push config
    lives in (spec §13.1: results MUST be scoped to the caller's authorization boundaries).

    ``tenant`` is the request's ``tenant`` field (``a2a.proto``: every request message has one;
    JSON-RPC ``params.tenant``, the REST path's ``/{tenant}/…`` prefix, the gRPC request field);
    ``subject`` is the authenticated caller (the bearer token's ``sub``), ``None`` without
    authentication. The spec leaves the authorization model to the agent (§7.5, §13.1); ours
    is: *the scope that created a task owns it*. Another subject, or the same subject in
    another tenant, is answered exactly as an unknown id is (TaskNotFound), never with data.
    (Named ``CallerScope`` because ``Scope`` already means an ASGI scope and an OAuth scope
    in this package.)
    """

    tenant: str = ""
    subject: str | None = None

    def __post_init__(self) -> None:
        if self.subject == "":
            raise ValueError("an authenticated subject must not be empty (None means anonymous)")

    @property
    def owner(self) -> str:
        """The subject as stored (``""`` for the anonymous caller)."""
        return self.subject or ""

    def in_tenant(self, tenant: str) -> CallerScope:
        """This caller in ``tenant`` (a request's ``tenant`` field fills an empty one)."""
        return self if tenant == self.tenant else replace(self, tenant=tenant)


#: The caller of default (unauthenticated) mode, in the default tenant.
ANONYMOUS = CallerScope()


@dataclass(frozen=True)
class _Method:
    params: type[ProtoModel]
    #: The :class:`A2AHandler` method that answers it (``handler(request, scope)``).
    handler: str
    streaming: bool = False


#: The eleven A2A v1.0 operations (spec §5.3): the message a request parses as and the handler
#: method that answers it — one table for the three bindings (JSON-RPC method names, REST
#: routes and gRPC RPCs are the same operations, :func:`call_operation`).
METHODS: dict[str, _Method] = {
    "SendMessage": _Method(SendMessageRequest, "send_message"),
    "SendStreamingMessage": _Method(SendMessageRequest, "send_streaming_message", streaming=True),
    "GetTask": _Method(GetTaskRequest, "get_task"),
    "ListTasks": _Method(ListTasksRequest, "list_tasks"),
    "CancelTask": _Method(CancelTaskRequest, "cancel_task"),
    "SubscribeToTask": _Method(SubscribeToTaskRequest, "subscribe", streaming=True),
    "CreateTaskPushNotificationConfig": _Method(TaskPushNotificationConfig, "create_push_config"),
    "GetTaskPushNotificationConfig": _Method(GetTaskPushNotificationConfigRequest, "get_push_config"),
    "ListTaskPushNotificationConfigs": _Method(ListTaskPushNotificationConfigsRequest, "list_push_configs"),
    "DeleteTaskPushNotificationConfig": _Method(
        DeleteTaskPushNotificationConfigRequest, "delete_push_config"
    ),
    "GetExtendedAgentCard": _Method(GetExtendedAgentCardRequest, "extended_card"),
}


async def call_operation(
    handler: A2AHandler, operation: str, request: ProtoModel, scope: CallerScope, base_url: str
) -> Any:
    """Run ``operation`` on ``handler`` with its parsed ``request`` in the caller's ``scope``.

    The answer is the operation's response message: a model (``SendMessage``'s task or message
    wrapped in a ``SendMessageResponse``), ``None`` for the delete (``google.protobuf.Empty``),
    or, for the two streaming operations, the async iterator of ``StreamResponse`` events.
    ``base_url`` is what the extended card's interface URLs are built from."""
    if operation == "GetExtendedAgentCard":
        return await handler.extended_card(base_url, scope)
    out = await getattr(handler, METHODS[operation].handler)(request, scope)
    if operation == "SendMessage":
        return SendMessageResponse(task=out) if isinstance(out, Task) else SendMessageResponse(message=out)
    return out


#: v0.3 method names → their v1.0 successor, to make the -32601 message helpful.
V03_METHODS: dict[str, str] = {
    "message/send": "SendMessage",
    "message/stream": "SendStreamingMessage",
    "tasks/get": "GetTask",
    "tasks/cancel": "CancelTask",
    "tasks/resubscribe": "SubscribeToTask",
    "tasks/pushNotificationConfig/set": "CreateTaskPushNotificationConfig",
    "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfig",
    "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigs",
    "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfig",
    "agent/getAuthenticatedExtendedCard": "GetExtendedAgentCard",
}


def success(request_id: str | int | None, result: Any) -> dict[str, Any]:
    """A JSON-RPC success response."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def success_json(request_id: str | int | None, result: ProtoModel) -> bytes:
    """:func:`success` as compact JSON text, the result serialized in one pass (no dict of it).

    >>> success_json(7, GetTaskRequest(id="t1"))
    b'{"jsonrpc":"2.0","id":7,"result":{"id":"t1"}}'
    """
    rid = json.dumps(request_id, ensure_ascii=False).encode()
    return b'{"jsonrpc":"2.0","id":' + rid + b',"result":' + result.to_json().encode() + b"}"


def validation_error(exc: ValidationError, prefix: str = "params") -> InvalidParamsError:
    """Turn a pydantic error into -32602 with one BadRequest field violation per problem."""
    violations = []
    for e in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in e["loc"] if p != "__root__")
        field = f"{prefix}.{loc}" if loc else prefix
        violations.append((field, e["msg"].removeprefix("Value error, ")))
    summary = "; ".join(f"{f}: {d}" for f, d in violations[:3])
    return InvalidParamsError(f"Invalid parameters: {summary}", violations=violations)


def _major_minor(version: str) -> tuple[int, int] | None:
    parts = version.strip().split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        return None


def requested_version(headers: Mapping[str, str], query: Mapping[str, str] | None = None) -> str:
    """The ``A2A-Version`` a request asks for; empty or missing means ``"0.3"`` (spec §3.6.2)."""
    value = ""
    for k, v in headers.items():
        if k.lower() == "a2a-version":
            value = v
            break
    if not value and query:
        for k, v in query.items():
            if k.lower() == "a2a-version":
                value = v
                break
    return value.strip() or "0.3"


class A2AHandler(Protocol):
    """What the dispatcher needs of the side that runs the operations (spec §3.1).

    Each method takes the method's validated request model and the caller's
    :class:`CallerScope`; errors are raised as :class:`~agentproto.a2a.errors.A2AError`
    subclasses. The two streaming methods validate when awaited (so an unknown task is a
    plain error response) and return the event iterator.
    """

    def required_extensions(self) -> list[str]: ...

    async def send_message(self, req: SendMessageRequest, scope: CallerScope = ...) -> Task | Message: ...

    async def send_streaming_message(
        self, req: SendMessageRequest, scope: CallerScope = ...
    ) -> AsyncIterator[StreamResponse]: ...

    async def get_task(self, req: GetTaskRequest, scope: CallerScope = ...) -> Task: ...

    async def list_tasks(self, req: ListTasksRequest, scope: CallerScope = ...) -> ListTasksResponse: ...

    async def cancel_task(self, req: CancelTaskRequest, scope: CallerScope = ...) -> Task: ...

    async def subscribe(
        self, req: SubscribeToTaskRequest, scope: CallerScope = ...
    ) -> AsyncIterator[StreamResponse]: ...

    async def create_push_config(
        self, cfg: TaskPushNotificationConfig, scope: CallerScope = ...
    ) -> TaskPushNotificationConfig: ...

    async def get_push_config(
        self, req: GetTaskPushNotificationConfigRequest, scope: CallerScope = ...
    ) -> TaskPushNotificationConfig: ...

    async def list_push_configs(
        self, req: ListTaskPushNotificationConfigsRequest, scope: CallerScope = ...
    ) -> ListTaskPushNotificationConfigsResponse: ...

    async def delete_push_config(
        self, req: DeleteTaskPushNotificationConfigRequest, scope: CallerScope = ...
    ) -> None: ...

    async def extended_card(self, base_url: str = ..., scope: CallerScope = ...) -> AgentCard: ...


class JSONRPCDispatcher:
    """Routes JSON-RPC requests to an :class:`A2AHandler` (in the kit: ``A2AService``)."""

    def __init__(
        self,
        service: A2AHandler,
        *,
        supported_versions: tuple[str, ...] = (PROTOCOL_VERSION,),
        input_limits: limits.Limits = limits.DEFAULT_LIMITS,
    ) -> None:
        self.service = service
        self.limits = input_limits
        self.supported_versions = supported_versions
        self._supported = {_major_minor(v) for v in supported_versions}

    async def dispatch(
        self,
        body: bytes | str | Any,
        headers: Mapping[str, str] | None = None,
        *,
        query: Mapping[str, str] | None = None,
        base_url: str = "http://127.0.0.1",
        subject: str | None = None,
        encoded: bool = False,
    ) -> dict[str, Any] | bytes | AsyncIterator[dict[str, Any]] | None:
        """Answer one request: a response dict, or an async iterator of them (streaming).
        With ``encoded``, a success answer carrying a message is its JSON text instead
        (:func:`success_json`, what an HTTP binding sends as it is).

        ``subject`` is the authenticated caller (``None``: anonymous); with the request's
        ``params.tenant`` it makes the :class:`CallerScope` the operation runs in.

        ``None`` means "send nothing back": the request was a notification (a valid request
        without an ``id`` member, JSON-RPC 2.0 §4.1); it is still carried out.
        """
        request_id: str | int | None = None
        notification = False
        try:
            self._check_content_type(headers or {})
            body = self._within_limits(body)
            request_id = self._request_id(body)
            method, params = self._envelope(body)
            notification = isinstance(body, dict) and "id" not in body
            spec = METHODS.get(method)
            if spec is None:
                hint = V03_METHODS.get(method)
                raise MethodNotFoundError(
                    f"Method not found: {method!r}"
                    + (f" (A2A v0.3 name; v1.0 calls it {hint!r})" if hint else ""),
                    metadata={"method": method},
                )
            self._check_version(headers or {}, query)
            self._check_extensions(headers or {})
            try:
                request = spec.params.model_validate(params)
            except ValidationError as exc:
                raise validation_error(exc) from None
            scope = CallerScope(str(getattr(request, "tenant", "") or ""), subject)
            result = await call_operation(self.service, method, request, scope, base_url)
        except A2AError as exc:
            return None if notification else exc.response(request_id)
        except Exception as exc:
            log.exception("internal error handling a JSON-RPC request")
            if notification:
                return None
            return InternalError(f"Internal error: {type(exc).__name__}").response(request_id)
        if notification:
            aclose = getattr(result, "aclose", None) if spec.streaming else None
            if aclose is not None:
                await aclose()
            return None
        if spec.streaming:
            return self._frames(request_id, result)
        if encoded and isinstance(result, ProtoModel):
            return success_json(request_id, result)
        if isinstance(result, ProtoModel):
            result = result.to_wire()
        return success(request_id, {} if result is None else result)

    # ------------------------------------------------------------------ envelope

    def _within_limits(self, body: Any) -> Any:
        """The one input boundary (:mod:`agentproto.limits`): parse and check size, depth,
        strings, integers and parts before any model sees the request. Not JSON → -32700;
        outside a limit in ``params`` → -32602 naming the field; elsewhere → -32600."""
        try:
            if isinstance(body, bytes | bytearray | str):
                body = limits.loads(body, self.limits)
            else:
                limits.check(body, self.limits)
            params = body.get("params") if isinstance(body, dict) else None
            if isinstance(params, dict):
                limits.check_parts(params.get("message"), self.limits, "$.params.message")
        except limits.LimitError as exc:
            if exc.kind == "json":
                raise JSONParseError(f"Invalid JSON payload: {exc.message}") from None
            if exc.path.startswith("$.params"):
                field = exc.path.removeprefix("$.")
                raise InvalidParamsError(
                    f"Invalid parameters: {exc.message}", violations=[(field, exc.message)]
                ) from None
            raise InvalidRequestError(f"Invalid request: {exc.message}") from None
        return body

    @staticmethod
    def _request_id(body: Any) -> str | int | None:
        if isinstance(body, dict):
            rid = body.get("id")
            if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
                return rid
        return None

    @staticmethod
    def _envelope(body: Any) -> tuple[str, dict[str, Any]]:
        if isinstance(body, list):
            raise InvalidRequestError("Batch requests are not supported by A2A")
        if not isinstance(body, dict):
            raise InvalidRequestError("A JSON-RPC request must be a JSON object")
        if body.get("jsonrpc") != "2.0":
            raise InvalidRequestError("Invalid request: 'jsonrpc' must be exactly \"2.0\"")
        rid = body.get("id")
        if rid is not None and (isinstance(rid, bool) or not isinstance(rid, str | int)):
            raise InvalidRequestError("Invalid request: 'id' must be a string, a number or null")
        method = body.get("method")
        if not isinstance(method, str) or not method:
            raise InvalidRequestError("Invalid request: 'method' must be a non-empty string")
        params = body.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise InvalidParamsError(
                "A2A 'params' must be an object (the request message)",
                violations=[("params", "must be an object")],
            )
        return method, params

    @staticmethod
    def _check_content_type(headers: Mapping[str, str]) -> None:
        """A body declared as something other than JSON is refused with -32005 (spec §9.1)."""
        ctype = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
        media = ctype.split(";")[0].strip().lower()
        if media and media not in JSON_MEDIA_TYPES:
            raise ContentTypeNotSupportedError(
                f"Content-Type {media!r} is not supported; send application/json",
                metadata={"contentType": media},
            )

    def _check_version(self, headers: Mapping[str, str], query: Mapping[str, str] | None) -> None:
        asked = requested_version(headers, query)
        if _major_minor(asked) not in self._supported:
            served = ", ".join(self.supported_versions)
            raise VersionNotSupportedError(
                f"A2A version '{asked}' is not supported by this server; supported: {served}"
                + (" (no A2A-Version header means 0.3, spec §3.6.2)" if asked == "0.3" else ""),
                metadata={"requestedVersion": asked, "supportedVersions": served},
            )

    def _check_extensions(self, headers: Mapping[str, str]) -> None:
        required = self.service.required_extensions()
        if not required:
            return
        active: set[str] = set()
        for k, v in headers.items():
            if k.lower() == "a2a-extensions":
                active |= {u.strip() for u in v.split(",") if u.strip()}
        missing = [u for u in required if u not in active]
        if missing:
            raise ExtensionSupportRequiredError(
                f"this agent requires the extension(s) {', '.join(missing)}; "
                f"list them in the {EXTENSIONS_HEADER} header",
                metadata={"extensions": ",".join(missing)},
            )

    # ------------------------------------------------------------------ streams

    async def _frames(
        self, request_id: str | int | None, events: AsyncIterator[StreamResponse]
    ) -> AsyncIterator[dict[str, Any]]:
        """Each StreamResponse as a full JSON-RPC response; a failure ends with an error."""
        try:
            async for event in events:
                yield success(request_id, event.to_wire())
        except A2AError as exc:
            yield exc.response(request_id)
        except Exception as exc:
            log.exception("internal error in a JSON-RPC stream")
            yield InternalError(f"Internal error: {type(exc).__name__}").response(request_id)
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()
