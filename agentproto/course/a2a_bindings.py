"""Notebook 11, one service on three bindings: the bytes on the wire, side by side.

The kit serves one :class:`~agentproto.a2a.service.A2AService` over JSON-RPC (spec §9),
HTTP+JSON/REST (§11) and gRPC (§10), and its clients speak all three
(:func:`agentproto.a2a.client_bindings.connect`). This module only *watches* them:

==============================  ==================================================================
:class:`HttpTap`                an httpx transport that records each exchange: request line,
                                headers, body, status, response headers and the raw bytes
:class:`GrpcTap`                gRPC client interceptors that record the method path, the
                                metadata, every message (as protobuf text) and the final status
:func:`render_http`,            one exchange as text, the way a protocol analyser would show it
:func:`render_grpc`
:func:`connect_tapped`          one kit client per binding, each over its own tap
:func:`authorization_ok`        does a webhook POST carry the ``Authorization`` it was promised?
:func:`collect`                 every event of a kit stream, as a list
:func:`second_subscriber`       subscribe to a task, let someone else act once the Task snapshot
                                has arrived, and return everything the subscriber saw
:func:`expect_error_async`      :func:`agentproto.course.expect_error` for coroutines (from ``checks``)
:class:`WireViewer`             toggle buttons: binding × exchange → the captured wire text
==============================  ==================================================================

Everything is loopback and deterministic when the server runs on a ``FakeClock`` with
``IdFactory`` ids: headers that change on every run (``date``, ``server``) are left out.
"""

from __future__ import annotations

import asyncio
import html
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx
import ipywidgets as widgets

from agentproto.a2a.types import StreamResponse
from agentproto.course.checks import expect_error_async

__all__ = [
    "HttpExchange",
    "HttpTap",
    "GrpcExchange",
    "GrpcTap",
    "render_http",
    "render_grpc",
    "collect",
    "second_subscriber",
    "expect_error_async",
    "WireViewer",
    "SHOWN_HEADERS",
    "states_seen",
    "TappedClients",
    "connect_tapped",
    "authorization_ok",
]

#: The headers worth reading on an A2A exchange; the rest (date, server, user-agent …) is noise
#: that changes from run to run.
SHOWN_HEADERS = (
    "host",
    "content-type",
    "accept",
    "a2a-version",
    "a2a-extensions",
    "authorization",
    "cache-control",
)

# --------------------------------------------------------------------------- HTTP


@dataclass
class HttpExchange:
    """One HTTP request and its response as they crossed the socket."""

    method: str
    target: str
    request_headers: dict[str, str]
    request_body: bytes
    status: int | None = None
    reason: str = ""
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: bytes = b""

    @property
    def is_stream(self) -> bool:
        return self.response_headers.get("content-type", "").startswith("text/event-stream")

    def sse_data(self) -> list[Any]:
        """The JSON of every ``data:`` field of an event-stream response, in order."""
        out = []
        for line in self.response_body.decode("utf-8", errors="replace").splitlines():
            if line.startswith("data:"):
                out.append(json.loads(line[5:].strip()))
        return out

    def json(self) -> Any:
        return json.loads(self.response_body) if self.response_body else None


def _shown(headers: httpx.Headers) -> dict[str, str]:
    return {k: headers[k] for k in SHOWN_HEADERS if k in headers}


class _Recorded(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, exchange: HttpExchange) -> None:
        self._inner = inner
        self._exchange = exchange

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._exchange.response_body += chunk
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


_X = TypeVar("_X")


class _Tape(Generic[_X]):
    """What both taps share: the exchanges recorded so far, the last one, and a reset."""

    exchanges: list[_X]

    @property
    def last(self) -> _X:
        return self.exchanges[-1]

    def clear(self) -> None:
        self.exchanges.clear()


class HttpTap(_Tape[HttpExchange], httpx.AsyncBaseTransport):
    """An httpx transport over the real network stack that records every exchange.

    ``client = await connect(url, binding="rest", http=httpx.AsyncClient(transport=tap))``;
    then ``tap.exchanges[-1]`` is the last request and its response, body bytes included
    (for a stream, the bytes read so far).
    """

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport()
        self.exchanges = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            body = request.content
        except httpx.RequestNotRead:  # a streamed upload: not recorded
            body = b""
        target = request.url.raw_path.decode("ascii")
        exchange = HttpExchange(request.method, target, _shown(request.headers), body)
        self.exchanges.append(exchange)
        response = await self._inner.handle_async_request(request)
        exchange.status = response.status_code
        exchange.reason = response.extensions.get("reason_phrase", b"").decode("ascii", "replace")
        exchange.response_headers = _shown(response.headers)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Recorded(response.stream, exchange),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _pretty(raw: bytes, width: int) -> list[str]:
    try:
        text = json.dumps(json.loads(raw), indent=1, ensure_ascii=False)
    except (ValueError, UnicodeDecodeError):
        text = raw.decode("utf-8", errors="replace")
    return [_cut(line, width) for line in text.splitlines()]


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"


