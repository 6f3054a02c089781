"""An httpx transport that taps an AG-UI connection: the raw bytes, and a real disconnect.

:class:`TapTransport` sits under an :class:`httpx.AsyncClient` (and so under
:class:`~agentproto.agui.client.AGUIClient`) over the real network stack. It records every
exchange — the JSON body sent, the status, the response headers and the raw response bytes
exactly as they crossed the socket, i.e. the SSE framing a browser sees — and it can cut the
next event stream after *n* ``data`` frames, closing the connection for real, so that a
client's recovery can be shown and tested without a flaky network::

    tap = TapTransport()
    client = AGUIClient(url, http=httpx.AsyncClient(transport=tap))
    tap.drop_next(5)          # the next stream breaks after 5 events (httpx.ReadError)

An adapter (it does I/O through httpx); the protocol core never imports it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from agentproto.agui.sse import SSE_CONTENT_TYPE

__all__ = ["Capture", "TapTransport"]


@dataclass
class Capture:
    """One HTTP exchange as the transport saw it: the request body and the raw response bytes."""

    method: str
    path: str
    request_json: Any = None
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes = b""
    frames_delivered: int = 0
    dropped: bool = False

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")


class _TappedStream(httpx.AsyncByteStream):
    """Forwards a response body frame by frame, recording it; optionally cuts it short."""

    def __init__(self, inner: httpx.AsyncByteStream, capture: Capture, drop_after: int | None) -> None:
        self._inner = inner
        self._capture = capture
        self._drop_after = drop_after

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._drop_after is None:
            async for chunk in self._inner:
                self._capture.raw += chunk
                yield chunk
            return
        if self._drop_after == 0:
            await self._drop()
        buffer = b""
        async for chunk in self._inner:
            buffer += chunk
            while b"\n\n" in buffer:
                frame, buffer = buffer.split(b"\n\n", 1)
                frame += b"\n\n"
                self._capture.raw += frame
                if frame.startswith(b"data:"):
                    self._capture.frames_delivered += 1
                yield frame
                if self._capture.frames_delivered >= self._drop_after:
                    await self._drop()
        if buffer:  # an unterminated last frame passes through as it came
            self._capture.raw += buffer
            yield buffer

    async def _drop(self) -> None:
        self._capture.dropped = True
        await self._inner.aclose()  # the TCP connection really goes away
        raise httpx.ReadError(f"connection dropped after {self._drop_after} events (TapTransport)")

    async def aclose(self) -> None:
        await self._inner.aclose()


class TapTransport(httpx.AsyncBaseTransport):
    """An httpx transport over the real network stack that records every exchange.

    ``captures`` holds one :class:`Capture` per request: the JSON body sent, the status, the
    response headers and the raw response bytes exactly as they crossed the socket — the SSE
    framing a browser sees. :meth:`drop_next` makes the next event stream break after *n*
    ``data`` frames (the socket is closed, the client gets ``httpx.ReadError``), which is how
    notebook 04 shows a real disconnect without a flaky network::

        tap = TapTransport()
        client = AGUIClient(url, http=httpx.AsyncClient(transport=tap))
    """

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport()
        self.captures: list[Capture] = []
        self._drop_next: int | None = None

    def drop_next(self, after_events: int) -> None:
        """Cut the next ``text/event-stream`` response after ``after_events`` events."""
        if after_events < 0:
            raise ValueError("after_events must be >= 0")
        self._drop_next = after_events

    @property
    def last(self) -> Capture:
        """The most recent exchange."""
        return self.captures[-1]

    @property
    def streams(self) -> list[Capture]:
        """The exchanges whose response was an event stream, oldest first."""
        return [c for c in self.captures if c.headers.get("content-type", "").startswith(SSE_CONTENT_TYPE)]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body: Any = None
        try:
            content = request.content
        except httpx.RequestNotRead:  # a streamed upload: not recorded
            content = b""
        if content:
            try:
                body = json.loads(content)
            except ValueError:
                body = content.decode("utf-8", errors="replace")
        capture = Capture(request.method, request.url.path, body)
        self.captures.append(capture)
        response = await self._inner.handle_async_request(request)
        capture.status = response.status_code
        capture.headers = {k.lower(): v for k, v in response.headers.items()}
        drop = None
        if capture.headers.get("content-type", "").startswith(SSE_CONTENT_TYPE):
            drop, self._drop_next = self._drop_next, None
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_TappedStream(response.stream, capture, drop),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
