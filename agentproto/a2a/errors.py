"""The A2A error hierarchy and its JSON-RPC wire form.

Every error a server can answer with is one class here, carrying its JSON-RPC ``code``, its
``google.rpc.ErrorInfo`` ``reason`` and a default message (spec §3.3.2 "Error Handling",
§5.4 "Error Code Mappings", §9.5 "JSON-RPC error handling"). The same classes are raised by the
client when a server answers with an error, so callers catch one hierarchy on both sides::

    A2AError
    ├── JSONRPCProtocolError          the five standard JSON-RPC 2.0 codes
    │   ├── JSONParseError            -32700
    │   ├── InvalidRequestError       -32600
    │   ├── MethodNotFoundError       -32601
    │   ├── InvalidParamsError        -32602
    │   └── InternalError             -32603
    │       └── ResourceExhaustedError  -32603, reason RESOURCE_EXHAUSTED (a limit of this server)
    ├── TaskNotFoundError             -32001
    ├── TaskNotCancelableError        -32002
    ├── PushNotificationNotSupportedError -32003
    ├── UnsupportedOperationError     -32004
    ├── ContentTypeNotSupportedError  -32005
    ├── InvalidAgentResponseError     -32006
    ├── ExtendedAgentCardNotConfiguredError -32007
    ├── ExtensionSupportRequiredError -32008
    ├── VersionNotSupportedError      -32009
    └── A2AClientError                no code: the call got no A2A answer (client side,
        │                             :mod:`~agentproto.a2a._client_core`)
        ├── A2AConnectionError        the agent could not be reached
        ├── A2AHTTPError              an HTTP error that carries no A2A error
        ├── A2ATimeoutError           the time budget ran out (NoProgressError: nothing moved)
        └── InvalidResponseError      the answer is not a valid A2A response

``A2AError`` itself sits under the library's root :class:`agentproto.errors.AgentProtoError`.
``except A2AError`` therefore means "the A2A call did not work", a refused connection
included; ``except A2AClientError`` picks out the calls that never got an A2A answer. A client
error has no code of its own on the wire: if one escapes from a server handler it keeps the
base class's ``-32603`` / HTTP 500 and is answered as an internal error.

On the wire (JSON-RPC binding, spec §9.5) ``error.data`` is an *array* of ProtoJSON ``Any``
objects. The first is always a ``google.rpc.ErrorInfo``::

    {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
     "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org",
     "metadata": {"taskId": "t-1"}}

``reason`` is the error's name in UPPER_SNAKE_CASE without the ``Error`` suffix, ``domain`` is
``a2a-protocol.org`` and ``metadata`` is a ``map<string, string>`` (so every value is a string).
Parameter validation errors add a ``google.rpc.BadRequest`` with one ``fieldViolations`` entry per
bad field. v1.0.0 made ErrorInfo a MUST in JSON-RPC ``data``; v1.0.1 relaxed it to SHOULD — we
always send it.

The same error on the other two bindings (spec §5.4, §10.6, §11.6): :data:`GRPC_STATUS` gives
the gRPC status, ``http_status`` the HTTP status, and :func:`status_json` the HTTP+JSON body
(a ``google.rpc.Status`` whose ``status`` is the gRPC status name). §5.4's table covers the
A2A errors; the five JSON-RPC codes get the closest gRPC status, and
:class:`ResourceExhaustedError` — which no table of the spec has — gets gRPC's
``RESOURCE_EXHAUSTED`` and HTTP's ``429``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from agentproto.errors import AgentProtoError

__all__ = [
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
    "UnknownA2AError",
    "ERRORS_BY_CODE",
    "ERROR_INFO_TYPE",
    "BAD_REQUEST_TYPE",
    "ERROR_DOMAIN",
    "error_from_wire",
    "FieldViolation",
    "GRPC_STATUS",
    "ERRORS_BY_REASON",
    "grpc_status_name",
    "status_json",
    "error_from_details",
]

ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
ERROR_DOMAIN = "a2a-protocol.org"

#: (field path, description) — one entry of a ``google.rpc.BadRequest``.
FieldViolation = tuple[str, str]


class A2AError(AgentProtoError):
    """Base of every A2A protocol error.

    ``metadata`` becomes the ErrorInfo ``metadata`` (values stringified: it is a
    ``map<string, string>``); ``violations`` become a ``google.rpc.BadRequest`` detail.
    """

    code: int = -32603
    reason: ClassVar[str] = "INTERNAL"
    default_message: ClassVar[str] = "Internal error"
    #: HTTP status of the HTTP+JSON binding (spec §5.4, v1.0.1 column), used by :mod:`~agentproto.a2a._rest`.
    http_status: int = 500

    def __init__(
        self,
        message: str | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
        violations: Iterable[FieldViolation] = (),
        details: list[dict[str, Any]] | None = None,
    ) -> None:
        self.message = message or self.default_message
        self.metadata = {str(k): str(v) for k, v in (metadata or {}).items()}
        self.violations = list(violations)
        #: Details exactly as received (client side); ``None`` when built locally.
        self.received_details = details
        super().__init__(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r})"

    # -- wire form ---------------------------------------------------------------------------

    def details(self) -> list[dict[str, Any]]:
        """``error.data``: ErrorInfo first, then BadRequest if there are field violations."""
        if self.received_details is not None:
            return self.received_details
        out: list[dict[str, Any]] = [
            {
                "@type": ERROR_INFO_TYPE,
                "reason": self.reason,
                "domain": ERROR_DOMAIN,
                "metadata": dict(self.metadata),
            }
        ]
        if self.violations:
            out.append(
                {
                    "@type": BAD_REQUEST_TYPE,
                    "fieldViolations": [{"field": f, "description": d} for f, d in self.violations],
                }
            )
        return out

    def to_jsonrpc(self) -> dict[str, Any]:
        """The JSON-RPC ``error`` member: ``{"code", "message", "data"}``."""
        return {"code": self.code, "message": self.message, "data": self.details()}

    def response(self, request_id: str | int | None) -> dict[str, Any]:
        """A whole JSON-RPC error response for ``request_id``."""
        return {"jsonrpc": "2.0", "id": request_id, "error": self.to_jsonrpc()}


# --------------------------------------------------------------------------- JSON-RPC 2.0


class JSONRPCProtocolError(A2AError):
    """One of the five codes JSON-RPC 2.0 itself defines (jsonrpc.org §5.1)."""


class JSONParseError(JSONRPCProtocolError):
    code = -32700
    reason = "JSON_PARSE"
    default_message = "Invalid JSON payload"
    http_status = 400


class InvalidRequestError(JSONRPCProtocolError):
    code = -32600
    reason = "INVALID_REQUEST"
    default_message = "Request payload validation error"
    http_status = 400


class MethodNotFoundError(JSONRPCProtocolError):
    code = -32601
    reason = "METHOD_NOT_FOUND"
    default_message = "Method not found"
    http_status = 404


class InvalidParamsError(JSONRPCProtocolError):
    code = -32602
    reason = "INVALID_PARAMS"
    default_message = "Invalid parameters"
    http_status = 400


class InternalError(JSONRPCProtocolError):
    code = -32603
    reason = "INTERNAL"
    default_message = "Internal error"
    http_status = 500


class ResourceExhaustedError(InternalError):
    """A per-caller or per-task limit of this server is reached (too many open streams or
    tasks), or a stream's consumer fell too far behind and was dropped.

    A2A defines no error of its own for this: §3.3.2 files "rate limit exceeded" under
    *system errors* (JSON-RPC ``-32603``, "Servers MAY include retry guidance (e.g.,
    Retry-After header in HTTP)"), so on JSON-RPC it is ``-32603`` with the ErrorInfo
    ``reason`` ``RESOURCE_EXHAUSTED`` and ``retryAfterSeconds`` in its metadata; over
    HTTP+JSON it is ``429 Too Many Requests`` with a ``Retry-After`` header and the status
    ``RESOURCE_EXHAUSTED`` in the body; over gRPC the status ``RESOURCE_EXHAUSTED`` (gRPC's code
    for "a per-user quota … has been exhausted") — never a 5xx or ``INTERNAL``.

    ``retry_after_s`` is how long the client should wait; rebuilt from a wire error (client
    side), it is read back from the ErrorInfo's ``retryAfterSeconds``.
    """

    reason = "RESOURCE_EXHAUSTED"
    default_message = "Resource exhausted"
    http_status = 429
    #: What the client is told to wait when the raiser names no time.
    default_retry_after_s: ClassVar[int] = 5

    def __init__(
        self,
        message: str | None = None,
        *,
        retry_after_s: int | None = None,
        metadata: Mapping[str, Any] | None = None,
        violations: Iterable[FieldViolation] = (),
        details: list[dict[str, Any]] | None = None,
    ) -> None:
        meta = dict(metadata or {})
        if retry_after_s is None:
            retry_after_s = _seconds(meta.get("retryAfterSeconds"), self.default_retry_after_s)
        meta["retryAfterSeconds"] = retry_after_s
        super().__init__(message, metadata=meta, violations=violations, details=details)
        self.retry_after_s = retry_after_s


def _seconds(value: Any, default: int) -> int:
    """A whole number of seconds >= 0 from a wire value (a string in ErrorInfo metadata)."""
    try:
        seconds = int(str(value))
    except ValueError:
        return default
    return seconds if seconds >= 0 else default


# --------------------------------------------------------------------------- A2A (spec §3.3.2)


class TaskNotFoundError(A2AError):
    """The task id is unknown — or the caller may not see it (spec §3.3.2: look alike)."""

    code = -32001
    reason = "TASK_NOT_FOUND"
    default_message = "Task not found"
    http_status = 404


class TaskNotCancelableError(A2AError):
    """Cancel of a task that is already terminal (spec §3.1.5)."""

    code = -32002
    reason = "TASK_NOT_CANCELABLE"
    default_message = "Task cannot be canceled"
    http_status = 400


class PushNotificationNotSupportedError(A2AError):
    """A push-config operation on an agent without ``capabilities.pushNotifications`` (§3.3.4)."""

    code = -32003
    reason = "PUSH_NOTIFICATION_NOT_SUPPORTED"
    default_message = "Push notifications are not supported"
    http_status = 400


class UnsupportedOperationError(A2AError):
    """Not supported here: a message or subscribe to a terminal task, streaming without the
    capability, … (spec §3.1.1, §3.1.6, §3.3.4)."""

    code = -32004
    reason = "UNSUPPORTED_OPERATION"
    default_message = "This operation is not supported"
    http_status = 400


class ContentTypeNotSupportedError(A2AError):
    """A part's media type the agent does not accept (spec §3.1.1)."""

    code = -32005
    reason = "CONTENT_TYPE_NOT_SUPPORTED"
    default_message = "Incompatible content types"
    http_status = 400


