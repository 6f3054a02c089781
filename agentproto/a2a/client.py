"""An A2A v1.0 client over the JSON-RPC binding (httpx), async, and its sync twin.

Discovery first (spec §8.2, §8.3.2): fetch ``/.well-known/agent-card.json``, take the first
``supportedInterfaces`` entry with binding ``JSONRPC`` and protocol version 1.0, and talk to its
URL, sending ``A2A-Version: 1.0`` on every request (spec §3.6.1) and the interface's ``tenant``
in every request message. (:func:`agentproto.a2a.client_bindings.connect` and
:meth:`SyncA2AClient.connect` pick any binding the card offers.)

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

Authentication: ``auth=`` takes a bearer token string or a
:class:`~agentproto.client_auth.ClientCredentials` (tokens fetched, kept and renewed), the same
option on every client and binding (:mod:`agentproto.client_auth`). The Agent Card is fetched
without it: it is public (spec §8.2).

Errors: a JSON-RPC error from the server is raised as the matching
:class:`~agentproto.a2a.errors.A2AError` subclass (``TaskNotFoundError`` …, with ``.code``);
trouble below the protocol (refused connection, HTTP 5xx without a JSON-RPC body, timeouts)
raises :class:`A2AClientError` subclasses; a refused token request raises
:class:`~agentproto.client_auth.TokenRequestError`.

One implementation per binding: :class:`A2AClient` (and the binding classes in
:mod:`agentproto.a2a.client_bindings`, which override only ``call`` and ``call_stream``) is the
client; :class:`SyncA2AClient` runs any of them on a private event-loop thread, so scripts get
every method without ``await`` and nothing is written twice. This is an adapter: it owns the
sockets (httpx), the wall clock (``time.monotonic`` for timeouts) and the default id source
(:func:`agentproto.runtime.uuid_ids` for ``messageId``). Everything that does no I/O — the
client errors, request building, response parsing, card discovery and caching
(:class:`~agentproto.a2a.card_cache.CardCache`), the progress rule of ``wait`` — lives in
:mod:`agentproto.a2a.client_core`. The errors are re-exported here.
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Any, Concatenate, NoReturn, ParamSpec, TypeVar

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
    _feed,
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
from agentproto.client_auth import ClientAuth, as_auth
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

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


def _remaining(deadline: float | None, no_progress: float | None) -> float | None:
    limits = [
        x
        for x in (no_progress, None if deadline is None else max(deadline - time.monotonic(), 0.001))
        if x is not None
    ]
    return min(limits) if limits else None


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout


def _raise_timeout(deadline: float | None, no_progress: float | None, what: str) -> NoReturn:
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


# --------------------------------------------------------------------------- the client


class A2AClient:
    """Async A2A client. Use :meth:`discover` to start from an agent's base URL.

    ``auth`` is a bearer token or a :class:`~agentproto.client_auth.ClientCredentials`;
    ``timeout`` (seconds) configures the httpx client made here (streams have no read
    timeout: they are bounded by the ``timeout`` and ``no_progress_timeout`` of each call).

    >>> async with await A2AClient.discover("http://127.0.0.1:8000", auth=token) as client:  # doctest: +SKIP
    ...     task = await client.send("Plan my trip to Sanya")
    """

    def __init__(
        self,
        url: str,
        *,
        card: AgentCard | None = None,
        http: httpx.AsyncClient | None = None,
        timeout: float = 30.0,
        version: str = PROTOCOL_VERSION,
        extensions: Sequence[str] = (),
        tenant: str = "",
        ids: IdSource | None = None,
        auth: str | ClientAuth | None = None,
    ) -> None:
        self._p = _Protocol(
            url, card=card, version=version, extensions=extensions, tenant=tenant, ids=ids or uuid_ids
        )
        self._http = http or httpx.AsyncClient(timeout=timeout)
        self._own_http = http is None
        self.auth: ClientAuth | None = as_auth(auth)

    @property
    def url(self) -> str:
        return self._p.url

    @property
    def card(self) -> AgentCard | None:
        return self._p.card

    @property
    def requests_made(self) -> int:
        """How many requests this client has made (notebook 11 counts them)."""
        return self._p.requests_made

    @property
    def _auth(self) -> Any:  # httpx.Auth, or httpx's 'the client's own'
        return self.auth if self.auth is not None else httpx.USE_CLIENT_DEFAULT

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

    # -- transport (the binding classes override call and call_stream) ----------------------

    async def _request(self, method: str, request: dict[str, Any]) -> httpx.Response:
        """One plain HTTP exchange (authenticated); failures below HTTP as client errors."""
        try:
            return await self._http.request(**request, auth=self._auth)
        except httpx.HTTPError as exc:
            raise _unreachable(method, self._p.url, exc) from exc

    async def _sse(
        self,
        method: str,
        request: dict[str, Any],
        refused: Callable[[httpx.Response], NoReturn],
        timeout: float | None,
        no_progress_timeout: float | None,
    ) -> AsyncIterator[str]:
        """The ``data`` of each event of a streaming answer; ``refused`` raises what an answer
        that is not an event stream carries."""
        deadline = _deadline(timeout)
        no_read_timeout = httpx.Timeout(self._http.timeout.connect, read=None)
        built = self._http.build_request(**request, timeout=no_read_timeout)
        try:
            response = await self._http.send(built, stream=True, auth=self._auth)
        except httpx.HTTPError as exc:
            raise A2AConnectionError(f"{method}: cannot reach {self._p.url}: {exc}") from exc
        try:
            if "text/event-stream" not in response.headers.get("content-type", ""):
                await response.aread()  # an error before the stream started
                refused(response)
            decoder = EventStreamDecoder()
            async for chunk in _timed_chunks(response, deadline, no_progress_timeout, method):
                for data in _feed(decoder, chunk):
                    yield data
        except httpx.HTTPError as exc:
            raise A2AConnectionError(f"{method}: stream broke: {exc}") from exc
        finally:
            await response.aclose()

    async def call(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        """One JSON-RPC call; returns ``result`` (raw JSON) or raises the typed error."""
        response = await self._request(method, self._p.post(method, params, timeout))
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

        def refused(response: httpx.Response) -> NoReturn:
            self._p.not_a_stream(response, method)

        request = self._p.stream_post(method, params)
        async for data in self._sse(method, request, refused, timeout, no_progress_timeout):
            yield self._p.event(data)

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
        """``GetTask``: the task as the agent has it now."""
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
        """``ListTasks``: the caller's tasks, filtered and paged (spec §3.1.4)."""
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
        """``CancelTask``: ask the agent to stop the task."""
        return self._p.parse(Task, await self.call("CancelTask", {"id": task_id}))

    async def create_push_config(self, config: TaskPushNotificationConfig) -> TaskPushNotificationConfig:
        """``CreateTaskPushNotificationConfig``: register a webhook for a task."""
        result = await self.call("CreateTaskPushNotificationConfig", config.to_wire())
        return self._p.parse(TaskPushNotificationConfig, result)

    async def get_push_config(self, task_id: str, config_id: str) -> TaskPushNotificationConfig:
        """``GetTaskPushNotificationConfig``."""
        result = await self.call("GetTaskPushNotificationConfig", {"taskId": task_id, "id": config_id})
        return self._p.parse(TaskPushNotificationConfig, result)

    async def list_push_configs(self, task_id: str) -> ListTaskPushNotificationConfigsResponse:
        """``ListTaskPushNotificationConfigs``."""
        result = await self.call("ListTaskPushNotificationConfigs", {"taskId": task_id})
        return self._p.parse(ListTaskPushNotificationConfigsResponse, result)

    async def delete_push_config(self, task_id: str, config_id: str) -> None:
        """``DeleteTaskPushNotificationConfig``."""
        await self.call("DeleteTaskPushNotificationConfig", {"taskId": task_id, "id": config_id})

    async def get_extended_card(self) -> AgentCard:
        """``GetExtendedAgentCard``: the card an authenticated caller may see (spec §3.1.11)."""
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


