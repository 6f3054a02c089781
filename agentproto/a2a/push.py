"""Push notifications: POST every task update to the client's webhook (spec §3.1.7–3.1.10, §4.3).

Each event the task produces — the same ``StreamResponse`` a streaming client would read — is
POSTed as the request body to every webhook configured for the task, with
``Content-Type: application/a2a+json``, the config's ``token`` in ``X-A2A-Notification-Token``
(the header a2a-sdk uses) and, if the config has ``authentication``, an
``Authorization: <scheme> <credentials>`` header.

Delivery runs off the task's critical path: one queue and one worker per webhook keeps the
events of a task in order for that webhook, and a slow or dead webhook never stalls the agent.
The agent MUST try at least once; we retry failed POSTs (connection errors, 5xx, 408, 425,
429 — not other 4xx, which a retry will not change) with exponential backoff, and log every
attempt in :attr:`PushNotifier.deliveries` for the notebooks.

Webhook URLs are checked when a config is created (:func:`check_webhook_url`): the spec says
servers SHOULD refuse private and loopback targets (§13.2, server-side request forgery).
Loopback is allowed only when the server is told so — the teaching server on 127.0.0.1 does,
so a learner can watch pushes arrive on their own laptop.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import threading
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from agentproto.a2a.errors import InvalidParamsError
from agentproto.a2a.types import StreamResponse, TaskPushNotificationConfig

if TYPE_CHECKING:  # pragma: no cover - starlette is imported when the recorder app is built
    from starlette.applications import Starlette

#: One queued delivery, or ``None`` telling the worker to stop.
_Job = tuple[TaskPushNotificationConfig, StreamResponse] | None

__all__ = [
    "PushNotifier",
    "Delivery",
    "check_webhook_url",
    "authorization_matches",
    "WebhookRecorder",
    "ReceivedPush",
    "A2A_JSON",
    "TOKEN_HEADER",
]

log = logging.getLogger(__name__)

#: Media type of HTTP+JSON bodies, used for webhook POSTs whatever the agent's binding (§4.3).
A2A_JSON = "application/a2a+json"
TOKEN_HEADER = "X-A2A-Notification-Token"


def check_webhook_url(url: str, *, allow_loopback: bool = False, allow_private: bool = False) -> None:
    """Refuse webhook URLs that would let a client aim the server at internal hosts.

    Only literal addresses and ``localhost`` are judged (no DNS lookup: this runs offline and
    inside request handling); raises :class:`InvalidParamsError` naming the problem.
    """

    def refuse(why: str) -> InvalidParamsError:
        return InvalidParamsError(
            f"push notification url {url!r} refused: {why}",
            violations=[("url", why)],
        )

    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https"):
        raise refuse("scheme must be http or https")
    host = parsed.hostname
    if not host:
        raise refuse("no host")
    if host == "localhost" or host.endswith(".localhost"):
        if not allow_loopback:
            raise refuse("loopback targets are not allowed (spec §13.2)")
        return
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return  # a host name: judged by the network, not here
    mapped = getattr(addr, "ipv4_mapped", None)
    if isinstance(mapped, ipaddress.IPv4Address):
        addr = mapped
    if addr.is_loopback:
        if not allow_loopback:
            raise refuse("loopback targets are not allowed (spec §13.2)")
        return
    if not allow_private and (
        addr.is_private or addr.is_link_local or addr.is_multicast or addr.is_reserved or addr.is_unspecified
    ):
        raise refuse("private, link-local and reserved addresses are not allowed (spec §13.2)")


def _retryable(status: int) -> bool:
    """Server trouble, timeouts and rate limits are worth retrying; other 4xx are not."""
    return status >= 500 or status in (408, 425, 429)


@dataclass(frozen=True)
class Delivery:
    """One POST attempt: which event went where, and what came back."""

    task_id: str
    config_id: str
    url: str
    kind: str
    attempt: int
    status_code: int | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class PushNotifier:
    """Delivers StreamResponses to webhooks, in order per webhook, with retries."""

    def __init__(
        self,
        *,
        http: httpx.AsyncClient | None = None,
        timeout_s: float = 10.0,
        attempts: int = 3,
        backoff_s: float = 0.2,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._http = http
        self._own_http = http is None
        self.timeout_s = timeout_s
        self.attempts = max(1, attempts)
        self.backoff_s = backoff_s
        self._sleep = sleep
        self._queues: dict[tuple[str, str], asyncio.Queue[_Job]] = {}
        self._workers: dict[tuple[str, str], asyncio.Task[None]] = {}
        #: Every attempt, in the order made (bounded to the last 10 000).
        self.deliveries: list[Delivery] = []

    def enqueue(self, config: TaskPushNotificationConfig, event: StreamResponse) -> None:
        """Schedule ``event`` for ``config``'s webhook (needs a running event loop)."""
        key = (config.task_id, config.id)
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = asyncio.Queue()
            self._workers[key] = asyncio.get_running_loop().create_task(
                self._work(key, queue), name=f"a2a-push-{config.task_id}-{config.id}"
            )
        queue.put_nowait((config, event))

    def retire(self, task_id: str) -> None:
        """The task is terminal: let its workers finish what is queued, then stop."""
        for key, queue in list(self._queues.items()):
            if key[0] == task_id:
                queue.put_nowait(None)
                del self._queues[key]

    async def drain(self) -> None:
        """Wait until every queued notification has been delivered or given up on."""
        retiring = [w for k, w in self._workers.items() if k not in self._queues]
        await asyncio.gather(*retiring, *(q.join() for q in list(self._queues.values())))

    async def aclose(self) -> None:
        """Stop the workers (pending notifications are dropped) and close the HTTP client."""
        for worker in self._workers.values():
            worker.cancel()
        await asyncio.gather(*self._workers.values(), return_exceptions=True)
        self._workers.clear()
        self._queues.clear()
        if self._own_http and self._http is not None:
            await self._http.aclose()
            self._http = None

    async def _work(self, key: tuple[str, str], queue: asyncio.Queue[_Job]) -> None:
        try:
            while True:
                item = await queue.get()
                if item is None:  # retired: everything before it has been delivered
                    queue.task_done()
                    return
                config, event = item
                try:
                    await self._deliver(config, event)
                except Exception:  # pragma: no cover - _deliver catches transport errors
                    log.exception("push delivery crashed for task %s", config.task_id)
                finally:
                    queue.task_done()
        finally:
            if self._workers.get(key) is asyncio.current_task():
                del self._workers[key]

    async def _deliver(self, config: TaskPushNotificationConfig, event: StreamResponse) -> None:
        if self._http is None:
            self._http = httpx.AsyncClient(timeout=self.timeout_s)
        headers = {"Content-Type": A2A_JSON}
        if config.token:
            headers[TOKEN_HEADER] = config.token
        auth = config.authentication
        if auth is not None and auth.scheme:
            headers["Authorization"] = f"{auth.scheme} {auth.credentials}".strip()
        body = event.model_dump_json(by_alias=True, exclude_defaults=True)
        for attempt in range(1, self.attempts + 1):
            status: int | None = None
            error = ""
            try:
                response = await self._http.post(config.url, content=body, headers=headers)
                status = response.status_code
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"
            self._log(Delivery(config.task_id, config.id, config.url, event.kind, attempt, status, error))
            if status is not None and (200 <= status < 300 or not _retryable(status)):
                return  # delivered — or refused for good (a 4xx will not change on retry)
            if attempt < self.attempts:
                await self._sleep(self.backoff_s * 2 ** (attempt - 1))
        log.warning(
            "push to %s for task %s failed after %d attempts", config.url, config.task_id, self.attempts
        )

    def _log(self, d: Delivery) -> None:
        self.deliveries.append(d)
        if len(self.deliveries) > 10_000:
            del self.deliveries[:1_000]