def render_http(
    exchange: HttpExchange, *, width: int = 110, max_body_lines: int = 40, max_events: int = 4
) -> str:
    """``exchange`` as an HTTP analyser shows it: request line, headers, body; then the status
    line, headers and body (for an event stream, the first ``max_events`` frames as sent)."""
    lines = [f"→ {exchange.method} {exchange.target} HTTP/1.1"]
    lines += [f"  {k}: {v}" for k, v in exchange.request_headers.items()]
    if exchange.request_body:
        body = _pretty(exchange.request_body, width - 2)
        lines += ["", *("  " + b for b in body[:max_body_lines])]
        if len(body) > max_body_lines:
            lines.append(f"  … {len(body) - max_body_lines} more lines")
    lines += ["", f"← HTTP/1.1 {exchange.status} {exchange.reason}".rstrip()]
    lines += [f"  {k}: {v}" for k, v in exchange.response_headers.items()]
    lines.append("")
    if exchange.is_stream:
        frames = [f for f in exchange.response_body.decode("utf-8", "replace").split("\r\n\r\n") if f]
        frames = [f for f in (fr.replace("\r\n", "\n").strip() for fr in frames) if f.startswith("data:")]
        for frame in frames[:max_events]:
            lines.append("  " + _cut(frame, width - 2))
            lines.append("")
        if len(frames) > max_events:
            lines.append(f"  … {len(frames) - max_events} more events, {len(frames)} in all")
    else:
        body = _pretty(exchange.response_body, width - 2)
        lines += ["  " + b for b in body[:max_body_lines]]
        if len(body) > max_body_lines:
            lines.append(f"  … {len(body) - max_body_lines} more lines")
    return "\n".join(lines).rstrip()


# --------------------------------------------------------------------------- gRPC


@dataclass
class GrpcExchange:
    """One gRPC call: the method path, the metadata sent, the messages both ways, the status."""

    method: str
    metadata: list[tuple[str, str]]
    request: str
    responses: list[str] = field(default_factory=list)
    code: str = ""
    details: str = ""
    status_details: str = ""
    streaming: bool = False


def _text(message: Any) -> str:
    from google.protobuf import text_format

    return str(text_format.MessageToString(message, as_utf8=True)).strip()


def _status_text(trailing: Any) -> str:
    """The ``google.rpc.Status`` in the ``grpc-status-details-bin`` trailer, as text."""
    from google.rpc import error_details_pb2, status_pb2

    for key, value in trailing or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            lines = [f"code: {status.code}", f"message: {status.message!r}"]
            for detail in status.details:
                for cls in (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest):
                    if detail.Is(cls.DESCRIPTOR):
                        unpacked = cls()
                        detail.Unpack(unpacked)
                        lines.append(f"details {{  # {detail.type_url}")
                        lines += ["  " + line for line in _text(unpacked).splitlines()]
                        lines.append("}")
            return "\n".join(lines)
    return ""


