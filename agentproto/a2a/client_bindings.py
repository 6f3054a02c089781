"""The kit's client on the other two bindings: HTTP+JSON/REST (spec §11) and gRPC (spec §10).

:class:`~agentproto.a2a.client.A2AClient` does every operation through two methods, ``call``
(one request, the raw ProtoJSON result) and ``call_stream`` (the ``StreamResponse`` events).
The classes here override only those two, so ``send``, ``stream``, ``wait``, polling and the
rest behave identically on every binding:

* :class:`RestA2AClient` maps each operation to its resource URL (the table in
  :mod:`agentproto.a2a._rest`), GET/DELETE parameters to the query string, and reads errors
  from the ``google.rpc.Status`` body by their ErrorInfo ``reason``;
* :class:`GrpcA2AClient` calls a2a-sdk's generated stub, converting through ProtoJSON, and reads
  errors from the ``grpc-status-details-bin`` trailer.

:func:`connect` fetches the card and picks the first interface (the card lists them in order
of preference, spec §8.3) whose binding the caller accepts — or the one binding it forces;
:meth:`~agentproto.a2a.client.SyncA2AClient.connect` is the same without ``await``. ``auth=``
(a bearer token or :class:`~agentproto.client_auth.ClientCredentials`) works alike on all three:
``Authorization: Bearer`` on HTTP, the ``authorization`` metadata on gRPC.

>>> client = await connect("http://127.0.0.1:8000", binding="HTTP+JSON", auth=token)  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any, NoReturn

import httpx

from agentproto.a2a._client_async import A2AClient, _deadline, _raise_timeout, _remaining
from agentproto.a2a._client_core import (
    A2AClientError,
    A2AConnectionError,
    A2AHTTPError,
    A2ATimeoutError,
    InvalidResponseError,
    _json,
    _offered,
)
from agentproto.a2a.card_cache import CardCache
from agentproto.a2a.errors import A2AError, error_from_details
from agentproto.a2a.types import JSONRPC_BINDING, PROTOCOL_VERSION, AgentCard, StreamResponse

__all__ = ["RestA2AClient", "GrpcA2AClient", "connect", "BINDINGS", "rest_request"]

#: The standard bindings in the kit's own order of preference, and their CLI names.
BINDINGS: dict[str, str] = {"jsonrpc": JSONRPC_BINDING, "rest": "HTTP+JSON", "grpc": "GRPC"}

#: operation → (HTTP method, path template); ``{x}`` is taken out of the params.
_REST: dict[str, tuple[str, str]] = {
    "SendMessage": ("POST", "/message:send"),
    "SendStreamingMessage": ("POST", "/message:stream"),
    "GetTask": ("GET", "/tasks/{id}"),
    "ListTasks": ("GET", "/tasks"),
    "CancelTask": ("POST", "/tasks/{id}:cancel"),
    "SubscribeToTask": ("POST", "/tasks/{id}:subscribe"),
    "CreateTaskPushNotificationConfig": ("POST", "/tasks/{taskId}/pushNotificationConfigs"),
    "GetTaskPushNotificationConfig": ("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}"),
    "ListTaskPushNotificationConfigs": ("GET", "/tasks/{taskId}/pushNotificationConfigs"),
    "DeleteTaskPushNotificationConfig": ("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}"),
    "GetExtendedAgentCard": ("GET", "/extendedAgentCard"),
}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def rest_request(
    method: str, params: dict[str, Any], tenant: str = ""
) -> tuple[str, str, dict[str, str], dict[str, Any] | None]:
    """(HTTP method, path, query, JSON body) of one operation on the REST binding.

    >>> rest_request("GetTask", {"id": "t1", "historyLength": 2}, tenant="acme")
    ('GET', '/acme/tasks/t1', {'historyLength': '2'}, None)
    """
    if method not in _REST:
        raise A2AClientError(f"no REST route for {method!r}")
    verb, template = _REST[method]
    rest = dict(params)
    tenant = str(rest.pop("tenant", "") or tenant)
    path = template
    for key in ("taskId", "id"):
        token = "{" + key + "}"
        if token in path:
            path = path.replace(token, str(rest.pop(key, "")))
    if method == "CreateTaskPushNotificationConfig":
        rest.pop("taskId", None)
    if tenant:
        path = f"/{tenant}{path}"
    if verb in ("GET", "DELETE"):
        return verb, path, {k: _query_value(v) for k, v in rest.items()}, None
    return verb, path, {}, rest


def _json_body(response: httpx.Response, empty: Any = None) -> Any:
    """The JSON of a REST answer, ``empty`` for an empty one, or ``None`` if it is not JSON."""
    if not response.content:
        return empty
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def _rest_error(body: Any, status: int, url: str) -> A2AError | A2AHTTPError:
    err = body.get("error") if isinstance(body, dict) else None
    if status in (401, 403) and isinstance(err, dict):  # authentication is the transport's (§7.4)
        return A2AHTTPError(status, f"HTTP {status} from {url}: {str(err.get('message') or '')[:200]}")
    if not isinstance(err, dict):
        return A2AHTTPError(status, f"HTTP {status} from {url}: {str(body)[:200]}")
    details = err.get("details")
    return error_from_details(str(err.get("message") or ""), details if isinstance(details, list) else None)


class RestA2AClient(A2AClient):
    """:class:`A2AClient` over HTTP+JSON: the same operations, resource URLs instead of RPC."""

    def _rest(self, method: str, params: dict[str, Any], *, stream: bool = False) -> dict[str, Any]:
        """The httpx request arguments of one operation (its verb, URL, query and body)."""
        verb, path, query, body = rest_request(method, params, self._p.tenant)
        self._p.requests_made += 1
        headers = self._p.headers(stream=stream)
        headers["Content-Type"] = "application/a2a+json"
        if stream:
            body = body or {}
        request: dict[str, Any] = {"method": verb, "url": self._p.url.rstrip("/") + path, "headers": headers}
        if query:
            request["params"] = query
        if body is not None:
            request["content"] = json.dumps(body).encode()
        return request

    async def call(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        request = self._rest(method, params)
        if timeout is not None:
            request["timeout"] = timeout
        response = await self._request(method, request)
        data = _json_body(response, {})
        if response.status_code >= 400:
            raise _rest_error(data, response.status_code, self._p.url)
        if data is None:
            raise InvalidResponseError(f"{method}: not JSON: {response.text[:200]}")
        return data

    async def call_stream(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float | None = None,
        no_progress_timeout: float | None = None,
    ) -> AsyncIterator[StreamResponse]:
        def refused(response: httpx.Response) -> NoReturn:
            raise _rest_error(_json_body(response), response.status_code, self._p.url)

        request = self._rest(method, params, stream=True)
        async for data in self._sse(method, request, refused, timeout, no_progress_timeout):
            event = _json(data)
            if isinstance(event, dict) and "error" in event:
                raise _rest_error(event, 200, self._p.url)
            yield self._p.parse(StreamResponse, event)


class GrpcA2AClient(A2AClient):
    """:class:`A2AClient` over gRPC (needs grpcio and a2a-sdk's generated stubs).

    ``auth`` becomes the ``authorization`` metadata of every call (A2A §7.3); with a renewable
    one (:class:`~agentproto.client_auth.ClientCredentials`) a call refused ``UNAUTHENTICATED``
    is made once more with a fresh token, as the HTTP clients do on a 401.
    """

    def __init__(self, url: str, *, interceptors: Sequence[Any] = (), **kwargs: Any) -> None:
        """``interceptors``: grpc.aio client interceptors for the channel (a tracer, a tap);
        ``connect(..., interceptors=...)`` passes them through."""
        super().__init__(url, **kwargs)
        import grpc
        from a2a.types import a2a_pb2_grpc

        self._grpc = grpc
        self._channel = grpc.aio.insecure_channel(
            url.removeprefix("grpc://"), interceptors=list(interceptors)
        )
        self._stub = a2a_pb2_grpc.A2AServiceStub(self._channel)  # type: ignore[no-untyped-call]

    async def aclose(self) -> None:
        await self._channel.close()
        await super().aclose()

    async def _metadata(self, refused: str | None = None) -> tuple[tuple[str, str], ...]:
        """The call's metadata; ``refused``: the authorization the server just refused."""
        md = [("a2a-version", self._p.version)]
        if self._p.extensions:
            md.append(("a2a-extensions", ",".join(self._p.extensions)))
        if self.auth is not None:
            if refused is not None:
                self.auth.forget(refused.removeprefix("Bearer "))
            md.append(("authorization", await self.auth.aheader()))
        return tuple(md)

    def _retry(self, exc: Any, metadata: tuple[tuple[str, str], ...]) -> str | None:
        """The refused authorization if ``exc`` is worth one more try with a new token."""
        if self.auth is None or not self.auth.renewable:
            return None
        if exc.code() != self._grpc.StatusCode.UNAUTHENTICATED:
            return None
        return dict(metadata).get("authorization")

    def _request(self, method: str, params: dict[str, Any]) -> Any:
        from a2a.types import a2a_pb2 as pb

        from agentproto.a2a._grpc_server import to_proto

        if self._p.tenant and "tenant" not in params:
            params = {"tenant": self._p.tenant, **params}
        names = {
            "SendStreamingMessage": "SendMessageRequest",
            "SendMessage": "SendMessageRequest",
            "CreateTaskPushNotificationConfig": "TaskPushNotificationConfig",
        }
        cls = getattr(pb, names.get(method, method + "Request"))
        self._p.requests_made += 1
        return to_proto(params, cls)

    def _error(self, exc: Any, method: str) -> Exception:
        from google.rpc import status_pb2

        code = exc.code()
        if code in (self._grpc.StatusCode.UNAVAILABLE,):
            return A2AConnectionError(f"{method}: cannot reach {self._p.url}: {exc.details()}")
        if code == self._grpc.StatusCode.DEADLINE_EXCEEDED:
            return A2ATimeoutError(f"{method}: no answer from {self._p.url} in time")
        details: list[dict[str, Any]] = []
        for key, value in exc.trailing_metadata() or ():
            if key == "grpc-status-details-bin":
                from google.protobuf.json_format import MessageToDict

                status = status_pb2.Status.FromString(value)
                details = [MessageToDict(d) for d in status.details]
        found = error_from_details(exc.details() or "", details or None)
        if details:
            return found
        return A2AClientError(f"{method}: gRPC {code.name}: {exc.details()}")

    async def call(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        from google.protobuf.json_format import MessageToDict

        request = self._request(method, params)
        metadata = await self._metadata()
        for attempt in (1, 2):
            try:
                reply = await getattr(self._stub, method)(request, metadata=metadata, timeout=timeout)
            except self._grpc.aio.AioRpcError as exc:
                refused = self._retry(exc, metadata) if attempt == 1 else None
                if refused is None:
                    raise self._error(exc, method) from exc
                metadata = await self._metadata(refused)
                continue
            return MessageToDict(reply)
        raise AssertionError("unreachable")  # pragma: no cover

    async def call_stream(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float | None = None,
        no_progress_timeout: float | None = None,
    ) -> AsyncIterator[StreamResponse]:
        from google.protobuf.json_format import MessageToDict

        request = self._request(method, params)
        deadline = _deadline(timeout)
        metadata = await self._metadata()
        retry, received = True, False
        while True:
            call = getattr(self._stub, method)(request, metadata=metadata)
            try:
                while True:
                    limit = _remaining(deadline, no_progress_timeout)
                    try:
                        reply = await (asyncio.wait_for(call.read(), limit) if limit else call.read())
                    except TimeoutError:
                        _raise_timeout(deadline, no_progress_timeout, method)
                    if reply is self._grpc.aio.EOF:
                        return
                    received = True
                    yield self._p.parse(StreamResponse, MessageToDict(reply))
            except self._grpc.aio.AioRpcError as exc:
                refused = self._retry(exc, metadata) if retry and not received else None
                if refused is None:
                    raise self._error(exc, method) from exc
                retry, metadata = False, await self._metadata(refused)
            finally:
                call.cancel()


def _pick(card: AgentCard, accept: Sequence[str], version: str) -> tuple[str, str, str]:
    want = version.split(".")[:2]
    for itf in card.supported_interfaces:
        if itf.protocol_binding in accept and itf.protocol_version.split(".")[:2] == want:
            return itf.protocol_binding, itf.url, itf.tenant
    raise A2AClientError(
        f"agent {card.name!r} offers no {'/'.join(accept)} {version} interface (it offers {_offered(card)})"
    )


async def connect(
    base_url: str,
    *,
    binding: str | None = None,
    accept: Sequence[str] = (JSONRPC_BINDING, "HTTP+JSON", "GRPC"),
    cache: CardCache | None = None,
    **kwargs: Any,
) -> A2AClient:
    """A client for the agent at ``base_url``, on the card's most preferred binding we speak.

    ``binding`` (``jsonrpc``, ``rest``, ``grpc`` or a protocolBinding value) forces one.
    ``interceptors`` go to the gRPC channel, if gRPC is the binding chosen (ignored otherwise).
    """
    interceptors = kwargs.pop("interceptors", ())
    if binding is not None:
        accept = (BINDINGS.get(binding.lower(), binding),)
    card = await A2AClient.fetch_card(base_url, http=kwargs.get("http"), cache=cache)
    version = kwargs.get("version", PROTOCOL_VERSION)
    chosen, url, tenant = _pick(card, accept, version)
    kwargs.setdefault("tenant", tenant)
    if chosen == "GRPC":
        return GrpcA2AClient(url, card=card, interceptors=interceptors, **kwargs)
    cls = {JSONRPC_BINDING: A2AClient, "HTTP+JSON": RestA2AClient}[chosen]
    return cls(url, card=card, **kwargs)
