"""The HTTP+JSON/REST binding of A2A (spec §11), served by the same handler as JSON-RPC.

Every operation is a resource URL under the interface URL (spec §11.3, and the
``google.api.http`` annotations of ``a2a.proto``), optionally behind a tenant segment:

=========================================================  ==================================
request                                                    operation
=========================================================  ==================================
``POST [/{tenant}]/message:send``                          SendMessage
``POST [/{tenant}]/message:stream`` (SSE)                  SendStreamingMessage
``GET  [/{tenant}]/tasks/{id}``                            GetTask
``GET  [/{tenant}]/tasks``                                 ListTasks
``POST [/{tenant}]/tasks/{id}:cancel``                     CancelTask
``POST|GET [/{tenant}]/tasks/{id}:subscribe`` (SSE)        SubscribeToTask
``POST [/{tenant}]/tasks/{id}/pushNotificationConfigs``    CreateTaskPushNotificationConfig
``GET  [/{tenant}]/tasks/{id}/pushNotificationConfigs``    ListTaskPushNotificationConfigs
``GET|DELETE …/pushNotificationConfigs/{configId}``         Get/DeleteTaskPushNotificationConfig
``GET  [/{tenant}]/extendedAgentCard``                     GetExtendedAgentCard
=========================================================  ==================================

§11.3.2 says ``POST`` for ``:subscribe`` while the proto annotation says ``GET``; both are served.
A trailing slash is accepted and never redirected. GET and DELETE take their parameters from
the query string in camelCase (§11.5). Bodies are ProtoJSON; ``application/json`` and
``application/a2a+json`` are accepted (another request type is 415); answers are
``application/a2a+json`` when the client names that type, else ``application/json``.

Errors are a ``google.rpc.Status`` under ``error`` with the HTTP status of §5.4 and an ErrorInfo
detail (§11.6, :func:`agentproto.a2a.errors.status_json`). A limit of this server
(``ResourceExhaustedError``) is ``429`` with ``status: RESOURCE_EXHAUSTED`` and a ``Retry-After``
header (§3.3.2: servers MAY include retry guidance). A failure inside a stream is one
``event: error`` SSE frame carrying the same body, then the stream ends; so does a stream whose
client cannot take an event within :data:`SSE_SEND_TIMEOUT_S` (a client that stops reading
holds no buffers beyond one event), as on JSON-RPC. ``A2A-Version`` and
``A2A-Extensions`` are checked exactly as on JSON-RPC (header or query parameter).

Tenants: the ``/{tenant}/`` prefix is the request's ``tenant`` field (it wins over a ``tenant``
in the body), and with the authenticated subject (:func:`caller_subject`) it is the
:class:`~agentproto.a2a.jsonrpc.CallerScope` the operation runs in — a2a-sdk mounts the same
routes under ``/{tenant}`` and copies the path parameter into its call context likewise.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError
from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from agentproto import limits
from agentproto.a2a.errors import (
    A2AError,
    ContentTypeNotSupportedError,
    InternalError,
    InvalidParamsError,
    JSONParseError,
    MethodNotFoundError,
    ResourceExhaustedError,
    status_json,
)
from agentproto.a2a.jsonrpc import (
    METHODS,
    A2AHandler,
    CallerScope,
    JSONRPCDispatcher,
    call_operation,
    validation_error,
)
from agentproto.a2a.types import ProtoModel, StreamResponse
from agentproto.server.guard import socket_base_url

__all__ = [
    "RestBinding",
    "REST_PATH",
    "REST_MEDIA_TYPE",
    "HTTP_JSON_BINDING",
    "match_route",
    "answer_media_type",
    "error_response",
    "caller_subject",
    "SSE_SEND_TIMEOUT_S",
]

log = logging.getLogger(__name__)
_M = TypeVar("_M", bound=ProtoModel)

REST_PATH = "/a2a/rest"
REST_MEDIA_TYPE = "application/a2a+json"
#: ``AgentInterface.protocolBinding`` of this binding (spec §5.3).
HTTP_JSON_BINDING = "HTTP+JSON"
_JSON_TYPES = ("application/json", "application/a2a+json")
#: An SSE event the client's connection cannot take within this many seconds ends the stream,
#: as on JSON-RPC (``agentproto.a2a.server.SSE_SEND_TIMEOUT_S``, the same 30 s; F3).
SSE_SEND_TIMEOUT_S = 30.0

_T = r"(?:(?P<tenant>[^/]+)/)?"
_ID = r"(?P<id>[^/:]+)"
#: (HTTP methods, path regex relative to the interface URL, operation). First match wins.
_ROUTES: list[tuple[frozenset[str], re.Pattern[str], str]] = [
    (frozenset({"POST"}), re.compile(rf"^{_T}message:send$"), "SendMessage"),
    (frozenset({"POST"}), re.compile(rf"^{_T}message:stream$"), "SendStreamingMessage"),
    (frozenset({"POST"}), re.compile(rf"^{_T}tasks/{_ID}:cancel$"), "CancelTask"),
    (frozenset({"POST", "GET"}), re.compile(rf"^{_T}tasks/{_ID}:subscribe$"), "SubscribeToTask"),
    (
        frozenset({"POST"}),
        re.compile(rf"^{_T}tasks/{_ID}/pushNotificationConfigs$"),
        "CreateTaskPushNotificationConfig",
    ),
    (
        frozenset({"GET"}),
        re.compile(rf"^{_T}tasks/{_ID}/pushNotificationConfigs$"),
        "ListTaskPushNotificationConfigs",
    ),
    (
        frozenset({"GET"}),
        re.compile(rf"^{_T}tasks/{_ID}/pushNotificationConfigs/(?P<cid>[^/]+)$"),
        "GetTaskPushNotificationConfig",
    ),
    (
        frozenset({"DELETE"}),
        re.compile(rf"^{_T}tasks/{_ID}/pushNotificationConfigs/(?P<cid>[^/]+)$"),
        "DeleteTaskPushNotificationConfig",
    ),
    (frozenset({"GET"}), re.compile(rf"^{_T}tasks/{_ID}$"), "GetTask"),
    (frozenset({"GET"}), re.compile(rf"^{_T}tasks$"), "ListTasks"),
    (frozenset({"GET"}), re.compile(rf"^{_T}extendedAgentCard$"), "GetExtendedAgentCard"),
]


@dataclass(frozen=True)
class RouteMatch:
    """Which operation a REST request names, and the parameters its path carries."""

    operation: str
    tenant: str = ""
    task_id: str = ""
    config_id: str = ""


def match_route(method: str, path: str) -> RouteMatch:
    """The operation for ``method`` on ``path`` (relative to the interface URL).

    >>> match_route("POST", "acme/tasks/t1:cancel")
    RouteMatch(operation='CancelTask', tenant='acme', task_id='t1', config_id='')
    """
    path = path.strip("/")
    allowed = False
    for methods, pattern, operation in _ROUTES:
        m = pattern.match(path)
        if m is None:
            continue
        if method.upper() not in methods:
            allowed = True
            continue
        groups = m.groupdict()
        return RouteMatch(
            operation, groups.get("tenant") or "", groups.get("id") or "", groups.get("cid") or ""
        )
    why = "method not allowed on" if allowed else "no A2A operation at"
    raise MethodNotFoundError(
        f"{why} {method.upper()} /{path}", metadata={"method": method.upper(), "path": "/" + path}
    )


_INT_FIELDS = {"historyLength", "pageSize"}
_BOOL_FIELDS = {"includeArtifacts"}


def _query_params(query: Mapping[str, str]) -> dict[str, Any]:
    """Query parameters (camelCase, §11.5) as a ProtoJSON object; service params left out."""
    out: dict[str, Any] = {}
    for key, value in query.items():
        if key.lower() in ("a2a-version", "a2a-extensions"):
            continue
        if key in _INT_FIELDS:
            try:
                out[key] = int(value)
            except ValueError:
                raise InvalidParamsError(
                    f"{key} must be an integer", violations=[(key, "must be an integer")]
                ) from None
        elif key in _BOOL_FIELDS:
            if value.lower() not in ("true", "false"):
                raise InvalidParamsError(
                    f"{key} must be true or false", violations=[(key, "must be true or false")]
                )
            out[key] = value.lower() == "true"
        else:
            out[key] = value
    return out


def _within_limits(value: bytes | dict[str, Any], bounds: limits.Limits = limits.DEFAULT_LIMITS) -> Any:
    """The binding's one input boundary, the same as JSON-RPC's (:mod:`agentproto.limits`): a
    body (bytes) is parsed and checked, a dict of parameters checked, before any model sees it.
    Not JSON → JSONParseError; outside a limit → InvalidParams (HTTP 400) naming the field."""
    try:
        parsed = limits.loads(value, bounds) if isinstance(value, bytes) else value
        if not isinstance(value, bytes):
            limits.check(parsed, bounds)
        if isinstance(parsed, dict):
            limits.check_parts(parsed.get("message"), bounds, path="$.message")
    except limits.LimitError as exc:
        if exc.kind == "json":
            raise JSONParseError(f"Invalid JSON payload: {exc.message}") from None
        field = exc.path.removeprefix("$").removeprefix(".") or "body"
        raise InvalidParamsError(
            f"Invalid parameters: {exc.message}", violations=[(field, exc.message)]
        ) from None
    return parsed


def answer_media_type(headers: Mapping[str, str]) -> str:
    """``application/a2a+json`` for a client that names it (Content-Type or Accept), else
    ``application/json``: v1.0.1 recommends the former (§11.1), v1.0.0 required the latter."""
    said = (headers.get("content-type", "") + "," + headers.get("accept", "")).lower()
    return REST_MEDIA_TYPE if REST_MEDIA_TYPE in said else "application/json"


def _response(body: dict[str, Any], status: int = 200, media_type: str = REST_MEDIA_TYPE) -> Response:
    return Response(
        json.dumps(body, ensure_ascii=False, separators=(",", ":")), status_code=status, media_type=media_type
    )


def error_response(exc: A2AError, media_type: str = REST_MEDIA_TYPE) -> Response:
    """An A2A error as the HTTP+JSON binding answers it (spec §11.6); a 429 for a limit of
    this server says when to come back (``Retry-After``, RFC 9110 §10.2.3)."""
    response = _response(status_json(exc), exc.http_status, media_type)
    if isinstance(exc, ResourceExhaustedError):
        response.headers["Retry-After"] = str(exc.retry_after_s)
    return response


def caller_subject(asgi_scope: Mapping[str, Any]) -> str | None:
    """The authenticated subject an authentication layer in front left on the request:
    ``scope["state"]["claims"].subject`` (what :class:`agentproto.security.serving.BearerAuth`
    sets), else ``scope["state"]["a2a_subject"]``; ``None`` — the anonymous caller — if neither.
    Verified claims without a subject raise ``ValueError`` (answered as an internal error):
    they must never pass for the anonymous caller. (This package may not import
    :mod:`agentproto.security`, hence the duck typing.)"""
    state = asgi_scope.get("state") or {}
    claims = state.get("claims")
    subject = getattr(claims, "subject", None) if claims is not None else state.get("a2a_subject")
    if subject is None and claims is None:
        return None
    if not isinstance(subject, str) or not subject:  # verified, but names nobody: fail closed
        raise ValueError("the authenticated caller has no subject")
    return subject


class _RequestMediaTypeError(ContentTypeNotSupportedError):
    """The request's own ``Content-Type`` is not JSON: HTTP's 415 (RFC 9110 §15.5.16).

    A *part* whose media type the agent does not take stays a 400 (spec §5.4, v1.0.1)."""

    http_status = 415


class RestBinding:
    """The REST routes of one :class:`~agentproto.a2a.jsonrpc.A2AHandler`, at ``path``.

    Version and extension checks are shared with :class:`JSONRPCDispatcher` so both bindings
    refuse exactly the same requests.
    """

    def __init__(
        self,
        service: A2AHandler,
        *,
        path: str = REST_PATH,
        public_url: str | None = None,
        input_limits: limits.Limits = limits.DEFAULT_LIMITS,
    ) -> None:
        self.service = service
        self.limits = input_limits
        self.path = path.rstrip("/")
        self.public_url = public_url  # the card's base URL, as the JSON-RPC binding's
        self._checks = JSONRPCDispatcher(service)

    def routes(self) -> list[BaseRoute]:
        methods = ["GET", "POST", "DELETE"]
        return [Route(self.path + "/{rest:path}", self.handle, methods=methods, name="a2a_rest")]

    async def handle(self, request: Request) -> Response:
        media = answer_media_type(request.headers)
        # no query string, no query parameters: not parsed per request (as on JSON-RPC)
        query = request.query_params if request.scope.get("query_string") else None
        try:
            route = match_route(request.method, request.path_params.get("rest", ""))
            self._checks._check_version(request.headers, query)
            self._checks._check_extensions(request.headers)
            params = await self._params(request, route, query)
            base = socket_base_url(request.scope, self.public_url)  # never from Host
            scope = CallerScope(route.tenant, caller_subject(request.scope))
            return await self._call(route, params, base, media, scope)
        except A2AError as exc:
            return error_response(exc, media)
        except Exception as exc:
            log.exception("internal error handling a REST request")
            return error_response(InternalError(f"Internal error: {type(exc).__name__}"), media)

    async def _params(
        self, request: Request, route: RouteMatch, query: Mapping[str, str] | None
    ) -> dict[str, Any]:
        params: dict[str, Any] = _query_params(query) if query else {}
        from_query = bool(params)
        if request.method == "POST":
            raw = await request.body()
            # A declared non-JSON type is refused even without a body: a browser can send a
            # bodiless text/plain POST (a "simple" request, no CORS preflight) to cancel a task.
            ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype and ctype not in _JSON_TYPES:
                raise _RequestMediaTypeError(
                    f"request body must be application/a2a+json or application/json, not {ctype}",
                    metadata={"contentType": ctype},
                )
            if raw.strip():
                body = _within_limits(raw, self.limits)
                if not isinstance(body, dict):
                    raise InvalidParamsError(
                        "the request body must be a JSON object", violations=[("body", "must be an object")]
                    )
                params.update(body)
        if from_query:  # the query string too: the same boundary as JSON-RPC's. Without one,
            # ``params`` is the body that was just checked (or empty): checking it again is moot
            _within_limits(params, self.limits)
        if route.tenant:
            params["tenant"] = route.tenant
        if route.operation == "CreateTaskPushNotificationConfig":
            params["taskId"] = route.task_id
        elif route.operation in ("GetTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig"):
            params["taskId"], params["id"] = route.task_id, route.config_id
        elif route.operation == "ListTaskPushNotificationConfigs":
            params["taskId"] = route.task_id
        elif route.task_id:
            params["id"] = route.task_id
        return params

    async def _call(
        self, route: RouteMatch, params: dict[str, Any], base: str, media: str, scope: CallerScope
    ) -> Response:
        op = route.operation
        # the request parses as the model JSON-RPC parses for the same operation
        req = _parse(METHODS[op].params, {} if op == "GetExtendedAgentCard" else params)
        out = await call_operation(self.service, op, req, scope, base)
        if METHODS[op].streaming:
            return self._sse(out)
        return Response(out.to_json() if out is not None else "{}", media_type=media)

    @staticmethod
    def _sse(events: AsyncIterator[StreamResponse]) -> Response:
        async def frames() -> AsyncIterator[dict[str, str]]:
            try:
                async for event in events:
                    yield {"data": json.dumps(event.to_wire(), ensure_ascii=False, separators=(",", ":"))}
            except A2AError as exc:
                yield {"event": "error", "data": json.dumps(status_json(exc))}
            except Exception as exc:
                log.exception("internal error in a REST stream")
                err = InternalError(f"Internal error: {type(exc).__name__}")
                yield {"event": "error", "data": json.dumps(status_json(err))}
            finally:
                aclose = getattr(events, "aclose", None)
                if aclose is not None:
                    await aclose()

        return EventSourceResponse(frames(), ping=15, send_timeout=SSE_SEND_TIMEOUT_S)


def _parse(model: type[_M], params: dict[str, Any]) -> _M:
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        err = validation_error(exc, prefix="body")
        err.violations = [(f.removeprefix("body."), d) for f, d in err.violations]
        raise err from None
