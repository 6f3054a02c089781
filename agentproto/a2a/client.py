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

One implementation per binding: :class:`A2AClient` (:mod:`agentproto.a2a._client_async`; the
binding classes in :mod:`agentproto.a2a.client_bindings` override only its ``call`` and
``call_stream``) is the client; :class:`SyncA2AClient`, here, runs any of them on a private
event-loop thread, so scripts get every method without ``await`` and nothing is written twice.
They are adapters: they own the sockets (httpx), the wall clock (``time.monotonic`` for
timeouts) and the default id source (:func:`agentproto.system.uuid_ids` for ``messageId``).
Everything that does no I/O — the client errors, request building, response parsing, card
discovery and caching (:class:`~agentproto.a2a.card_cache.CardCache`), the progress rule of
``wait`` — lives in :mod:`agentproto.a2a._client_core`. The errors are re-exported here.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from typing import Any, Concatenate, ParamSpec, TypeVar

import httpx

from agentproto import _loop_thread
from agentproto.a2a._client_async import A2AClient
from agentproto.a2a._client_core import (
    CARD_PATH,
    SETTLED_STATES,
    A2AClientError,
    A2AConnectionError,
    A2AHTTPError,
    A2ATimeoutError,
    InvalidResponseError,
    NoProgressError,
)
from agentproto.a2a.card_cache import CardCache
from agentproto.a2a.client_bindings import connect
from agentproto.a2a.types import AgentCard
from agentproto.client_auth import ClientAuth

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


# --------------------------------------------------------------------------- the sync twin


def _blocking(
    fn: Callable[Concatenate[A2AClient, P], Awaitable[R]],
) -> Callable[Concatenate[SyncA2AClient, P], R]:
    """The sync method of that name: the async client's method, run on the loop thread."""

    @functools.wraps(fn)
    def method(self: SyncA2AClient, *args: P.args, **kwargs: P.kwargs) -> R:
        bound: Callable[P, Awaitable[R]] = getattr(self.client, fn.__name__)  # the binding's own
        return _loop_thread.run(functools.partial(bound, *args, **kwargs))

    return method


def _iterating(
    fn: Callable[Concatenate[A2AClient, P], AsyncIterator[T]],
) -> Callable[Concatenate[SyncA2AClient, P], Generator[T, None, None]]:
    """The sync generator of that name: the async client's stream, one event per step."""

    @functools.wraps(fn)
    def method(self: SyncA2AClient, *args: P.args, **kwargs: P.kwargs) -> Generator[T, None, None]:
        events: AsyncIterator[T] = getattr(self.client, fn.__name__)(*args, **kwargs)

        async def step() -> tuple[bool, T | None]:
            try:
                return True, await anext(events)
            except StopAsyncIteration:
                return False, None

        try:
            while True:
                more, event = _loop_thread.run(step)
                if not more:
                    return
                yield event  # type: ignore[misc]  # present whenever ``more``
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                _loop_thread.run(close)

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


def _delegated(name: str, doc: str) -> Any:
    """A read-only attribute of the async client underneath."""
    return property(lambda self: getattr(self.client, name), doc=doc)


class SyncA2AClient:
    """The same client without ``await``, for scripts, plain functions and the CLI.

    Every method is the async client's method of the same name, run on the event-loop thread
    all sync clients of the process share (:mod:`agentproto._loop_thread`) until it returns;
    ``stream`` and ``subscribe`` are plain generators. The arguments are the async client's
    (``auth``, ``timeout`` …). Start from
    :meth:`discover` (the card's JSON-RPC interface) or :meth:`connect` (any binding)::

        with SyncA2AClient.connect(url, binding="rest", auth=ClientCredentials(...)) as client:
            task = client.send("Plan my trip to Sanya")
    """

    def __init__(
        self, url: str, *, http: httpx.Client | httpx.AsyncClient | None = None, **kwargs: Any
    ) -> None:
        """A JSON-RPC client for ``url`` (the arguments of :class:`A2AClient`)."""

        async def make(**options: Any) -> A2AClient:  # on the loop: grpc.aio channels are bound to it
            return A2AClient(url, **options)

        self._adopt(make, {"http": http, **kwargs})

    def _adopt(self, make: Callable[..., Awaitable[A2AClient]], kwargs: dict[str, Any]) -> None:
        """Make the async client on the loop thread; an ``http=`` given as ``httpx.Client``
        becomes an ``httpx.AsyncClient`` that this client closes (:func:`_sync_http`)."""
        http = kwargs.pop("http", None)
        given = _sync_http(http)
        self._closes_http = given is not None and given is not http
        self.client: A2AClient = _loop_thread.run(lambda: make(http=given, **kwargs))

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

        return _loop_thread.run(fetch)

    @classmethod
    def discover(cls, base_url: str, *, cache: CardCache | None = None, **kwargs: Any) -> SyncA2AClient:
        """Fetch the card, pick its JSON-RPC 1.0 interface, return a client bound to it."""
        sync = cls.__new__(cls)
        sync._adopt(functools.partial(A2AClient.discover, base_url, cache=cache), kwargs)
        return sync

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
        sync = cls.__new__(cls)
        sync._adopt(functools.partial(connect, base_url, binding=binding, cache=cache), kwargs)
        return sync

    url: str = _delegated("url", "The URL of the interface the client talks to.")
    card: AgentCard | None = _delegated("card", "The Agent Card the client was bound from.")
    requests_made: int = _delegated("requests_made", "How many requests it made (notebook 11 counts them).")
    auth: ClientAuth | None = _delegated("auth", "The ``auth=`` it sends (a ClientAuth, or None).")

    def close(self) -> None:
        """Close the connections this client opened."""
        client, http = self.client, self.client._http

        async def close() -> None:
            await client.aclose()
            if self._closes_http:
                await http.aclose()

        _loop_thread.run(close)

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
