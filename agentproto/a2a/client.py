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
Everything both clients share that does no I/O — request building, response parsing, card
discovery and caching (:class:`~agentproto.a2a.card_cache.CardCache`), the progress rule of
``wait`` — lives in :class:`_Protocol`, :class:`_CardRequest` and :class:`_Progress`, so the
async and sync clients differ only in how they move bytes.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncIterator, Generator, Mapping, Sequence
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from agentproto.a2a.card_cache import CardCache
from agentproto.a2a.errors import error_from_wire
from agentproto.a2a.states import INTERRUPTED_STATES, TERMINAL_STATES, TaskState
from agentproto.a2a.types import (
    JSONRPC_BINDING,
    PROTOCOL_VERSION,
    AgentCard,
    ListTaskPushNotificationConfigsResponse,
    ListTasksResponse,
    Message,
    Part,
    SendMessageResponse,
    StreamResponse,
    Task,
    TaskPushNotificationConfig,
    user_message,
)
from agentproto.clock import IdSource
from agentproto.runtime import uuid_ids
from agentproto.sse import EventStreamDecoder, SSEDecodeError

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

M = TypeVar("M", bound=BaseModel)

CARD_PATH = "/.well-known/agent-card.json"
#: States at which waiting ends: terminal, or waiting for the client.
SETTLED_STATES = TERMINAL_STATES | INTERRUPTED_STATES


class A2AClientError(Exception):
    """Something went wrong below the A2A protocol (network, HTTP, timeouts, garbage)."""


class A2AConnectionError(A2AClientError):
    """The agent could not be reached."""


class A2AHTTPError(A2AClientError):
    """The agent answered with an HTTP error that carries no JSON-RPC error."""

    def __init__(self, status_code: int, message: str) -> None:
        self.status_code = status_code
        super().__init__(message)


class InvalidResponseError(A2AClientError):
    """The agent's answer is not a valid JSON-RPC / A2A response."""


class A2ATimeoutError(A2AClientError):
    """The overall time budget ran out."""


class NoProgressError(A2ATimeoutError):
    """Nothing changed for ``no_progress_timeout`` seconds (stream silent, task status frozen)."""


# --------------------------------------------------------------------------- sans-I/O core


