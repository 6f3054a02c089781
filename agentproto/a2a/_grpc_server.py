"""The gRPC binding of A2A (spec §10): a servicer over a2a-sdk's generated ``a2a_pb2_grpc``.

The servicer is a translator, nothing more. Each call turns the protobuf request into its
ProtoJSON form (:func:`agentproto.a2a._protojson.dump`, ``json_format.MessageToDict`` without
its cost), parses that as this kit's model, calls the same
:class:`~agentproto.a2a.jsonrpc.A2AHandler` the HTTP bindings call, and turns the model's
ProtoJSON back into the protobuf response (:func:`~agentproto.a2a._protojson.parse`, as
``ParseDict``). ProtoJSON is the one format all three bindings share, so no field is mapped by
hand.

* Service parameters come from gRPC metadata (``a2a-version``, ``a2a-extensions``, spec §10.2)
  and are checked exactly as on JSON-RPC and REST.
* Caller scope: the tenant is the request message's ``tenant`` field; the subject comes from
  ``authenticate(metadata)`` when the server is started with one (auth mode: the bearer token
  in the ``authorization`` metadata, checked exactly as over HTTP; a refusal ends the call with
  ``UNAUTHENTICATED``/``PERMISSION_DENIED`` and the RFC 6750 challenge in a ``www-authenticate``
  trailer, spec §7.4 "binding-specific error codes"). Without one every caller is anonymous.
* ``SendStreamingMessage`` and ``SubscribeToTask`` are server-streaming RPCs: one
  ``StreamResponse`` message per event.
* Errors end the call with the gRPC status of spec §5.4 (``NOT_FOUND``, ``FAILED_PRECONDITION``
  …; a limit of this server, ``ResourceExhaustedError``, is ``RESOURCE_EXHAUSTED``: the table
  :data:`agentproto.a2a.errors.GRPC_STATUS`); the full ``google.rpc.Status`` with its ErrorInfo
  (and BadRequest) details rides in the ``grpc-status-details-bin`` trailer, as gRPC's rich
  error model prescribes (§10.6).

:func:`start_grpc_server` starts a ``grpc.aio`` server on loopback in the *running* event loop —
the service's tasks and queues live there — and records its address in ``service.grpc_url``
so the Agent Card lists it. gRPC targets are ``host:port`` (no scheme), as gRPC clients expect.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

import grpc
from a2a.types import a2a_pb2 as pb
from a2a.types import a2a_pb2_grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message as PbMessage
from google.rpc import error_details_pb2, status_pb2
from pydantic import ValidationError

from agentproto import limits
from agentproto.a2a import _protojson as protojson
from agentproto.a2a.errors import (
    ERROR_INFO_TYPE,
    A2AError,
    InternalError,
    InvalidParamsError,
    grpc_status_name,
)
from agentproto.a2a.jsonrpc import (
    ANONYMOUS,
    METHODS,
    A2AHandler,
    CallerScope,
    JSONRPCDispatcher,
    call_operation,
    validation_error,
)
from agentproto.a2a.types import (
    ProtoModel,
    StreamResponse,
)
from agentproto.errors import AgentProtoError

__all__ = [
    "A2AGrpcServicer",
    "GrpcServer",
    "start_grpc_server",
    "to_proto",
    "from_proto",
    "GRPC_BINDING",
    "STATUS_DETAILS_KEY",
    "GrpcAuthError",
    "SERVER_OPTIONS",
]

log = logging.getLogger(__name__)

#: ``AgentInterface.protocolBinding`` of this binding (spec §5.3).
GRPC_BINDING = "GRPC"
#: The trailer that carries the serialized ``google.rpc.Status`` (gRPC rich error model).
STATUS_DETAILS_KEY = "grpc-status-details-bin"
_M = TypeVar("_M", bound=ProtoModel)
#: ``grpc.aio.ServicerContext`` (grpcio ships no type hints, so this is ``Any`` to mypy).
Context: TypeAlias = Any
_P = TypeVar("_P", bound=PbMessage)

#: Channel options of the server (F5, F6): the same 1 MB request budget as the HTTP bindings;
#: at most 100 concurrent streams on one connection; a connection lives at most one hour (then
#: GOAWAY, 60 s grace for calls in flight) and closes after 5 idle minutes; a client that has
#: not finished the HTTP/2 handshake within 5 s is dropped (slowloris on the gRPC port).
SERVER_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.max_receive_message_length", limits.MAX_BODY_BYTES),
    ("grpc.max_concurrent_streams", 100),
    ("grpc.max_connection_age_ms", 3_600_000),
    ("grpc.max_connection_age_grace_ms", 60_000),
    ("grpc.max_connection_idle_ms", 300_000),
    ("grpc.server_handshake_timeout_ms", 5_000),
)


class GrpcAuthError(AgentProtoError):
    """Raised by an ``authenticate`` hook to refuse a call: ``code`` is ``UNAUTHENTICATED``
    or ``PERMISSION_DENIED``; ``challenge`` goes out as a ``www-authenticate`` trailer."""

    def __init__(self, message: str, *, code: str = "UNAUTHENTICATED", challenge: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.challenge = challenge


#: ``authenticate(metadata) -> subject``; raises :class:`GrpcAuthError` to refuse the call. It
#: may also return the verified claims (an object with ``subject`` and ``expires_at``, e.g.
#: :class:`agentproto.security.tokens.Claims`): streams then end at the token's expiry.
Authenticate = Callable[[Mapping[str, str]], Any]

#: The challenge sent when a stream outlives its token (RFC 6750 §3.1 ``invalid_token``).
EXPIRED_CHALLENGE = (
    'Bearer realm="agentproto", error="invalid_token", error_description="the access token expired"'
)


def _bearer_expiry(metadata: Mapping[str, str]) -> float | None:
    """The ``exp`` claim (seconds) of the bearer token in ``metadata``, or None.

    Read only after ``authenticate`` has verified that very token (signature, audience,
    expiry), so the unverified decode here cannot be fooled; used when the hook returns only
    the subject."""
    header = metadata.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or token.count(".") != 2:
        return None
    segment = token.split(".")[1]
    try:
        payload = json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except (ValueError, TypeError):
        return None
    exp = payload.get("exp") if isinstance(payload, dict) else None
    return float(exp) if isinstance(exp, int | float) and not isinstance(exp, bool) else None


def from_proto(message: PbMessage, model: type[_M], bounds: limits.Limits = limits.DEFAULT_LIMITS) -> _M:
    """A protobuf message as this kit's model, through ProtoJSON — after the input limits
    JSON-RPC and REST apply (:mod:`agentproto.limits`): INVALID_ARGUMENT naming the field.
    A ``Struct`` number that JSON cannot carry (infinite or NaN: ProtoJSON refuses it) is
    INVALID_ARGUMENT too."""
    try:
        data = protojson.dump(message)
    except ValueError as exc:  # json_format: "Fail to serialize Infinity for Value.number_value"
        raise InvalidParamsError(
            f"Invalid parameters: {exc}", violations=[("request", "a number that JSON cannot carry")]
        ) from None
    try:
        limits.check(data, bounds)
        limits.check_parts(data.get("message"), bounds, path="$.message")
    except limits.LimitError as exc:
        field = exc.path.removeprefix("$").removeprefix(".") or "request"
        raise InvalidParamsError(
            f"Invalid parameters: {exc.message}", violations=[(f"request.{field}", exc.message)]
        ) from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, prefix="request") from None


def to_proto(obj: ProtoModel | dict[str, Any], message: type[_P]) -> _P:
    """This kit's model (or its ProtoJSON dict) as a protobuf message, through ProtoJSON."""
    out: _P = protojson.parse(obj.to_wire() if isinstance(obj, ProtoModel) else obj, message())
    return out


