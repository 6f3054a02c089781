"""An A2A v1.0 client over the JSON-RPC binding (httpx), async and sync.

Discovery first (spec §8.2, §8.3.2): fetch ``/.well-known/agent-card.json``, take the first
``supportedInterfaces`` entry with binding ``JSONRPC`` and protocol version 1.0, and talk to its
URL, sending ``A2A-Version: 1.0`` on every request (spec §3.6.1) and the interface's ``tenant``
in every request message.

The four ways to get a result, side by side (notebook 11 measures them):

=============  ===============================================================================
blocking       ``await client.send(msg)`` — one request; returns when the task is terminal or
               interrupted (spec §3.2.2)
polling        ``send(msg, return_immediately=True)`` then ``await client.wait(task_id)`` —
               ``GetTask`` every ``poll_interval`` until the task settles
streaming      ``async for ev in client.stream(msg)`` — SSE, one event per update
push           ``send(msg, push=TaskPushNotificationConfig(url=...))`` — the agent POSTs updates
               to your webhook
=============  ===============================================================================

Waiting is bounded twice: ``timeout`` caps the whole wait, ``no_progress_timeout`` gives up
when nothing changes for that long (a stream that goes quiet, a task whose status stops moving)
— the failure mode of a stuck remote agent, which a plain HTTP timeout does not catch.

Errors: a JSON-RPC error from the server is raised as the matching
:class:`~agentproto.a2a.errors.A2AError` subclass (``TaskNotFoundError`` …, with ``.code``);
trouble below the protocol (refused connection, HTTP 5xx without a JSON-RPC body, timeouts)
raises :class:`A2AClientError` subclasses.

This is an adapter: it owns the sockets (httpx), the wall clock (``time.monotonic`` for
timeouts) and the default id source (:func:`agentproto.runtime.uuid_ids` for ``messageId``).
Everything both clients share that does no I/O — the client errors, request building, response
parsing, card discovery and caching (:class:`~agentproto.a2a.card_cache.CardCache`), the
progress rule of ``wait`` — lives in :mod:`agentproto.a2a.client_core`, so the async and sync
clients differ only in how they move bytes. The errors are re-exported here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Generator, Sequence
from typing import Any, Generic, TypeVar

import httpx

from agentproto.a2a.card_cache import CardCache
from agentproto.a2a.client_core import (
    CARD_PATH,
    SETTLED_STATES,
    A2AClientError,
    A2AConnectionError,
    A2AHTTPError,
    A2ATimeoutError,
    InvalidResponseError,
    NoProgressError,
    _CardRequest,
    _Progress,
    _Protocol,
    _send_result,
)
from agentproto.a2a.states import TaskState
from agentproto.a2a.types import (
    PROTOCOL_VERSION,
    AgentCard,
    ListTaskPushNotificationConfigsResponse,
    ListTasksResponse,
    Message,
    Part,
    StreamResponse,
    Task,
    TaskPushNotificationConfig,
)
from agentproto.clock import IdSource
from agentproto.runtime import uuid_ids
from agentproto.sse import EventStreamDecoder

__all__ = [
    "A2AClient",
    "SyncA2AClient",
    "A2AClientError",
    "A2AConnectionError",
    "A2AHTTPError",
    "A2ATimeoutError",
    "NoProgressError",
    "InvalidResponseError",
    "CARD_PATH",
    "SETTLED_STATES",
]

H = TypeVar("H", httpx.AsyncClient, httpx.Client)


def _remaining(deadline: float | None, no_progress: float | None) -> float | None:
    limits = [
        x
        for x in (no_progress, None if deadline is None else max(deadline - time.monotonic(), 0.001))
        if x is not None
    ]
    return min(limits) if limits else None


def _raise_timeout(deadline: float | None, no_progress: float | None, what: str) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise A2ATimeoutError(f"{what}: stream not finished in time")
    raise NoProgressError(f"{what}: no event for {no_progress} s")


async def _timed_chunks(
    response: httpx.Response, deadline: float | None, no_progress: float | None, method: str
) -> AsyncIterator[bytes]:
    """The body of a streaming answer, chunk by chunk, within the overall and progress limits."""
    chunks = response.aiter_bytes()
    while True:
        limit = _remaining(deadline, no_progress)
        try:
            chunk = await asyncio.wait_for(anext(chunks), limit) if limit else await anext(chunks)
        except StopAsyncIteration:
            return
        except TimeoutError:
            _raise_timeout(deadline, no_progress, method)
        yield chunk


def _unreachable(method: str, url: str, exc: httpx.HTTPError) -> A2AClientError:
    """A failed request as a client error: no answer in time, or no connection."""
    if isinstance(exc, httpx.TimeoutException):
        return A2ATimeoutError(f"{method}: no answer from {url} in time")
    return A2AConnectionError(f"{method}: cannot reach {url}: {exc}")


class _Client(Generic[H]):
    """What the async and sync clients hold alike: the protocol core and an httpx client."""

    def __init__(
        self,
        url: str,
        *,
        card: AgentCard | None = None,
        http: H | None = None,
        timeout: float = 30.0,
        version: str = PROTOCOL_VERSION,
        extensions: Sequence[str] = (),
        tenant: str = "",
        ids: IdSource | None = None,
    ) -> None:
        self._p = _Protocol(
            url, card=card, version=version, extensions=extensions, tenant=tenant, ids=ids or uuid_ids
        )
        self._http: H = http or self._new_http(timeout)
        self._own_http = http is None

    def _new_http(self, timeout: float) -> H:
        raise NotImplementedError

    @property
    def url(self) -> str:
        return self._p.url

    @property
    def card(self) -> AgentCard | None:
        return self._p.card

    @property
    def requests_made(self) -> int:
        return self._p.requests_made


# --------------------------------------------------------------------------- async client


class A2AClient(_Client[httpx.AsyncClient]):
    """Async A2A client. Use :meth:`discover` to start from an agent's base URL.

    >>> async with await A2AClient.discover("http://127.0.0.1:8000") as client:  # doctest: +SKIP
    ...     task = await client.send("Plan my trip to Sanya")
    """

    def _new_http(self, timeout: float) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=timeout)

    # -- discovery ---------------------------------------------------------------------------

    @classmethod
    async def fetch_card(
        cls,
        base_url: str,
        *,
        http: httpx.AsyncClient | None = None,
        timeout: float = 10.0,
        cache: CardCache | None = None,
    ) -> AgentCard:
        """GET the Agent Card from ``base_url``'s well-known path.

        With ``cache`` the HTTP caching rules apply (spec §8.6): a fresh copy is returned
        without a request, a stale one is revalidated with ``If-None-Match``.
        """
        request = _CardRequest(base_url, cache)
        if request.cached is not None:
            return request.cached
        client = http or httpx.AsyncClient(timeout=timeout)
        try:
            response = await client.get(request.url, headers=request.headers)
        except httpx.HTTPError as exc:
            raise request.unreachable(exc) from exc
        finally:
            if http is None:
                await client.aclose()
        return request.answer(response.status_code, response.headers, response.content)

    @classmethod
    async def discover(cls, base_url: str, *, cache: CardCache | None = None, **kwargs: Any) -> A2AClient:
        """Fetch the card, pick its JSON-RPC 1.0 interface, return a client bound to it."""
        card = await cls.fetch_card(base_url, http=kwargs.get("http"), cache=cache)
        return cls(_Protocol.bind(card, kwargs), card=card, **kwargs)

    async def aclose(self) -> None:
        if self._own_http:
            await self._http.aclose()

    async def __aenter__(self) -> A2AClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- transport ---------------------------------------------------------------------------

    async def call(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        """One JSON-RPC call; returns ``result`` (raw JSON) or raises the typed error."""
        try:
            response = await self._http.post(**self._p.post(method, params, timeout))
        except httpx.HTTPError as exc:
            raise _unreachable(method, self._p.url, exc) from exc
        return self._p.result(self._p.decode_http(response))

    async def call_stream(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float | None = None,
        no_progress_timeout: float | None = None,
    ) -> AsyncIterator[StreamResponse]:
        """A streaming JSON-RPC call: yields each event's ``StreamResponse``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        request = self._http.build_request(
            **self._p.stream_post(method, params),
            timeout=httpx.Timeout(self._http.timeout.connect, read=None),
        )
        try:
            response = await self._http.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise A2AConnectionError(f"{method}: cannot reach {self._p.url}: {exc}") from exc
        try:
            if "text/event-stream" not in response.headers.get("content-type", ""):
                await response.aread()  # an error before the stream started
                self._p.not_a_stream(response, method)
            decoder = EventStreamDecoder()
            async for chunk in _timed_chunks(response, deadline, no_progress_timeout, method):
                for event in self._p.events(decoder, chunk):
                    yield event
        except httpx.HTTPError as exc:
            raise A2AConnectionError(f"{method}: stream broke: {exc}") from exc
        finally:
            await response.aclose()

    # -- operations --------------------------------------------------------------------------

    async def send(
        self,
        message: Message | str | Part | list[Part],
        *,
        task_id: str | None = None,
        context_id: str | None = None,
        return_immediately: bool = False,
        history_length: int | None = None,
        push: TaskPushNotificationConfig | None = None,
        accepted_output_modes: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Task | Message:
        """``SendMessage``: blocking by default; ``return_immediately`` for polling/push."""
        params = self._p.send_request(
            message,
            task_id,
            context_id,
            return_immediately,
            history_length,
            push,
            accepted_output_modes,
            metadata,
        )
        return _send_result(await self.call("SendMessage", params, timeout=timeout))

    async def stream(
        self,
        message: Message | str | Part | list[Part],
        *,
        task_id: str | None = None,
        context_id: str | None = None,
        history_length: int | None = None,
        push: TaskPushNotificationConfig | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
        no_progress_timeout: float | None = None,
    ) -> AsyncIterator[StreamResponse]:
        """``SendStreamingMessage``: yields the Task (or a Message), then each update."""
        params = self._p.send_request(
            message, task_id, context_id, False, history_length, push, None, metadata
        )
        async for event in self.call_stream(
            "SendStreamingMessage", params, timeout=timeout, no_progress_timeout=no_progress_timeout
        ):
            yield event

    async def subscribe(
        self, task_id: str, *, timeout: float | None = None, no_progress_timeout: float | None = None
    ) -> AsyncIterator[StreamResponse]:
        """``SubscribeToTask``: the current Task, then live updates until it settles."""
        async for event in self.call_stream(
            "SubscribeToTask", {"id": task_id}, timeout=timeout, no_progress_timeout=no_progress_timeout
        ):
            yield event

    async def get_task(self, task_id: str, *, history_length: int | None = None) -> Task:
        params = self._p.get_task_params(task_id, history_length)
        return self._p.parse(Task, await self.call("GetTask", params))

    async def list_tasks(
        self,
        *,
        context_id: str = "",
        status: TaskState | None = None,
        page_size: int | None = None,
        page_token: str = "",
        history_length: int | None = None,
        include_artifacts: bool | None = None,
        status_timestamp_after: str | None = None,
    ) -> ListTasksResponse:
        params = self._p.list_params(
            context_id,
            status,
            page_size,
            page_token,
            history_length,
            include_artifacts,
            status_timestamp_after,
        )
        return self._p.parse(ListTasksResponse, await self.call("ListTasks", params))

    async def cancel_task(self, task_id: str) -> Task:
        return self._p.parse(Task, await self.call("CancelTask", {"id": task_id}))

    async def create_push_config(self, config: TaskPushNotificationConfig) -> TaskPushNotificationConfig:
        result = await self.call("CreateTaskPushNotificationConfig", config.to_wire())
        return self._p.parse(TaskPushNotificationConfig, result)

    async def get_push_config(self, task_id: str, config_id: str) -> TaskPushNotificationConfig:
        result = await self.call("GetTaskPushNotificationConfig", {"taskId": task_id, "id": config_id})
        return self._p.parse(TaskPushNotificationConfig, result)

    async def list_push_configs(self, task_id: str) -> ListTaskPushNotificationConfigsResponse:
        result = await self.call("ListTaskPushNotificationConfigs", {"taskId": task_id})
        return self._p.parse(ListTaskPushNotificationConfigsResponse, result)

    async def delete_push_config(self, task_id: str, config_id: str) -> None:
        await self.call("DeleteTaskPushNotificationConfig", {"taskId": task_id, "id": config_id})

    async def get_extended_card(self) -> AgentCard:
        return self._p.parse(AgentCard, await self.call("GetExtendedAgentCard", {}))

    # -- waiting -----------------------------------------------------------------------------

    async def wait(
        self,
        task_id: str,
        *,
        poll_interval: float = 0.25,
        timeout: float | None = 60.0,
        no_progress_timeout: float | None = None,
        history_length: int | None = None,
    ) -> Task:
        """Poll ``GetTask`` until the task is terminal or interrupted."""
        progress = _Progress(task_id, time.monotonic(), timeout, no_progress_timeout)
        while True:
            task = await self.get_task(task_id, history_length=history_length)
            if progress.settled(task, time.monotonic()):
                return task
            await asyncio.sleep(poll_interval)

    async def send_and_wait(
        self,
        message: Message | str | Part | list[Part],
        *,
        mode: str = "blocking",
        timeout: float | None = 60.0,
        no_progress_timeout: float | None = None,
        poll_interval: float = 0.25,
        **kwargs: Any,
    ) -> Task | Message:
        """Send and return the settled result by ``mode``: blocking, polling or streaming."""
        if mode == "blocking":
            return await self.send(message, timeout=timeout, **kwargs)
        if mode == "polling":
            first = await self.send(message, return_immediately=True, **kwargs)
            if isinstance(first, Message) or first.status.state in SETTLED_STATES:
                return first
            return await self.wait(
                first.id,
                poll_interval=poll_interval,
                timeout=timeout,
                no_progress_timeout=no_progress_timeout,
            )
        if mode == "streaming":
            task: Task | None = None
            async for event in self.stream(
                message, timeout=timeout, no_progress_timeout=no_progress_timeout, **kwargs
            ):
                if event.message is not None:
                    return event.message
                if event.task is not None:
                    task = event.task
            if task is None:
                raise InvalidResponseError("the stream ended before the Task arrived")
            return await self.get_task(task.id)
        raise ValueError(f"mode must be blocking, polling or streaming, not {mode!r}")


# --------------------------------------------------------------------------- sync client


class SyncA2AClient(_Client[httpx.Client]):
    """The same client for scripts and the CLI, on :class:`httpx.Client`."""

    def _new_http(self, timeout: float) -> httpx.Client:
        return httpx.Client(timeout=timeout)

    @classmethod
    def fetch_card(
        cls,
        base_url: str,
        *,
        http: httpx.Client | None = None,
        timeout: float = 10.0,
        cache: CardCache | None = None,
    ) -> AgentCard:
        """GET the Agent Card (through ``cache`` if given), as :meth:`A2AClient.fetch_card`."""
        request = _CardRequest(base_url, cache)
        if request.cached is not None:
            return request.cached
        client = http or httpx.Client(timeout=timeout)
        try:
            response = client.get(request.url, headers=request.headers)
        except httpx.HTTPError as exc:
            raise request.unreachable(exc) from exc
        finally:
            if http is None:
                client.close()
        return request.answer(response.status_code, response.headers, response.content)

    @classmethod
    def discover(cls, base_url: str, *, cache: CardCache | None = None, **kwargs: Any) -> SyncA2AClient:
        """Fetch the card, pick its JSON-RPC 1.0 interface, return a client bound to it."""
        card = cls.fetch_card(base_url, http=kwargs.get("http"), cache=cache)
        return cls(_Protocol.bind(card, kwargs), card=card, **kwargs)

    def close(self) -> None:
        if self._own_http:
            self._http.close()

    def __enter__(self) -> SyncA2AClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        try:
            response = self._http.post(**self._p.post(method, params, timeout))
        except httpx.HTTPError as exc:
            raise _unreachable(method, self._p.url, exc) from exc
        return self._p.result(self._p.decode_http(response))

    def call_stream(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float | None = None,
        no_progress_timeout: float | None = None,
    ) -> Generator[StreamResponse, None, None]:
        deadline = None if timeout is None else time.monotonic() + timeout
        read = _remaining(deadline, no_progress_timeout)
        try:
            with self._http.stream(
                **self._p.stream_post(method, params),
                timeout=httpx.Timeout(self._http.timeout.connect, read=read),
            ) as response:
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    response.read()
                    self._p.not_a_stream(response, method)
                decoder = EventStreamDecoder()
                last = time.monotonic()
                for chunk in response.iter_bytes():
                    events = self._p.events(decoder, chunk)
                    now = time.monotonic()
                    if events:
                        last = now
                    elif no_progress_timeout is not None and now - last >= no_progress_timeout:
                        raise NoProgressError(f"{method}: no event for {no_progress_timeout} s")
                    if deadline is not None and now >= deadline:
                        raise A2ATimeoutError(f"{method}: stream not finished in time")
                    yield from events
        except httpx.TimeoutException as exc:
            _raise_timeout(deadline, no_progress_timeout, method)
            raise A2ATimeoutError(str(exc)) from exc  # pragma: no cover
        except httpx.HTTPError as exc:
            raise A2AConnectionError(f"{method}: cannot reach {self._p.url}: {exc}") from exc

    def send(
        self,
        message: Message | str | Part | list[Part],
        *,
        task_id: str | None = None,
        context_id: str | None = None,
        return_immediately: bool = False,
        history_length: int | None = None,
        push: TaskPushNotificationConfig | None = None,
        accepted_output_modes: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Task | Message:
        params = self._p.send_request(
            message,
            task_id,
            context_id,
            return_immediately,
            history_length,
            push,
            accepted_output_modes,
            metadata,
        )
        return _send_result(self.call("SendMessage", params, timeout=timeout))

    def stream(
        self,
        message: Message | str | Part | list[Part],
        *,
        task_id: str | None = None,
        context_id: str | None = None,
        history_length: int | None = None,
        timeout: float | None = None,
        no_progress_timeout: float | None = None,
    ) -> Generator[StreamResponse, None, None]:
        params = self._p.send_request(message, task_id, context_id, history_length=history_length)
        yield from self.call_stream(
            "SendStreamingMessage", params, timeout=timeout, no_progress_timeout=no_progress_timeout
        )

    def subscribe(
        self, task_id: str, *, timeout: float | None = None, no_progress_timeout: float | None = None
    ) -> Generator[StreamResponse, None, None]:
        yield from self.call_stream(
            "SubscribeToTask", {"id": task_id}, timeout=timeout, no_progress_timeout=no_progress_timeout
        )

    def get_task(self, task_id: str, *, history_length: int | None = None) -> Task:
        params = self._p.get_task_params(task_id, history_length)
        return self._p.parse(Task, self.call("GetTask", params))

    def list_tasks(
        self,
        *,
        context_id: str = "",
        status: TaskState | None = None,
        page_size: int | None = None,
        page_token: str = "",
        history_length: int | None = None,
        include_artifacts: bool | None = None,
        status_timestamp_after: str | None = None,
    ) -> ListTasksResponse:
        params = self._p.list_params(
            context_id,
            status,
            page_size,
            page_token,
            history_length,
            include_artifacts,
            status_timestamp_after,
        )
        return self._p.parse(ListTasksResponse, self.call("ListTasks", params))

    def cancel_task(self, task_id: str) -> Task:
        return self._p.parse(Task, self.call("CancelTask", {"id": task_id}))

    def wait(
        self,
        task_id: str,
        *,
        poll_interval: float = 0.25,
        timeout: float | None = 60.0,
        no_progress_timeout: float | None = None,
        history_length: int | None = None,
    ) -> Task:
        """Poll ``GetTask`` until the task is terminal or interrupted."""
        progress = _Progress(task_id, time.monotonic(), timeout, no_progress_timeout)
        while True:
            task = self.get_task(task_id, history_length=history_length)
            if progress.settled(task, time.monotonic()):
                return task
            time.sleep(poll_interval)