class _Protocol:
    """Request building and response parsing shared by the async and sync clients."""

    def __init__(
        self,
        url: str,
        *,
        card: AgentCard | None,
        version: str,
        extensions: Sequence[str],
        tenant: str,
        ids: IdSource,
    ) -> None:
        self.url = url
        self.card = card
        self.version = version
        self.extensions = list(extensions)
        self.tenant = tenant
        self.ids = ids
        self._rpc_ids = itertools.count(1)
        #: How many HTTP requests this client has made (notebook 11 counts them).
        self.requests_made = 0

    def headers(self, *, stream: bool = False) -> dict[str, str]:
        h = {"A2A-Version": self.version, "Content-Type": "application/json"}
        if self.extensions:
            h["A2A-Extensions"] = ", ".join(self.extensions)
        if stream:
            h["Accept"] = "text/event-stream"
        return h

    def payload(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if self.tenant and "tenant" not in params:
            params = {"tenant": self.tenant, **params}
        self.requests_made += 1
        return {"jsonrpc": "2.0", "id": next(self._rpc_ids), "method": method, "params": params}

    def message(
        self, content: Message | str | Part | list[Part], task_id: str | None, context_id: str | None
    ) -> Message:
        msg = content if isinstance(content, Message) else user_message(content, message_id=self.ids())
        update = {}
        if task_id:
            update["task_id"] = task_id
        if context_id:
            update["context_id"] = context_id
        return msg.model_copy(update=update) if update else msg

    def send_params(
        self,
        msg: Message,
        *,
        return_immediately: bool,
        history_length: int | None,
        push: TaskPushNotificationConfig | None,
        accepted_output_modes: Sequence[str] | None,
        metadata: dict[str, Any] | None,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"message": msg.to_wire()}
        config: dict[str, Any] = {}
        if return_immediately:
            config["returnImmediately"] = True
        if history_length is not None:
            config["historyLength"] = history_length
        if push is not None:
            config["taskPushNotificationConfig"] = push.to_wire()
        if accepted_output_modes:
            config["acceptedOutputModes"] = list(accepted_output_modes)
        if config:
            params["configuration"] = config
        if metadata:
            params["metadata"] = metadata
        return params

    @staticmethod
    def result(data: Any) -> Any:
        """The ``result`` of a JSON-RPC response, or raise the error it carries."""
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            raise InvalidResponseError(f"not a JSON-RPC 2.0 response: {str(data)[:200]}")
        if "error" in data and data["error"] is not None:
            err = data["error"]
            if not isinstance(err, dict):
                raise InvalidResponseError(f"JSON-RPC error is not an object: {err!r}")
            raise error_from_wire(err)
        if "result" not in data:
            raise InvalidResponseError("JSON-RPC response has neither 'result' nor 'error'")
        return data["result"]

    @staticmethod
    def parse(model: type[M], data: Any) -> M:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise InvalidResponseError(f"invalid {model.__name__} from the agent: {exc}") from exc

    @staticmethod
    def get_task_params(task_id: str, history_length: int | None) -> dict[str, Any]:
        params: dict[str, Any] = {"id": task_id}
        if history_length is not None:
            params["historyLength"] = history_length
        return params

    def events(self, decoder: EventStreamDecoder, chunk: bytes) -> list[StreamResponse]:
        """The complete events in one chunk of an SSE body, parsed (errors raised typed)."""
        return [self.parse(StreamResponse, self.result(_json(data))) for data in _feed(decoder, chunk)]

    def decode_http(self, response: httpx.Response) -> Any:
        """JSON body of a plain (non-streaming) answer; HTTP errors become client errors."""
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            data = None
        if isinstance(data, dict) and "jsonrpc" in data:
            return data
        if response.status_code >= 400:
            raise A2AHTTPError(
                response.status_code, f"HTTP {response.status_code} from {self.url}: {response.text[:200]}"
            )
        raise InvalidResponseError(f"not JSON-RPC: {response.text[:200]}")

    @staticmethod
    def choose_interface(card: AgentCard, version: str) -> tuple[str, str]:
        itf = card.interface(JSONRPC_BINDING, version)
        if itf is None:
            offered = (
                ", ".join(f"{i.protocol_binding} {i.protocol_version}" for i in card.supported_interfaces)
                or "nothing"
            )
            raise A2AClientError(
                f"agent {card.name!r} offers no JSON-RPC {version} interface (it offers {offered})"
            )
        return itf.url, itf.tenant


def _send_result(data: Any) -> Task | Message:
    return _Protocol.parse(SendMessageResponse, data).payload


class _CardRequest:
    """Fetching one Agent Card, optionally through a :class:`CardCache` (no I/O here).

    ``cached`` is the card if the cache had a fresh copy (then no request is made);
    otherwise the adapter GETs :attr:`url` with :attr:`headers` and hands the answer to
    :meth:`answer`.
    """

    def __init__(self, base_url: str, cache: CardCache | None) -> None:
        self.base_url = base_url
        self.url = base_url.rstrip("/") + CARD_PATH
        self.cache = cache
        self.cached = cache.lookup(self.url) if cache is not None else None
        self.headers = cache.conditional_headers(self.url) if cache is not None else {}

    def unreachable(self, exc: Exception) -> A2AConnectionError:
        return A2AConnectionError(f"cannot reach {self.base_url}: {exc}")

    def answer(self, status: int, headers: Mapping[str, str], body: bytes) -> AgentCard:
        if status == 304 and self.cache is not None and self.headers:
            return self.cache.not_modified(self.url, headers)
        if status != 200:
            raise A2AHTTPError(status, f"no Agent Card at {self.url} (HTTP {status})")
        try:
            card = AgentCard.model_validate_json(body)
        except (ValueError, ValidationError) as exc:
            raise InvalidResponseError(f"invalid Agent Card at {self.base_url}: {exc}") from exc
        return self.cache.store(self.url, card, headers) if self.cache is not None else card


class _Progress:
    """The rule of ``wait``: settled → done; unchanged for ``no_progress_timeout`` → give up;
    past ``timeout`` → give up. Times are seconds on whatever clock the caller reads."""

    def __init__(
        self, task_id: str, start: float, timeout: float | None, no_progress_timeout: float | None
    ) -> None:
        self.task_id = task_id
        self.start = self.last_change = start
        self.timeout = timeout
        self.no_progress_timeout = no_progress_timeout
        self.last_key: tuple[Any, ...] | None = None

    def settled(self, task: Task, now: float) -> bool:
        """True if ``task`` is settled; raise if waiting must stop; else keep polling."""
        if task.status.state in SETTLED_STATES:
            return True
        key = _progress_key(task)
        if key != self.last_key:
            self.last_key, self.last_change = key, now
        elif self.no_progress_timeout is not None and now - self.last_change >= self.no_progress_timeout:
            raise NoProgressError(
                f"task {self.task_id} made no progress for "
                f"{self.no_progress_timeout} s (still {task.status.state.value})"
            )
        if self.timeout is not None and now - self.start >= self.timeout:
            raise A2ATimeoutError(f"task {self.task_id} not settled after {self.timeout} s")
        return False


def _progress_key(task: Task) -> tuple[Any, ...]:
    """What counts as progress while polling: state, status time, artifacts, history size."""
    return (
        task.status.state,
        task.status.timestamp,
        len(task.artifacts),
        len(task.history),
        sum(len(a.parts) for a in task.artifacts),
    )


# --------------------------------------------------------------------------- async client


class A2AClient:
    """Async A2A client. Use :meth:`discover` to start from an agent's base URL.

    >>> async with await A2AClient.discover("http://127.0.0.1:8000") as client:  # doctest: +SKIP
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
    ) -> None:
        self._p = _Protocol(
            url, card=card, version=version, extensions=extensions, tenant=tenant, ids=ids or uuid_ids
        )
        self._http = http or httpx.AsyncClient(timeout=timeout)
        self._own_http = http is None

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
        http = kwargs.get("http")
        card = await cls.fetch_card(base_url, http=http, cache=cache)
        version = kwargs.get("version", PROTOCOL_VERSION)
        url, tenant = _Protocol.choose_interface(card, version)
        kwargs.setdefault("tenant", tenant)
        return cls(url, card=card, **kwargs)

    @property
    def url(self) -> str:
        return self._p.url

    @property
    def card(self) -> AgentCard | None:
        return self._p.card

    @property
    def requests_made(self) -> int:
        return self._p.requests_made

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
        kwargs: dict[str, Any] = {}
        if timeout is not None:
            kwargs["timeout"] = timeout
        try:
            response = await self._http.post(
                self._p.url, json=self._p.payload(method, params), headers=self._p.headers(), **kwargs
            )
        except httpx.TimeoutException as exc:
            raise A2ATimeoutError(f"{method}: no answer from {self._p.url} in time") from exc
        except httpx.HTTPError as exc:
            raise A2AConnectionError(f"{method}: cannot reach {self._p.url}: {exc}") from exc
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
            "POST",
            self._p.url,
            json=self._p.payload(method, params),
            headers=self._p.headers(stream=True),
            timeout=httpx.Timeout(self._http.timeout.connect, read=None),
        )
        try:
            response = await self._http.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise A2AConnectionError(f"{method}: cannot reach {self._p.url}: {exc}") from exc
        try:
            if "text/event-stream" not in response.headers.get("content-type", ""):
                await response.aread()  # an error before the stream started
                self._p.result(self._p.decode_http(response))
                raise InvalidResponseError(f"{method}: expected an event stream")
            decoder = EventStreamDecoder()
            chunks = response.aiter_bytes()
            while True:
                limit = _remaining(deadline, no_progress_timeout)
                try:
                    chunk = await asyncio.wait_for(anext(chunks), limit) if limit else await anext(chunks)
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    _raise_timeout(deadline, no_progress_timeout, method)
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
        msg = self._p.message(message, task_id, context_id)
        params = self._p.send_params(
            msg,
            return_immediately=return_immediately,
            history_length=history_length,
            push=push,
            accepted_output_modes=accepted_output_modes,
            metadata=metadata,
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
        msg = self._p.message(message, task_id, context_id)
        params = self._p.send_params(
            msg,
            return_immediately=False,
            history_length=history_length,
            push=push,
            accepted_output_modes=None,
            metadata=metadata,
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
        params = _list_params(
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


def _list_params(
    context_id: str,
    status: TaskState | None,
    page_size: int | None,
    page_token: str,
    history_length: int | None,
    include_artifacts: bool | None,
    status_timestamp_after: str | None,
) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if context_id:
        params["contextId"] = context_id
    if status is not None:
        params["status"] = status.value
    if page_size is not None:
        params["pageSize"] = page_size
    if page_token:
        params["pageToken"] = page_token
    if history_length is not None:
        params["historyLength"] = history_length
    if include_artifacts is not None:
        params["includeArtifacts"] = include_artifacts
    if status_timestamp_after is not None:
        params["statusTimestampAfter"] = status_timestamp_after
    return params


def _feed(decoder: EventStreamDecoder, chunk: bytes) -> list[str]:
    try:
        return decoder.feed(chunk)
    except SSEDecodeError as exc:
        raise InvalidResponseError(f"broken event stream: {exc}") from exc


def _json(data: str) -> Any:
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise InvalidResponseError(f"stream event is not JSON: {data[:200]}") from exc


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


# --------------------------------------------------------------------------- sync client


class SyncA2AClient:
    """The same client for scripts and the CLI, on :class:`httpx.Client`."""

    def __init__(
        self,
        url: str,
        *,
        card: AgentCard | None = None,
        http: httpx.Client | None = None,
        timeout: float = 30.0,
        version: str = PROTOCOL_VERSION,
        extensions: Sequence[str] = (),
        tenant: str = "",
        ids: IdSource | None = None,
    ) -> None:
        self._p = _Protocol(
            url, card=card, version=version, extensions=extensions, tenant=tenant, ids=ids or uuid_ids
        )
        self._http = http or httpx.Client(timeout=timeout)
        self._own_http = http is None

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
        url, tenant = _Protocol.choose_interface(card, kwargs.get("version", PROTOCOL_VERSION))
        kwargs.setdefault("tenant", tenant)
        return cls(url, card=card, **kwargs)

    @property
    def url(self) -> str:
        return self._p.url

    @property
    def card(self) -> AgentCard | None:
        return self._p.card

    @property
    def requests_made(self) -> int:
        return self._p.requests_made

    def close(self) -> None:
        if self._own_http:
            self._http.close()

    def __enter__(self) -> SyncA2AClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        kwargs: dict[str, Any] = {}
        if timeout is not None:
            kwargs["timeout"] = timeout
        try:
            response = self._http.post(
                self._p.url, json=self._p.payload(method, params), headers=self._p.headers(), **kwargs
            )
        except httpx.TimeoutException as exc:
            raise A2ATimeoutError(f"{method}: no answer from {self._p.url} in time") from exc
        except httpx.HTTPError as exc:
            raise A2AConnectionError(f"{method}: cannot reach {self._p.url}: {exc}") from exc
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
                "POST",
                self._p.url,
                json=self._p.payload(method, params),
                headers=self._p.headers(stream=True),
                timeout=httpx.Timeout(self._http.timeout.connect, read=read),
            ) as response:
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    response.read()
                    self._p.result(self._p.decode_http(response))
                    raise InvalidResponseError(f"{method}: expected an event stream")
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
        msg = self._p.message(message, task_id, context_id)
        params = self._p.send_params(
            msg,
            return_immediately=return_immediately,
            history_length=history_length,
            push=push,
            accepted_output_modes=accepted_output_modes,
            metadata=metadata,
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
        msg = self._p.message(message, task_id, context_id)
        params = self._p.send_params(
            msg,
            return_immediately=False,
            history_length=history_length,
            push=None,
            accepted_output_modes=None,
            metadata=None,
        )
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
        params = _list_params(
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