class InvalidAgentResponseError(A2AError):
    """The agent produced something the protocol forbids (an illegal transition, a Message
    after a Task, events after a terminal state …)."""

    code = -32006
    reason = "INVALID_AGENT_RESPONSE"
    default_message = "Invalid agent response"
    http_status = 500


class ExtendedAgentCardNotConfiguredError(A2AError):
    """``capabilities.extendedAgentCard`` is declared but no extended card is configured."""

    code = -32007
    reason = "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
    default_message = "Extended agent card is not configured"
    http_status = 400


class ExtensionSupportRequiredError(A2AError):
    """The card declares a ``required`` extension the client did not activate (§3.3.4)."""

    code = -32008
    reason = "EXTENSION_SUPPORT_REQUIRED"
    default_message = "Extension support required"
    http_status = 400


class VersionNotSupportedError(A2AError):
    """The ``A2A-Version`` asked for is not served here (missing header = 0.3, spec §3.6.2)."""

    code = -32009
    reason = "VERSION_NOT_SUPPORTED"
    default_message = "Version not supported"
    http_status = 400


#: code → class, for turning a wire error back into an exception.
ERRORS_BY_CODE: dict[int, type[A2AError]] = {
    cls.code: cls
    for cls in (
        JSONParseError,
        InvalidRequestError,
        MethodNotFoundError,
        InvalidParamsError,
        InternalError,
        TaskNotFoundError,
        TaskNotCancelableError,
        PushNotificationNotSupportedError,
        UnsupportedOperationError,
        ContentTypeNotSupportedError,
        InvalidAgentResponseError,
        ExtendedAgentCardNotConfiguredError,
        ExtensionSupportRequiredError,
        VersionNotSupportedError,
    )
}