# --------------------------------------------------------------------------- the sync twin


class _LoopThread:
    """One event loop on a daemon thread that every sync client of this process shares.

    A daemon thread, so a script that forgets to close a client still exits; a forked child
    starts its own.
    """

    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _pid = 0
    _lock = threading.Lock()

    @classmethod
    def _running(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None or cls._pid != os.getpid():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="agentproto-sync-clients", daemon=True
                )
                thread.start()
                cls._loop, cls._thread, cls._pid = loop, thread, os.getpid()
            return cls._loop

    @classmethod
    def run(cls, make: Callable[[], Awaitable[R]]) -> R:
        """Run ``make()`` on the loop thread and wait for its result (or its exception)."""
        loop = cls._running()
        if threading.current_thread() is cls._thread:
            raise RuntimeError("a sync client called from its own event loop: use the async client there")

        async def call() -> R:
            return await make()

        return asyncio.run_coroutine_threadsafe(call(), loop).result()


def _blocking(
    fn: Callable[Concatenate[A2AClient, P], Awaitable[R]],
) -> Callable[Concatenate[SyncA2AClient, P], R]:
    """The sync method of that name: the async client's method, run on the loop thread."""

    @functools.wraps(fn)
    def method(self: SyncA2AClient, *args: P.args, **kwargs: P.kwargs) -> R:
        bound: Callable[P, Awaitable[R]] = getattr(self.client, fn.__name__)  # the binding's own
        return _LoopThread.run(functools.partial(bound, *args, **kwargs))

    return method