class GrpcTap(_Tape[GrpcExchange]):
    """Client interceptors that record each call on a ``grpc.aio`` channel.

    Build the channel with ``grpc.aio.insecure_channel(target, interceptors=tap.interceptors())``
    (or ``connect(url, binding="grpc", interceptors=tap.interceptors())``); ``tap.exchanges``
    then holds one :class:`GrpcExchange` per call: the full method path
    (``/lf.a2a.v1.A2AService/SendMessage``), the metadata the client sent, each message as
    protobuf text, and the final status with its rich details.
    """

    def __init__(self) -> None:
        self.exchanges = []

    def _start(self, details: Any, request: Any, streaming: bool) -> GrpcExchange:
        method = details.method.decode() if isinstance(details.method, bytes) else str(details.method)
        md = [(str(k), str(v)) for k, v in (details.metadata or ())]
        exchange = GrpcExchange(method, md, _text(request), streaming=streaming)
        self.exchanges.append(exchange)
        return exchange

    def interceptors(self) -> list[Any]:
        import grpc

        tap = self

        async def _finish(exchange: GrpcExchange, call: Any) -> None:
            code = await call.code()
            exchange.code = code.name
            exchange.details = (await call.details()) or ""
            if code != grpc.StatusCode.OK:
                exchange.status_details = _status_text(await call.trailing_metadata())

        class Unary(grpc.aio.UnaryUnaryClientInterceptor):
            async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
                exchange = tap._start(details, request, streaming=False)
                call = await continuation(details, request)
                try:
                    exchange.responses.append(_text(await call))
                except grpc.aio.AioRpcError:
                    pass
                await _finish(exchange, call)
                return call

        class Streaming(grpc.aio.UnaryStreamClientInterceptor):
            async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
                exchange = tap._start(details, request, streaming=True)
                call = await continuation(details, request)

                async def messages() -> AsyncIterator[Any]:
                    try:
                        async for message in call:
                            exchange.responses.append(_text(message))
                            yield message
                    finally:
                        if call.done():
                            await _finish(exchange, call)

                return messages()

        return [Unary(), Streaming()]


def render_grpc(exchange: GrpcExchange, *, width: int = 110, max_messages: int = 4) -> str:
    """One gRPC call as text: ``→ /package.Service/Method``, metadata, the request message,
    then the response message(s) and the status (with the rich error details, if any)."""
    kind = "server streaming" if exchange.streaming else "unary"
    lines = [f"→ {exchange.method}   ({kind}, HTTP/2)"]
    lines += [f"  metadata {k}: {v}" for k, v in exchange.metadata]
    lines += ["", *("  " + _cut(line, width - 2) for line in exchange.request.splitlines())]
    lines.append("")
    for i, message in enumerate(exchange.responses[:max_messages], start=1):
        label = f"← message {i}" if exchange.streaming else "← response"
        lines.append(label)
        lines += ["  " + _cut(line, width - 2) for line in message.splitlines()]
        lines.append("")
    if len(exchange.responses) > max_messages:
        extra = len(exchange.responses) - max_messages
        lines += [f"  … {extra} more messages, {len(exchange.responses)} in all", ""]
    lines.append(f"← status {exchange.code}" + (f": {exchange.details}" if exchange.details else ""))
    if exchange.status_details:
        lines.append("  trailer grpc-status-details-bin (google.rpc.Status):")
        lines += ["    " + _cut(line, width - 4) for line in exchange.status_details.splitlines()]
    return "\n".join(lines).rstrip()


# --------------------------------------------------------------------------- clients


@dataclass
class TappedClients:
    """One kit client per binding (``jsonrpc``, ``rest``, ``grpc``), each over its own tap."""

    clients: dict[str, Any]
    taps: dict[str, HttpTap | GrpcTap]

    def render(
        self,
        binding: str,
        *,
        width: int = 110,
        max_body_lines: int = 40,
        max_events: int = 4,
        max_messages: int = 4,
    ) -> str:
        """The last exchange ``binding``'s client made, as wire text (``max_events`` SSE frames
        on the HTTP bindings, ``max_messages`` stream messages on gRPC)."""
        tap = self.taps[binding]
        if isinstance(tap, GrpcTap):
            return render_grpc(tap.last, width=width, max_messages=max_messages)
        return render_http(tap.last, width=width, max_body_lines=max_body_lines, max_events=max_events)

    def status(self, binding: str) -> str:
        """How the last exchange of ``binding`` ended, in that binding's own terms."""
        tap = self.taps[binding]
        if isinstance(tap, GrpcTap):
            return tap.last.code
        last = tap.last
        if binding == "jsonrpc" and not last.is_stream:
            body = last.json() or {}
            if "error" in body:
                return f"HTTP {last.status}, error.code {body['error'].get('code')}"
        return f"HTTP {last.status}"

    async def aclose(self) -> None:
        for client in self.clients.values():
            await client.aclose()