class UnknownA2AError(A2AError):
    """A server error whose code this package does not know (kept verbatim)."""

    def __init__(self, code: int, message: str, details: list[dict[str, Any]] | None) -> None:
        super().__init__(message, details=details)
        self.code = code  # instance-level code for unknown errors


def error_from_wire(error: Mapping[str, Any]) -> A2AError:
    """Rebuild the typed exception from a JSON-RPC ``error`` object (client side)."""
    code = error.get("code")
    message = str(error.get("message") or "")
    raw = error.get("data")
    details = raw if isinstance(raw, list) else None
    metadata: dict[str, Any] = {}
    for d in details or []:
        if isinstance(d, dict) and d.get("@type") == ERROR_INFO_TYPE:
            metadata = dict(d.get("metadata") or {})
            break
    cls = ERRORS_BY_CODE.get(code) if isinstance(code, int) else None
    if cls is None:
        return UnknownA2AError(code if isinstance(code, int) else 0, message, details)
    refined = _REFINED_BY_REASON.get(str(reason)) if (reason := _reason(details)) else None
    if refined is not None and issubclass(refined, cls):  # e.g. -32603 RESOURCE_EXHAUSTED
        cls = refined
    exc = cls(message or None, metadata=metadata, details=details)
    return exc


def _reason(details: list[Any] | None) -> str | None:
    for d in details or []:
        if isinstance(d, dict) and d.get("@type") == ERROR_INFO_TYPE:
            return str(d.get("reason") or "") or None
    return None