def rich_status(exc: A2AError) -> status_pb2.Status:
    """``exc`` as a ``google.rpc.Status`` with ErrorInfo and BadRequest details (spec §10.6)."""
    code = grpc.StatusCode[grpc_status_name(exc)]
    status = status_pb2.Status(code=code.value[0], message=exc.message)
    for detail in exc.details():
        packed = any_pb2.Any()
        if detail.get("@type") == ERROR_INFO_TYPE:
            packed.Pack(
                error_details_pb2.ErrorInfo(
                    reason=str(detail.get("reason", "")),
                    domain=str(detail.get("domain", "")),
                    metadata={str(k): str(v) for k, v in (detail.get("metadata") or {}).items()},
                )
            )
        elif "fieldViolations" in detail:
            packed.Pack(
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field=str(v.get("field", "")), description=str(v.get("description", ""))
                        )
                        for v in detail["fieldViolations"]
                    ]
                )
            )
        else:
            continue
        status.details.append(packed)
    return status


async def _abort(context: Context, exc: A2AError) -> None:
    status = rich_status(exc)
    context.set_trailing_metadata(((STATUS_DETAILS_KEY, status.SerializeToString()),))
    await context.abort(grpc.StatusCode[grpc_status_name(exc)], exc.message)


def _metadata(context: Context) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in context.invocation_metadata() or ():
        if isinstance(value, str):
            out[key.lower()] = value
    return out