# --------------------------------------------------------------------------- the client's side


@dataclass(frozen=True)
class ReceivedPush:
    """One notification as a webhook saw it."""

    at: float  # time.monotonic() on arrival
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def event(self) -> StreamResponse:
        return StreamResponse.from_wire(self.body)


def authorization_matches(headers: Mapping[str, str], scheme: str, credentials: str) -> bool:
    """Does a webhook request carry ``Authorization: <scheme> <credentials>`` as configured in
    the push config's ``authentication``? This is the receiver's check: "Clients MUST validate
    webhook authenticity using the provided authentication credentials" (§13.2; the header is
    §4.3.3's). The scheme is compared case-insensitively (RFC 9110 §11.1, as
    ``AuthenticationInfo.scheme`` in a2a.proto says), the credentials in constant time."""
    value = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
    got_scheme, _, got_credentials = value.partition(" ")
    return got_scheme.lower() == scheme.lower() and hmac.compare_digest(
        got_credentials.strip().encode(), credentials.encode()
    )


class WebhookRecorder:
    """A client's webhook for demos and tests: records every POST it receives.

    ``recorder.app()`` is a Starlette app with ``POST /hook``; serve it on loopback (e.g. with
    :func:`agentproto.testing.running_server`) and configure ``<url>/hook`` as the push URL.
    The first ``fail_first`` requests are answered 500, to watch the agent retry.

    A webhook MUST validate the credentials it configured (§13.2): with
    ``expect_authorization=(scheme, credentials)`` — what the push config's ``authentication``
    said — a request without that ``Authorization`` is refused with 401 (and a
    ``WWW-Authenticate`` challenge) and not recorded. That check works with any A2A agent.
    ``expect_token`` checks the config's ``token`` in ``X-A2A-Notification-Token`` instead: the
    kit's and a2a-sdk's header, not the spec's. A body that is not a JSON object gets 400.
    """

    def __init__(
        self,
        *,
        fail_first: int = 0,
        expect_token: str | None = None,
        expect_authorization: tuple[str, str] | None = None,
    ) -> None:
        self.fail_first = fail_first
        self.expect_token = expect_token
        self.expect_authorization = expect_authorization
        self.attempts = 0
        self.received: list[ReceivedPush] = []
        self._lock = threading.Lock()

    def app(self) -> Starlette:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import Response
        from starlette.routing import Route

        async def hook(request: Request) -> Response:
            with self._lock:
                self.attempts += 1
                failing = self.attempts <= self.fail_first
            if failing:
                return Response(status_code=500)
            if self.expect_authorization is not None:
                scheme, credentials = self.expect_authorization
                if not authorization_matches(request.headers, scheme, credentials):
                    return Response(status_code=401, headers={"WWW-Authenticate": scheme})
            if self.expect_token is not None and not hmac.compare_digest(
                request.headers.get(TOKEN_HEADER.lower(), "").encode(), self.expect_token.encode()
            ):
                return Response(status_code=401)
            try:
                body = json.loads(await request.body())
            except (ValueError, RecursionError):  # not JSON (or not UTF-8), or absurdly deep
                return Response(status_code=400)
            if not isinstance(body, dict):
                return Response(status_code=400)
            with self._lock:
                self.received.append(ReceivedPush(time.monotonic(), dict(request.headers), body))
            return Response(status_code=204)

        return Starlette(routes=[Route("/hook", hook, methods=["POST"])])

    def kinds(self) -> list[str]:
        """The payload kind of each notification so far: ``task``, ``statusUpdate`` …"""
        return [next(iter(r.body)) for r in self.received]

    def clear(self) -> None:
        with self._lock:
            self.received.clear()
            self.attempts = 0