# --------------------------------------------------------------------------- gRPC and REST

#: gRPC status of each error (spec §5.4); the JSON-RPC protocol errors get the closest code.
GRPC_STATUS: dict[type[A2AError], str] = {
    JSONParseError: "INVALID_ARGUMENT",
    InvalidRequestError: "INVALID_ARGUMENT",
    MethodNotFoundError: "UNIMPLEMENTED",
    InvalidParamsError: "INVALID_ARGUMENT",
    InternalError: "INTERNAL",
    TaskNotFoundError: "NOT_FOUND",
    TaskNotCancelableError: "FAILED_PRECONDITION",
    PushNotificationNotSupportedError: "FAILED_PRECONDITION",
    UnsupportedOperationError: "FAILED_PRECONDITION",
    ContentTypeNotSupportedError: "INVALID_ARGUMENT",
    InvalidAgentResponseError: "INTERNAL",
    ExtendedAgentCardNotConfiguredError: "FAILED_PRECONDITION",
    ExtensionSupportRequiredError: "FAILED_PRECONDITION",
    VersionNotSupportedError: "FAILED_PRECONDITION",
    ResourceExhaustedError: "RESOURCE_EXHAUSTED",  # no A2A error; gRPC's code for a quota
}

#: ErrorInfo ``reason`` → class, for turning a REST or gRPC error back into an exception.
ERRORS_BY_REASON: dict[str, type[A2AError]] = {cls.reason: cls for cls in GRPC_STATUS}
#: Errors that share a JSON-RPC code with their base class, told apart by their reason.
_REFINED_BY_REASON: dict[str, type[A2AError]] = {ResourceExhaustedError.reason: ResourceExhaustedError}


def grpc_status_name(exc: A2AError) -> str:
    """The gRPC status code name (``NOT_FOUND`` …) the spec maps ``exc`` to (§5.4)."""
    for cls in type(exc).__mro__:
        if cls in GRPC_STATUS:
            return GRPC_STATUS[cls]
    return "UNKNOWN"


def status_json(exc: A2AError) -> dict[str, Any]:
    """The HTTP+JSON error body: a ``google.rpc.Status`` under ``error`` (spec §11.6)."""
    return {
        "error": {
            "code": exc.http_status,
            "status": grpc_status_name(exc),
            "message": exc.message,
            "details": exc.details(),
        }
    }


def error_from_details(
    message: str, details: list[dict[str, Any]] | None, fallback: type[A2AError] | None = None
) -> A2AError:
    """Rebuild the typed exception from a Status' message and details (by ErrorInfo reason)."""
    info = next((d for d in details or [] if isinstance(d, dict) and d.get("@type") == ERROR_INFO_TYPE), None)
    cls = ERRORS_BY_REASON.get(str(info.get("reason"))) if info else None
    cls = cls or fallback
    if cls is None:
        return UnknownA2AError(0, message, details)
    metadata = dict(info.get("metadata") or {}) if info else {}
    return cls(message or None, metadata=metadata, details=details)