def _response_type(name: str) -> type[PbMessage]:
    if name == "Empty":
        from google.protobuf import empty_pb2

        empty: type[PbMessage] = empty_pb2.Empty
        return empty
    message: type[PbMessage] = getattr(pb, name)
    return message


def _unary_rpc(operation: str, response: str) -> Callable[[Any, PbMessage, Context], Awaitable[Any]]:
    """A unary RPC of :class:`A2AGrpcServicer`: the request as the operation's model (within
    the input limits), the operation run in the caller's scope, its answer as ``response``."""
    model = METHODS[operation].params

    async def rpc(self: A2AGrpcServicer, request: PbMessage, context: Context) -> Any:
        async def run(subject: str | None) -> Any:
            out = await self._run(operation, from_proto(request, model, self.limits), subject)
            return to_proto(out if out is not None else {}, _response_type(response))

        return await self._unary(context, run)

    return rpc


def _streaming_rpc(operation: str) -> Callable[[Any, PbMessage, Context], AsyncIterator[pb.StreamResponse]]:
    """A server-streaming RPC of :class:`A2AGrpcServicer` (an async generator function)."""
    model = METHODS[operation].params

    async def rpc(
        self: A2AGrpcServicer, request: PbMessage, context: Context
    ) -> AsyncIterator[pb.StreamResponse]:
        async def start(subject: str | None) -> AsyncIterator[StreamResponse]:
            events: AsyncIterator[StreamResponse] = await self._run(
                operation, from_proto(request, model, self.limits), subject
            )
            return events

        async for item in self._streaming(context, start):
            yield item

    return rpc


