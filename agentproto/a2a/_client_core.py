"""The sans-I/O half of the A2A client: what the async and sync clients share and do no I/O for.

The client errors (:class:`A2AClientError` and its family), JSON-RPC request building
(headers, ids, ``tenant``, ``SendMessage``/``GetTask``/``ListTasks`` parameters), response
decoding (``result`` or the typed :class:`~agentproto.a2a.errors.A2AError` it carries, model
validation, SSE events, plain HTTP answers), Agent Card discovery through a
:class:`~agentproto.a2a.card_cache.CardCache` and the choice of the card's JSON-RPC interface,
and the progress rule of ``wait``. Nothing here opens a socket or reads a clock: the adapters in
:mod:`agentproto.a2a.client` and :mod:`agentproto.a2a.client_bindings` move the bytes, time the
waits and hand what they received to these functions.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from agentproto.a2a.card_cache import CardCache
from agentproto.a2a.errors import A2AError, error_from_wire
from agentproto.a2a.states import INTERRUPTED_STATES, TERMINAL_STATES, TaskState
from agentproto.a2a.types import (
    JSONRPC_BINDING,
    PROTOCOL_VERSION,
    AgentCard,
    Message,
    Part,
    SendMessageResponse,
    StreamResponse,
    Task,
    TaskPushNotificationConfig,
    user_message,
)
from agentproto.clock import IdSource
from agentproto.server._paths import AGENT_CARD_PATH
from agentproto.sse import EventStreamDecoder, SSEDecodeError

__all__ = [
    "A2AClientError",
    "A2AConnectionError",
    "A2AHTTPError",
    "A2ATimeoutError",
    "NoProgressError",
    "InvalidResponseError",
    "CARD_PATH",
    "SETTLED_STATES",
    "card_token_url",
]

M = TypeVar("M", bound=BaseModel)

CARD_PATH = AGENT_CARD_PATH  # where a client looks for the card (A2A §8.2)
#: States at which waiting ends: terminal, or waiting for the client.
SETTLED_STATES = TERMINAL_STATES | INTERRUPTED_STATES


class A2AClientError(A2AError):
    """Something went wrong below the A2A protocol (network, HTTP, timeouts, garbage)."""

    rule = "a2a.client"  # no wire code of its own: see agentproto.a2a.errors


class A2AConnectionError(A2AClientError):
    """The agent could not be reached."""

    rule = "a2a.client.connection"


class A2AHTTPError(A2AClientError):
    """The agent answered with an HTTP error that carries no JSON-RPC error."""

    rule = "a2a.client.http"

    def __init__(self, status_code: int, message: str) -> None:
        self.status_code = status_code
        super().__init__(message)


class InvalidResponseError(A2AClientError):
    """The agent's answer is not a valid JSON-RPC / A2A response."""

    rule = "a2a.client.invalid-response"


class A2ATimeoutError(A2AClientError):
    """The overall time budget ran out."""

    rule = "a2a.client.timeout"


class NoProgressError(A2ATimeoutError):
    """Nothing changed for ``no_progress_timeout`` seconds (stream silent, task status frozen)."""

    rule = "a2a.client.no-progress"


class _Answer(Protocol):
    """What the core reads of an HTTP response (``httpx.Response`` has it)."""

    @property
    def status_code(self) -> int: ...

    @property
    def text(self) -> str: ...

    def json(self) -> Any: ...


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

    # -- requests ----------------------------------------------------------------------------

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

    def post(self, method: str, params: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        """The keyword arguments of the HTTP POST that makes one plain JSON-RPC call."""
        request: dict[str, Any] = {
            "method": "POST",
            "url": self.url,
            "json": self.payload(method, params),
            "headers": self.headers(),
        }
        if timeout is not None:
            request["timeout"] = timeout
        return request

    def stream_post(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The arguments of the HTTP POST that opens a streaming JSON-RPC call (SSE)."""
        return {
            "method": "POST",
            "url": self.url,
            "json": self.payload(method, params),
            "headers": self.headers(stream=True),
        }

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

    def send_request(
        self,
        content: Message | str | Part | list[Part],
        task_id: str | None,
        context_id: str | None,
        return_immediately: bool = False,
        history_length: int | None = None,
        push: TaskPushNotificationConfig | None = None,
        accepted_output_modes: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The params of ``SendMessage`` / ``SendStreamingMessage`` for ``content``."""
        params: dict[str, Any] = {"message": self.message(content, task_id, context_id).to_wire()}
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
    def get_task_params(task_id: str, history_length: int | None) -> dict[str, Any]:
        params: dict[str, Any] = {"id": task_id}
        if history_length is not None:
            params["historyLength"] = history_length
        return params

    @staticmethod
    def list_params(
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

    # -- responses ---------------------------------------------------------------------------

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

    def event(self, data: str) -> StreamResponse:
        """One SSE event's data (a JSON-RPC response) as its ``StreamResponse`` (errors raised typed)."""
        return self.parse(StreamResponse, self.result(_json(data)))

    def decode_http(self, response: _Answer) -> Any:
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

    def not_a_stream(self, response: _Answer, method: str) -> NoReturn:
        """A streaming call answered without an event stream: raise the error it carries."""
        self.result(self.decode_http(response))
        raise InvalidResponseError(f"{method}: expected an event stream")

    # -- discovery ---------------------------------------------------------------------------

    @staticmethod
    def choose_interface(card: AgentCard, version: str) -> tuple[str, str]:
        itf = card.interface(JSONRPC_BINDING, version)
        if itf is None:
            raise A2AClientError(
                f"agent {card.name!r} offers no JSON-RPC {version} interface (it offers {_offered(card)})"
            )
        return itf.url, itf.tenant

    @classmethod
    def bind(cls, card: AgentCard, kwargs: dict[str, Any]) -> str:
        """The URL of ``card``'s JSON-RPC interface; its ``tenant`` goes into ``kwargs``."""
        url, tenant = cls.choose_interface(card, kwargs.get("version", PROTOCOL_VERSION))
        kwargs.setdefault("tenant", tenant)
        return url


def card_token_url(card: AgentCard) -> str | None:
    """The ``tokenUrl`` of the first OAuth 2.0 client-credentials flow the card declares.

    Where a machine client asks for its token (spec §4.5: ``securitySchemes``); ``None`` if the
    card declares none.
    """
    for scheme in card.security_schemes.values():
        oauth = scheme.oauth2_security_scheme
        if oauth is not None and oauth.flows.client_credentials is not None:
            return oauth.flows.client_credentials.token_url
    return None


def _offered(card: AgentCard) -> str:
    """The card's interfaces for an error message: ``JSONRPC 1.0, GRPC 1.0`` or ``nothing``."""
    return (
        ", ".join(f"{i.protocol_binding} {i.protocol_version}" for i in card.supported_interfaces)
        or "nothing"
    )


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