async def connect_tapped(
    base_url: str, bindings: Sequence[str] = ("jsonrpc", "rest", "grpc"), *, ids_prefix: str = "msg"
) -> TappedClients:
    """A kit client per binding for the agent at ``base_url`` (its card says where each one is),
    each recording what it sends and receives; message ids ``<binding>-<prefix>-1`` …"""
    from agentproto.a2a.client_bindings import connect
    from agentproto.clock import IdFactory

    clients: dict[str, Any] = {}
    taps: dict[str, HttpTap | GrpcTap] = {}
    for binding in bindings:
        ids = IdFactory(f"{binding}-{ids_prefix}")
        if binding == "grpc":
            grpc_tap = GrpcTap()
            client = await connect(base_url, binding=binding, ids=ids, interceptors=grpc_tap.interceptors())
            taps[binding] = grpc_tap
        else:
            http_tap = HttpTap()
            client = await connect(
                base_url, binding=binding, ids=ids, http=httpx.AsyncClient(transport=http_tap)
            )
            taps[binding] = http_tap
        clients[binding] = client
    return TappedClients(clients, taps)


def authorization_ok(headers: dict[str, str], scheme: str, credentials: str) -> bool:
    """Does a webhook request carry ``Authorization: <scheme> <credentials>`` as configured in
    the push config's ``authentication`` (spec §4.3.3, §13.2)? The library's check,
    :func:`agentproto.a2a.push.authorization_matches`, which ``WebhookRecorder(
    expect_authorization=...)`` applies to every POST."""
    from agentproto.a2a.push import authorization_matches

    return authorization_matches(headers, scheme, credentials)


# --------------------------------------------------------------------------- flows


async def collect(events: AsyncIterator[StreamResponse]) -> list[StreamResponse]:
    """Every event of a kit stream (``client.stream(...)``, ``client.subscribe(...)``)."""
    return [event async for event in events]


async def second_subscriber(
    subscriber: Any, task_id: str, meanwhile: Callable[[], Awaitable[Any]], *, timeout_s: float = 10.0
) -> tuple[list[StreamResponse], Any]:
    """``SubscribeToTask`` on ``task_id`` with ``subscriber``; once its first event (the Task
    snapshot, §3.1.6) has arrived — so the subscription is live on the server — run
    ``meanwhile()`` (another client answering the task, say). Returns what the subscriber saw,
    up to the end of its stream, and what ``meanwhile`` returned."""
    seen: list[StreamResponse] = []
    first = asyncio.Event()

    async def read() -> None:
        async for event in subscriber.subscribe(task_id):
            seen.append(event)
            first.set()

    reader = asyncio.ensure_future(read())
    try:
        await asyncio.wait_for(first.wait(), timeout_s)
        result = await meanwhile()
        await asyncio.wait_for(reader, timeout_s)
    finally:
        if not reader.done():
            reader.cancel()
    return seen, result


def states_seen(events: Iterable[StreamResponse]) -> list[str]:
    """The task state each event shows (``Task: input-required``, ``working`` …), in order;
    artifact updates as ``artifact <id>``."""
    out = []
    for e in events:
        if e.task is not None:
            out.append("Task: " + e.task.status.state.short)
        elif e.status_update is not None:
            out.append(e.status_update.status.state.short)
        elif e.artifact_update is not None:
            out.append("artifact " + e.artifact_update.artifact.artifact_id)
        else:
            out.append("message")
    return out


# --------------------------------------------------------------------------- widget


class WireViewer:
    """Pick a binding and an exchange; see the captured wire text (no network in callbacks).

    ``captures`` maps exchange name → binding → text (from :func:`render_http` /
    :func:`render_grpc`). Tests drive it with ``viewer.binding.value = "gRPC"``.
    """

    def __init__(self, captures: dict[str, dict[str, str]], *, bindings: Sequence[str] = ()) -> None:
        self.captures = captures
        names = list(captures)
        found = list(dict.fromkeys(b for by in captures.values() for b in by))
        self.exchange = widgets.ToggleButtons(options=names, value=names[0], description="exchange")
        self.binding = widgets.ToggleButtons(
            options=list(bindings) or found, value=(list(bindings) or found)[0], description="binding"
        )
        self.view = widgets.HTML()
        for control in (self.exchange, self.binding):
            control.observe(lambda _c: self.redraw(), names="value")
        self.redraw()

    @property
    def text(self) -> str:
        return self.captures[self.exchange.value].get(
            self.binding.value, f"({self.binding.value}: not captured here)"
        )

    def redraw(self) -> None:
        self.view.value = (
            "<pre style='font-size:11px;line-height:1.25;max-height:28em;overflow:auto'>"
            + html.escape(self.text)
            + "</pre>"
        )

    def widget(self) -> widgets.VBox:
        return widgets.VBox([self.exchange, self.binding, self.view])

    def _ipython_display_(self) -> None:  # pragma: no cover - needs a front end
        import IPython.display

        show: Any = IPython.display.display  # untyped upstream
        show(self.widget())
