"""The async A2A client over the JSON-RPC binding (httpx), and the base of every binding's client.

:class:`A2AClient` does every operation through ``call`` (one request) and ``call_stream`` (the
``StreamResponse`` events); :mod:`agentproto.a2a.client_bindings` overrides only those two for
HTTP+JSON and gRPC, and :class:`agentproto.a2a.client.SyncA2AClient` runs any of them without
``await``. The overview — discovery, the four ways to get a result, timeouts, ``auth=``,
errors — is in :mod:`agentproto.a2a.client`, which re-exports everything public here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, NoReturn

import httpx

from agentproto.a2a._client_core import (
    SETTLED_STATES,
    A2AClientError,
    A2AConnectionError,
    A2ATimeoutError,
    InvalidResponseError,
    NoProgressError,
    _CardRequest,
    _feed,
    _Progress,
    _Protocol,
    _send_result,
)
from agentproto.a2a.card_cache import CardCache
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
from agentproto.sse import EventStreamDecoder
from agentproto.system import uuid_ids

__all__ = ["A2AClient"]


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