def _iterating(
    fn: Callable[Concatenate[A2AClient, P], AsyncIterator[T]],
) -> Callable[Concatenate[SyncA2AClient, P], Iterator[T]]:
    """The sync generator of that name: the async client's stream, one event per step."""

    @functools.wraps(fn)
    def method(self: SyncA2AClient, *args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        events: AsyncIterator[T] = getattr(self.client, fn.__name__)(*args, **kwargs)

        async def step() -> tuple[bool, T | None]:
            try:
                return True, await anext(events)
            except StopAsyncIteration:
                return False, None

        try:
            while True:
                more, event = _LoopThread.run(step)
                if not more:
                    return
                yield event  # type: ignore[misc]  # present whenever ``more``
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                _LoopThread.run(close)

    return method


def _sync_http(http: httpx.Client | httpx.AsyncClient | None) -> httpx.AsyncClient | None:
    """An ``http=`` given to a sync client, as the async client the loop thread can use.

    An ``httpx.Client`` passes on what it carries to every request — headers, auth, timeout,
    cookies, redirects; its connections stay its own (close it yourself, as before). One with a
    transport of its own (a mock, a tap) cannot cross over: pass an ``httpx.AsyncClient`` then.
    """
    if http is None or isinstance(http, httpx.AsyncClient):
        return http
    if type(http._transport) is not httpx.HTTPTransport:
        raise TypeError(
            "a sync client runs its requests on an event loop: give an httpx.AsyncClient to use "
            "a transport of your own (the httpx.Client given has one)"
        )
    return httpx.AsyncClient(
        headers=http.headers,
        cookies=http.cookies,
        auth=http.auth,
        timeout=http.timeout,
        follow_redirects=http.follow_redirects,
    )


class SyncA2AClient:
    """The same client without ``await``, for scripts, plain functions and the CLI.

    Every method is the async client's method of the same name, run on a private event-loop
    thread (one per process) until it returns; ``stream`` and ``subscribe`` are plain
    generators. The arguments are the async client's (``auth``, ``timeout`` …). Start from
    :meth:`discover` (the card's JSON-RPC interface) or :meth:`connect` (any binding)::

        with SyncA2AClient.connect(url, binding="rest", auth=ClientCredentials(...)) as client:
            task = client.send("Plan my trip to Sanya")
    """

    def __init__(
        self, url: str, *, http: httpx.Client | httpx.AsyncClient | None = None, **kwargs: Any
    ) -> None:
        """A JSON-RPC client for ``url`` (the arguments of :class:`A2AClient`)."""
        given = _sync_http(http)
        self._closes_http = given is not None and given is not http
        self.client: A2AClient = self._made(lambda: A2AClient(url, http=given, **kwargs))

    @staticmethod
    def _made(make: Callable[[], A2AClient]) -> A2AClient:
        async def on_loop() -> A2AClient:  # grpc.aio channels belong to the loop they are made on
            return make()

        return _LoopThread.run(on_loop)

    @classmethod
    def _around(cls, make: Callable[[], Awaitable[A2AClient]], converted: bool) -> SyncA2AClient:
        sync = cls.__new__(cls)
        sync._closes_http = converted
        sync.client = _LoopThread.run(make)
        return sync

    @classmethod
    def fetch_card(
        cls,
        base_url: str,
        *,
        http: httpx.Client | httpx.AsyncClient | None = None,
        timeout: float = 10.0,
        cache: CardCache | None = None,
    ) -> AgentCard:
        """GET the Agent Card (through ``cache`` if given), as :meth:`A2AClient.fetch_card`."""
        given = _sync_http(http)

        async def fetch() -> AgentCard:
            try:
                return await A2AClient.fetch_card(base_url, http=given, timeout=timeout, cache=cache)
            finally:
                if given is not None and given is not http:
                    await given.aclose()

        return _LoopThread.run(fetch)

    @classmethod
    def discover(cls, base_url: str, *, cache: CardCache | None = None, **kwargs: Any) -> SyncA2AClient:
        """Fetch the card, pick its JSON-RPC 1.0 interface, return a client bound to it."""
        http = kwargs.pop("http", None)
        given = _sync_http(http)
        return cls._around(
            lambda: A2AClient.discover(base_url, cache=cache, http=given, **kwargs),
            given is not None and given is not http,
        )

    @classmethod
    def connect(
        cls,
        base_url: str,
        *,
        binding: str | None = None,
        cache: CardCache | None = None,
        **kwargs: Any,
    ) -> SyncA2AClient:
        """The sync :func:`~agentproto.a2a.client_bindings.connect`: the card's most preferred
        binding (or ``binding``: ``jsonrpc``, ``rest``, ``grpc``), every operation without
        ``await``."""
        from agentproto.a2a.client_bindings import connect

        http = kwargs.pop("http", None)
        given = _sync_http(http)
        if given is not None:
            kwargs["http"] = given
        return cls._around(
            lambda: connect(base_url, binding=binding, cache=cache, **kwargs),
            given is not None and given is not http,
        )

    @property
    def url(self) -> str:
        return self.client.url

    @property
    def card(self) -> AgentCard | None:
        return self.client.card

    @property
    def requests_made(self) -> int:
        """How many requests this client has made (notebook 11 counts them)."""
        return self.client.requests_made

    @property
    def auth(self) -> ClientAuth | None:
        return self.client.auth

    def close(self) -> None:
        """Close the connections this client opened."""
        client, http = self.client, self.client._http

        async def close() -> None:
            await client.aclose()
            if self._closes_http:
                await http.aclose()

        _LoopThread.run(close)

    def __enter__(self) -> SyncA2AClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    call = _blocking(A2AClient.call)
    call_stream = _iterating(A2AClient.call_stream)
    send = _blocking(A2AClient.send)
    stream = _iterating(A2AClient.stream)
    subscribe = _iterating(A2AClient.subscribe)
    get_task = _blocking(A2AClient.get_task)
    list_tasks = _blocking(A2AClient.list_tasks)
    cancel_task = _blocking(A2AClient.cancel_task)
    create_push_config = _blocking(A2AClient.create_push_config)
    get_push_config = _blocking(A2AClient.get_push_config)
    list_push_configs = _blocking(A2AClient.list_push_configs)
    delete_push_config = _blocking(A2AClient.delete_push_config)
    get_extended_card = _blocking(A2AClient.get_extended_card)
    wait = _blocking(A2AClient.wait)
    send_and_wait = _blocking(A2AClient.send_and_wait)
