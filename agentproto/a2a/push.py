"""Push notifications: POST every task update to the client's webhook (spec §3.1.7–3.1.10, §4.3).

Each event the task produces — the same ``StreamResponse`` a streaming client would read — is
POSTed as the request body to every webhook configured for the task, with
``Content-Type: application/a2a+json``, the config's ``token`` in ``X-A2A-Notification-Token``
(the header a2a-sdk uses) and, if the config has ``authentication``, an
``Authorization: <scheme> <credentials>`` header. A ``task`` snapshot goes without its history
(:data:`PUSH_HISTORY_LENGTH`): the webhook learns the task's state and artifacts, not the
conversation.

Delivery runs off the task's critical path: one queue and one worker per webhook keeps the
events of a task in order for that webhook, and a slow or dead webhook never stalls the agent.
At most :data:`MAX_CONCURRENT_DELIVERIES` POSTs are in flight at once, whatever the number of
webhooks. The agent MUST try at least once; we retry failed POSTs (connection errors, 5xx, 408,
425, 429 — not other 4xx, which a retry will not change) with exponential backoff, and log every
attempt in :attr:`PushNotifier.deliveries` for the notebooks. Redirects are never followed.

Webhook URLs are checked twice, under one policy: the spec says servers SHOULD refuse private
and loopback targets (§13.2, server-side request forgery). When a config is created,
:func:`check_webhook_url` judges the URL as httpx will send it (legacy IPv4 spellings such as
``2130706433`` or ``127.1`` are refused, and the URL stored is exactly the URL used). When a
notification is sent, the URL is checked again and the host is resolved: every address must
pass, and the connection goes to the checked address (:mod:`agentproto.a2a._push_egress`), so a host
name — or a DNS answer that changes — cannot lead to an internal host. A URL refused then is a
permanent failure (one WARNING per config, no retry); URLs are logged with ``%r``, escaped.
Loopback is allowed only when the server is told so — the teaching server on 127.0.0.1 does,
so a learner can watch pushes arrive on their own laptop.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import re
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from agentproto.a2a._push_egress import (
    LOOPBACK_REFUSED,
    PRIVATE_REFUSED,
    EgressPolicy,
    IPAddress,
    address_refusal,
    pinned_client,
)
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
    "MAX_CONCURRENT_DELIVERIES",
    "MAX_WEBHOOK_URL_CHARS",
    "PUSH_HISTORY_LENGTH",
    "PRIVATE_USE_SUFFIXES",
]

log = logging.getLogger(__name__)

#: Media type of HTTP+JSON bodies, used for webhook POSTs whatever the agent's binding (§4.3).
A2A_JSON = "application/a2a+json"
TOKEN_HEADER = "X-A2A-Notification-Token"


#: The longest webhook URL accepted (a webhook needs no more; it keeps log lines short).
MAX_WEBHOOK_URL_CHARS = 2048

#: Host names that resolve inside a private network by definition: mDNS (RFC 6762), home
#: networks (RFC 8375) and ICANN's private-use ``.internal`` (cloud metadata lives there).
PRIVATE_USE_SUFFIXES = (".local", ".home.arpa", ".internal")

#: A last label like this makes the C resolver read the host as an IPv4 address (inet_aton:
#: decimal, octal, hex, short forms); only canonical dotted-quad decimal is accepted.
_NUMERIC_LABEL = re.compile(r"0x[0-9a-f]*|[0-9]+", re.IGNORECASE)


def check_webhook_url(url: str, *, allow_loopback: bool = False, allow_private: bool = False) -> None:
    """Refuse webhook URLs that would let a client aim the server at internal hosts, or that
    would not be sent as written.

    The URL is read as httpx will read it, and must come back unchanged (so the URL stored is
    exactly the URL used): printable ASCII only, ``http``/``https``, no userinfo, a port in
    1–65535. Its host is judged without a DNS lookup (this runs inside request handling):
    literal addresses by :func:`~agentproto.a2a._push_egress.address_refusal`; legacy IPv4 spellings
    (``2130706433``, ``0x7f000001``, ``0177.0.0.1``, ``127.1``, ``0``), trailing dots and
    percent-encoded hosts are refused outright; ``localhost`` is loopback; private-use names
    (``.local``, ``.home.arpa``, ``.internal``) are private. Any other name passes here and
    its addresses are checked when a notification is sent (:mod:`agentproto.a2a._push_egress`).
    Raises :class:`InvalidParamsError` naming the problem (the URL shown escaped, ``%r``).
    """
    policy = EgressPolicy(allow_loopback=allow_loopback, allow_private=allow_private)

    def refuse(why: str) -> InvalidParamsError:
        shown = url if len(url) <= 200 else url[:200] + "…"
        return InvalidParamsError(
            f"push notification url {shown!r} refused: {why}",
            violations=[("url", why)],
        )

    if len(url) > MAX_WEBHOOK_URL_CHARS:
        raise refuse(f"longer than {MAX_WEBHOOK_URL_CHARS} characters")
    if not url.isascii() or any(c <= " " or c == "\x7f" for c in url):
        raise refuse(
            "control, space and non-ASCII characters are not allowed "
            "(percent-encode them; write an IDN host in its xn-- form)"
        )
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise refuse(f"not a URL that can be sent: {exc}") from None
    if parsed.scheme not in ("http", "https"):
        raise refuse("scheme must be http or https")
    host = parsed.raw_host.decode("ascii")
    if not host:
        raise refuse("no host")
    if str(parsed) != url:
        raise refuse(f"not as written when sent; write it as {str(parsed)!r}")
    if parsed.userinfo:
        raise refuse("credentials in the URL are not allowed (RFC 9110 §4.2.4); use authentication")
    if parsed.port is not None and not 1 <= parsed.port <= 65535:
        raise refuse("port out of range")
    literal = host
    if "%" in host:
        if ":" not in host:  # only an IPv6 zone (fe80::1%25eth0) may hold a percent sign
            raise refuse("percent-encoded host names are not allowed")
        literal = host.replace("%25", "%", 1)
    if host.endswith("."):
        raise refuse("host names ending in a dot are not allowed")
    try:
        addr: IPAddress | None = ipaddress.ip_address(literal)
    except ValueError:
        addr = None
    if addr is None:
        name = host.lower()
        if _NUMERIC_LABEL.fullmatch(name.rsplit(".", 1)[-1]):
            raise refuse("not a canonical IPv4 address (write a.b.c.d in decimal)")
        if name == "localhost" or name.endswith(".localhost"):
            if not allow_loopback:
                raise refuse(LOOPBACK_REFUSED)
            return
        if name.endswith(PRIVATE_USE_SUFFIXES) and not allow_private:
            raise refuse(PRIVATE_REFUSED)
        return  # a host name: every address it resolves to is checked at delivery time
    why = address_refusal(addr, policy)
    if why is not None:
        raise refuse(why)


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


#: POSTs in flight at once, over all webhooks of a notifier (the rest wait their turn).
MAX_CONCURRENT_DELIVERIES = 8

#: Messages of the task's history a pushed ``task`` snapshot keeps (``None``: all of them).
#: The webhook gets the task's state and artifacts; the conversation stays with the server.
PUSH_HISTORY_LENGTH: int | None = 0

#: Configs remembered as refused for good, so later events log at DEBUG, not WARNING.
_MAX_REMEMBERED_REFUSALS = 10_000


class PushNotifier:
    """Delivers StreamResponses to webhooks, in order per webhook, with retries.

    ``allow_loopback`` / ``allow_private`` are the webhook policy (spec §13.2), judged again
    at every delivery: the URL by :func:`check_webhook_url` (a config stored before a check
    existed gets no pass), then every address its host resolves to, with the connection
    pinned to the checked address (:mod:`agentproto.a2a._push_egress`). An
    :class:`~agentproto.a2a.service.A2AService` keeps its own settings on its notifier, so
    create time and delivery time judge alike. A refused URL is a permanent failure: one
    WARNING per config, no retry. With your own ``http`` client, its transport decides where
    connections go (the URL check still runs).

    At most ``max_concurrent`` POSTs are in flight at once, and a pushed ``task`` snapshot
    keeps ``history_length`` messages of its history (0 by default; ``None`` keeps all).
    """

    def __init__(
        self,
        *,
        http: httpx.AsyncClient | None = None,
        timeout_s: float = 10.0,
        attempts: int = 3,
        backoff_s: float = 0.2,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        allow_loopback: bool = False,
        allow_private: bool = False,
        max_concurrent: int = MAX_CONCURRENT_DELIVERIES,
        history_length: int | None = PUSH_HISTORY_LENGTH,
    ) -> None:
        self._http = http
        self._own_http = http is None
        self.timeout_s = timeout_s
        self.attempts = max(1, attempts)
        self.backoff_s = backoff_s
        self._sleep = sleep
        self.allow_loopback = allow_loopback
        self.allow_private = allow_private
        self.max_concurrent = max(1, max_concurrent)
        self.history_length = history_length
        self._slots: asyncio.Semaphore | None = None
        self._queues: dict[tuple[str, str], asyncio.Queue[_Job]] = {}
        self._workers: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._refused: set[tuple[str, str]] = set()
        #: Every attempt, in the order made (bounded to the last 10 000).
        self.deliveries: list[Delivery] = []

    @property
    def policy(self) -> EgressPolicy:
        return EgressPolicy(allow_loopback=self.allow_loopback, allow_private=self.allow_private)

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
                    log.exception("push delivery crashed for task %r", config.task_id)
                finally:
                    queue.task_done()
        finally:
            if self._workers.get(key) is asyncio.current_task():
                del self._workers[key]

    def _body(self, event: StreamResponse) -> str:
        task = event.task
        if task is not None and self.history_length is not None:
            keep = task.history[-self.history_length :] if self.history_length > 0 else []
            event = event.model_copy(update={"task": task.model_copy(update={"history": keep})})
        return event.to_json()

    async def _deliver(self, config: TaskPushNotificationConfig, event: StreamResponse) -> None:
        try:  # the policy may have changed, and the config may predate today's checks
            check_webhook_url(
                config.url, allow_loopback=self.allow_loopback, allow_private=self.allow_private
            )
        except InvalidParamsError as exc:
            self._give_up(config, event, 1, exc.violations[0][1] if exc.violations else exc.message)
            return
        if self._http is None:
            self._http = pinned_client(
                lambda: self.policy, timeout_s=self.timeout_s, max_connections=self.max_concurrent
            )
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_concurrent)
        headers = {"Content-Type": A2A_JSON}
        if config.token:
            headers[TOKEN_HEADER] = config.token
        auth = config.authentication
        if auth is not None and auth.scheme:
            headers["Authorization"] = f"{auth.scheme} {auth.credentials}".strip()
        body = self._body(event)
        for attempt in range(1, self.attempts + 1):
            status: int | None = None
            error = ""
            try:
                async with self._slots:
                    # follow_redirects=False (the client's default, and pinned_client's): a
                    # 3xx is the webhook's answer, never a new target to POST to.
                    response = await self._http.post(
                        config.url, content=body, headers=headers, follow_redirects=False
                    )
                status = response.status_code
            except InvalidParamsError as exc:  # an address refused when connecting (egress)
                self._give_up(config, event, attempt, exc.message)
                return
            except (httpx.InvalidURL, httpx.UnsupportedProtocol, httpx.LocalProtocolError) as exc:
                self._give_up(config, event, attempt, f"cannot be sent: {type(exc).__name__}: {exc}")
                return
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"
            self._log(Delivery(config.task_id, config.id, config.url, event.kind, attempt, status, error))
            if status is not None and (200 <= status < 300 or not _retryable(status)):
                return  # delivered — or refused for good (a 4xx will not change on retry)
            if attempt < self.attempts:
                await self._sleep(self.backoff_s * 2 ** (attempt - 1))
        log.warning(
            "push to %r for task %r failed after %d attempts", config.url, config.task_id, self.attempts
        )

    def _give_up(
        self, config: TaskPushNotificationConfig, event: StreamResponse, attempt: int, why: str
    ) -> None:
        """A permanent failure: record it; one WARNING per config (DEBUG after that). The URL
        is logged with ``%r``, so control and bidi characters arrive escaped."""
        error = f"refused: {why}"
        self._log(Delivery(config.task_id, config.id, config.url, event.kind, attempt, None, error))
        key = (config.task_id, config.id)
        level = logging.DEBUG if key in self._refused else logging.WARNING
        if len(self._refused) >= _MAX_REMEMBERED_REFUSALS:
            self._refused.clear()
        self._refused.add(key)
        log.log(level, "push to %r for task %r not sent: %s", config.url, config.task_id, error)

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
    :func:`agentproto.server.running_server`) and configure ``<url>/hook`` as the push URL.
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