class A2AGrpcServicer(a2a_pb2_grpc.A2AServiceServicer):
    """The eleven ``A2AService`` RPCs over one handler (the kit's :class:`A2AService`)."""

    def __init__(
        self,
        service: A2AHandler,
        *,
        base_url: str = "http://127.0.0.1",
        authenticate: Authenticate | None = None,
        input_limits: limits.Limits = limits.DEFAULT_LIMITS,
    ) -> None:
        self.service = service
        self.base_url = base_url
        self.authenticate = authenticate
        self.limits = input_limits
        self._checks = JSONRPCDispatcher(service)

    async def _run(self, operation: str, req: ProtoModel, subject: str | None) -> Any:
        scope = _scope(str(getattr(req, "tenant", "") or ""), subject)
        # the HTTP base URL the app serves on, once it has served (a client that found this
        # binding on the card fetched the card over HTTP); until then the configured one
        base = getattr(self.service, "http_base_url", None) or self.base_url
        return await call_operation(self.service, operation, req, scope, base)

    def _check(self, context: Context) -> str | None:
        """Authenticate (if configured), then the service parameters; returns the subject."""
        return self._check_until(context)[0]

    def _check_until(self, context: Context) -> tuple[str | None, float | None]:
        """:meth:`_check`, and when the caller's token expires (epoch seconds; None: never)."""
        md: Mapping[str, str] = _metadata(context)
        who = self.authenticate(md) if self.authenticate is not None else None
        expires: float | None = None
        if who is not None and not isinstance(who, str):  # verified claims
            exp = getattr(who, "expires_at", None)
            expires = float(exp) if isinstance(exp, int | float) else None
            who = getattr(who, "subject", None)
        elif who is not None:
            expires = _bearer_expiry(md)
        self._checks._check_version(md, None)
        self._checks._check_extensions(md)
        return who, expires

    @staticmethod
    async def _fail(context: Context, exc: Exception, where: str) -> None:
        """End the call with ``exc``: a refused token (with its challenge), an A2A error
        (with its rich status), anything else as an internal error (logged)."""
        if isinstance(exc, GrpcAuthError):
            if exc.challenge:
                context.set_trailing_metadata((("www-authenticate", exc.challenge),))
            await context.abort(grpc.StatusCode[exc.code], exc.message)
        elif isinstance(exc, A2AError):
            await _abort(context, exc)
        else:
            log.exception("internal error %s", where, exc_info=exc)
            await _abort(context, InternalError(f"Internal error: {type(exc).__name__}"))

    async def _unary(self, context: Context, call: Any) -> Any:
        try:
            subject = self._check(context)
            return await call(subject)
        except Exception as exc:
            await self._fail(context, exc, "handling a gRPC call")
        return None  # pragma: no cover - abort raises

    async def _streaming(self, context: Context, start: Any) -> AsyncIterator[pb.StreamResponse]:
        events: AsyncIterator[StreamResponse] | None = None
        try:
            subject, expires = self._check_until(context)
            events = await start(subject)
            while True:
                if expires is None:
                    event = await anext(events, None)
                else:  # F18: the stream ends when the token does (a wall-clock `exp`)
                    left = expires - time.time()
                    try:
                        if left <= 0:
                            raise TimeoutError
                        event = await asyncio.wait_for(anext(events, None), left)
                    except TimeoutError:
                        raise GrpcAuthError(
                            "the access token expired during the stream; get a new token and "
                            "SubscribeToTask again",
                            challenge=EXPIRED_CHALLENGE,
                        ) from None
                if event is None:
                    break
                yield to_proto(event, pb.StreamResponse)
        except Exception as exc:
            await self._fail(context, exc, "in a gRPC stream")
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

    # ------------------------------------------------------------------ the RPCs
    # Each is the same translation (protobuf → model → the operation → model → protobuf), so
    # each is made by one of the two makers above from the operation's name (its request
    # model and handler are those of JSON-RPC and REST: ``jsonrpc.METHODS``,
    # ``jsonrpc.call_operation``) and its protobuf answer (``Empty``: google.protobuf.Empty).
    # grpc.aio serves a server-streaming method by its being an async generator function,
    # which is what _streaming_rpc makes.

    SendMessage = _unary_rpc("SendMessage", "SendMessageResponse")
    SendStreamingMessage = _streaming_rpc("SendStreamingMessage")
    SubscribeToTask = _streaming_rpc("SubscribeToTask")
    GetTask = _unary_rpc("GetTask", "Task")
    ListTasks = _unary_rpc("ListTasks", "ListTasksResponse")
    CancelTask = _unary_rpc("CancelTask", "Task")
    CreateTaskPushNotificationConfig = _unary_rpc(
        "CreateTaskPushNotificationConfig", "TaskPushNotificationConfig"
    )
    GetTaskPushNotificationConfig = _unary_rpc("GetTaskPushNotificationConfig", "TaskPushNotificationConfig")
    ListTaskPushNotificationConfigs = _unary_rpc(
        "ListTaskPushNotificationConfigs", "ListTaskPushNotificationConfigsResponse"
    )
    DeleteTaskPushNotificationConfig = _unary_rpc("DeleteTaskPushNotificationConfig", "Empty")
    GetExtendedAgentCard = _unary_rpc("GetExtendedAgentCard", "AgentCard")


def _scope(tenant: str, subject: str | None) -> CallerScope:
    return CallerScope(tenant, subject) if tenant or subject else ANONYMOUS


@dataclass
class GrpcServer:
    """A running ``grpc.aio`` server: its ``host:port`` target and how to stop it."""

    server: grpc.aio.Server
    url: str

    async def stop(self, grace_s: float = 0.5) -> None:
        await self.server.stop(grace_s)


async def start_grpc_server(
    service: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    base_url: str = "http://127.0.0.1",
    authenticate: Authenticate | None = None,
    input_limits: limits.Limits = limits.DEFAULT_LIMITS,
    max_body_bytes: int = limits.MAX_BODY_BYTES,
) -> GrpcServer:
    """Serve ``service`` over gRPC on ``host:port`` (0: a free port) in the running loop.

    Sets ``service.grpc_url`` (if the service has that attribute) so its card lists the
    interface. The extended card's HTTP interfaces are built from ``service.http_base_url`` (set
    when the HTTP app serves), or ``base_url`` before that.
    ``authenticate`` (metadata → subject, or :class:`GrpcAuthError`) runs before every call.
    ``input_limits`` and ``max_body_bytes`` are the budget of one request, as over HTTP.
    """
    options = [
        (name, max_body_bytes if name == "grpc.max_receive_message_length" else value)
        for name, value in SERVER_OPTIONS
    ]
    server = grpc.aio.server(options=options)
    servicer = A2AGrpcServicer(
        service, base_url=base_url, authenticate=authenticate, input_limits=input_limits
    )
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    url = f"{host}:{bound}"
    if hasattr(service, "grpc_url"):
        service.grpc_url = url
    return GrpcServer(server, url)
