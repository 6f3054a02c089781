"""Notebook 12 §6: a custom A2A binding built live — newline-delimited JSON over TCP.

A2A v1.0.1 lets implementers add bindings of their own (spec §12) if they keep every rule of
§5 and are identified by a URI (§5.8). This module is the kit's *teaching* binding, named
:data:`BINDING_URI`. It is not a standard binding and nothing outside this course speaks it.
Its whole specification (§12.1 asks a custom binding to document itself completely):

==========================  =====================================================================
transport                   one TCP connection (``tcp://host:port``), UTF-8 text, one JSON object
                            per line (``\\n``); a connection carries requests one after another
                            (the kit's choice: no interleaving, so replies need no reordering)
request line                ``{"id", "op", "params", "serviceParams"}``: ``op`` is the A2A
                            operation name (``SendMessage`` …, §5.3), ``params`` its request
                            message in ProtoJSON — the very object JSON-RPC puts in ``params``
data types (§12.2)          ProtoJSON, as on JSON-RPC: camelCase fields, enums as their names
                            (``TASK_STATE_COMPLETED``), timestamps as §5.6.1 strings, bytes base64
service parameters (§12.3)  no headers exist, so the fallback is a ``serviceParams`` object in
                            the request (the kit's name): string keys, compared ignoring case;
                            string values, case-sensitive, limited only by the 1 MB line; no
                            names reserved by the binding. ``A2A-Version`` (an empty value MUST
                            be read as 0.3, §3.6.2; a missing one is read as empty: the kit's
                            reading), ``A2A-Extensions`` (comma-separated URIs) and
                            ``Authorization`` (a bearer token, §12.6) travel there
plain reply                 ``{"id", "result"}``: the operation's response message
error reply (§12.4)         ``{"id", "error": {"type", "code", "reason", "message", "details"}}``:
                            the A2A error's name, its JSON-RPC code (§5.4), its ErrorInfo reason
                            and the same ``google.rpc`` details JSON-RPC sends — the identity of
                            the error survives the binding
streams (§12.5)             ``SendStreamingMessage`` and ``SubscribeToTask`` answer ``{"id",
                            "event"}`` lines (one ``StreamResponse`` each, in the order the agent
                            produced them: one connection, one stream at a time) and end with
                            exactly one ``{"id", "end": true}`` line — or an error line, which
                            also ends the stream. No resumption: after a broken connection the
                            client calls ``SubscribeToTask`` again (its first event is the Task)
authentication (§12.6)      a bearer token in the ``Authorization`` service parameter, checked
                            by ``authenticate=``. A teaching shortcut: the card declares no
                            scheme and the app's HTTP interfaces stay open, which §12.6 and §5.1
                            (equivalent authentication on every interface) do not allow; a
                            refusal is ``{"id", "error": {"type": "Unauthenticated", "message",
                            "challenge"}}`` with an RFC 6750 challenge, as HTTP's 401 carries in
                            ``WWW-Authenticate``
card (§12.7)                an ``AgentInterface`` with ``protocolBinding`` = :data:`BINDING_URI`
                            and ``url`` = the ``tcp://`` address, listed first (preferred)
==========================  =====================================================================

The server is a thin adapter: it looks the operation up in the one table every binding uses
(:data:`agentproto.a2a.jsonrpc.METHODS`) and runs it with
:func:`~agentproto.a2a.jsonrpc.call_operation` on the same :class:`~agentproto.a2a.service.
A2AService` the HTTP bindings serve — same operations, same semantics (§12.1).
:func:`run_sequence` and :func:`interop_report` are the §12.8 check: one sequence of operations
on two bindings, compared after ids and timestamps are normalised.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError
from starlette.applications import Starlette

from agentproto import limits
from agentproto.a2a import A2AClient, A2AConnectionError, InvalidResponseError
from agentproto.a2a.agents import Agent, make_agent
from agentproto.a2a.errors import (
    A2AError,
    ExtensionSupportRequiredError,
    InternalError,
    InvalidRequestError,
    JSONParseError,
    MethodNotFoundError,
    VersionNotSupportedError,
    error_from_wire,
)
from agentproto.a2a.jsonrpc import (
    METHODS,
    V03_METHODS,
    A2AHandler,
    CallerScope,
    call_operation,
    validation_error,
)
from agentproto.a2a.server import create_a2a_app
from agentproto.a2a.types import (
    JSONRPC_BINDING,
    PROTOCOL_VERSION,
    AgentCard,
    AgentInterface,
    StreamResponse,
    Task,
)
from agentproto.clock import Clock, IdSource
from agentproto.course.trace import IdNormalizer
from agentproto.errors import AgentProtoError

__all__ = [
    "BINDING_URI",
    "NdjsonBinding",
    "NdjsonServer",
    "NdjsonA2AClient",
    "Unauthenticated",
    "DeclaringAgent",
    "create_app_with_binding",
    "connect_from_card",
    "declare",
    "interop_report",
    "run_sequence",
    "split_url",
    "start_server",
    "token_table",
    "wire_exchange",
]

log = logging.getLogger(__name__)

#: The binding's identifier (spec §5.8: a URI; a breaking change MUST get a new one, ``…/v2``).
#: Under the kit's own repository URL, so no one else's namespace is borrowed.
BINDING_URI = "https://github.com/agentproto/agentproto/bindings/ndjson-tcp/v1"
#: Longest request line the server reads (the HTTP bindings' body limit).
MAX_LINE_BYTES = limits.MAX_BODY_BYTES
#: The challenge a refused call carries (RFC 6750 §3, as on HTTP).
CHALLENGE = 'Bearer realm="agentproto"'


class Unauthenticated(AgentProtoError):
    """The binding's own refusal (A2A defines no error for it): ``challenge`` says what to send."""

    def __init__(self, message: str = "authentication required", *, challenge: str = CHALLENGE) -> None:
        super().__init__(message)
        self.message = message
        self.challenge = challenge


#: ``authenticate(service_params) -> subject``; raises :class:`Unauthenticated` to refuse.
Authenticate = Callable[[Mapping[str, str]], str | None]


def token_table(tokens: Mapping[str, str]) -> Authenticate:
    """A toy verifier for the notebook: bearer token → subject (a real one checks a JWT)."""

    def authenticate(params: Mapping[str, str]) -> str | None:
        scheme, _, token = params.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or token not in tokens:
            raise Unauthenticated("a valid bearer token is required in the Authorization service parameter")
        return tokens[token]

    return authenticate


def split_url(url: str) -> tuple[str, int]:
    """``tcp://127.0.0.1:5000`` → ``("127.0.0.1", 5000)``."""
    parts = urlsplit(url)
    if parts.scheme != "tcp" or parts.hostname is None or parts.port is None:
        raise ValueError(f"not a tcp://host:port URL: {url!r}")
    return parts.hostname, parts.port


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def error_line(request_id: Any, exc: A2AError) -> dict[str, Any]:
    """An A2A error in the binding's own form, keeping its identity (spec §12.4)."""
    error = {
        "type": type(exc).__name__,
        "code": exc.code,
        "reason": exc.reason,
        "message": exc.message,
        "details": exc.details(),
    }
    return {"id": request_id, "error": error}


# --------------------------------------------------------------------------- server


class NdjsonBinding:
    """Request line → reply lines, over any :class:`A2AHandler` (sans I/O: no socket here)."""

    def __init__(
        self,
        service: A2AHandler,
        *,
        supported_versions: Sequence[str] = (PROTOCOL_VERSION,),
        authenticate: Authenticate | None = None,
        input_limits: limits.Limits = limits.DEFAULT_LIMITS,
        base_url: str = "http://127.0.0.1",
    ) -> None:
        self.service = service
        self.supported_versions = tuple(supported_versions)
        self.authenticate = authenticate
        self.limits = input_limits
        self.base_url = base_url

    async def replies(self, raw: bytes | str) -> AsyncIterator[dict[str, Any]]:
        """Every line the server writes back for one request line."""
        request_id: Any = None
        try:
            body = self._parse(raw)
            request_id = body.get("id")
            op, params, service_params = self._envelope(body)
            subject = self.authenticate(service_params) if self.authenticate else None
            spec = METHODS.get(op)
            if spec is None:
                hint = V03_METHODS.get(op)
                raise MethodNotFoundError(
                    f"unknown operation {op!r}"
                    + (f" (the v0.3 name; v1.0 calls it {hint!r})" if hint else ""),
                    metadata={"method": op},
                )
            self._check_version(service_params)
            self._check_extensions(service_params)
            try:
                request = spec.params.model_validate(params)
            except ValidationError as exc:
                raise validation_error(exc) from None
            scope = CallerScope(str(getattr(request, "tenant", "") or ""), subject)
            result = await call_operation(self.service, op, request, scope, self.base_url)
        except Unauthenticated as exc:
            yield {
                "id": request_id,
                "error": {"type": "Unauthenticated", "message": exc.message, "challenge": exc.challenge},
            }
            return
        except A2AError as exc:
            yield error_line(request_id, exc)
            return
        except Exception as exc:
            log.exception("internal error on the custom binding")
            yield error_line(request_id, InternalError(f"Internal error: {type(exc).__name__}"))
            return
        if spec.streaming:
            async for line in self._stream(request_id, result):
                yield line
            return
        wire = result.to_wire() if hasattr(result, "to_wire") else result
        yield {"id": request_id, "result": {} if wire is None else wire}

    async def _stream(
        self, request_id: Any, events: AsyncIterator[StreamResponse]
    ) -> AsyncIterator[dict[str, Any]]:
        try:
            async for event in events:
                yield {"id": request_id, "event": event.to_wire()}
        except A2AError as exc:
            yield error_line(request_id, exc)
            return
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()
        yield {"id": request_id, "end": True}

    def _parse(self, raw: bytes | str) -> dict[str, Any]:
        try:
            body = limits.loads(raw, self.limits)
        except limits.LimitError as exc:
            if exc.kind == "json":
                raise JSONParseError(f"a request line must be JSON: {exc.message}") from None
            raise InvalidRequestError(f"Invalid request: {exc.message}") from None
        if not isinstance(body, dict):
            raise InvalidRequestError("a request line must be one JSON object")
        return body

    @staticmethod
    def _envelope(body: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, str]]:
        op, params, service_params = body.get("op"), body.get("params", {}), body.get("serviceParams", {})
        if not isinstance(op, str) or not op:
            raise InvalidRequestError("'op' must be the name of an A2A operation")
        if not isinstance(params, dict):
            raise InvalidRequestError("'params' must be an object (the request message)")
        if not isinstance(service_params, dict) or not all(
            isinstance(v, str) for v in service_params.values()
        ):
            raise InvalidRequestError("'serviceParams' must be an object of string values")
        return op, params, {str(k).lower(): v for k, v in service_params.items()}

    def _check_version(self, service_params: Mapping[str, str]) -> None:
        asked = service_params.get("a2a-version", "").strip() or "0.3"  # spec §3.6.2
        if asked.split(".")[:2] not in [v.split(".")[:2] for v in self.supported_versions]:
            served = ", ".join(self.supported_versions)
            raise VersionNotSupportedError(
                f"A2A version '{asked}' is not supported here; supported: {served}"
                + (
                    " (an empty or missing A2A-Version service parameter is read as 0.3: spec §3.6.2, "
                    "and the kit's reading for a missing one)"
                    if asked == "0.3"
                    else ""
                ),
                metadata={"requestedVersion": asked, "supportedVersions": served},
            )

    def _check_extensions(self, service_params: Mapping[str, str]) -> None:
        active = {u.strip() for u in service_params.get("a2a-extensions", "").split(",") if u.strip()}
        missing = [u for u in self.service.required_extensions() if u not in active]
        if missing:
            raise ExtensionSupportRequiredError(
                f"this agent requires the extension(s) {', '.join(missing)}; list them in A2A-Extensions",
                metadata={"extensions": ",".join(missing)},
            )


class NdjsonServer:
    """A running :class:`NdjsonBinding` on a loopback socket; :attr:`url` is its ``tcp://`` address."""

    def __init__(self, binding: NdjsonBinding, server: asyncio.Server) -> None:
        self.binding = binding
        self._server = server
        host, port = server.sockets[0].getsockname()[:2]
        self.url = f"tcp://{host}:{port}"

    async def close(self) -> None:
        self._server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2.0)


async def _serve(
    binding: NdjsonBinding, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, max_line: int
) -> None:
    """One connection: request lines one after another, each answered before the next is read."""
    try:
        while True:
            try:
                raw = await reader.readline()
            except ValueError:  # a line over the limit: say so, then drop the connection
                too_long = InvalidRequestError(f"a request line is limited to {max_line} bytes")
                writer.write(_line(error_line(None, too_long)))
                await writer.drain()
                break
            if not raw:
                break
            if not raw.strip():
                continue
            async for reply in binding.replies(raw):
                writer.write(_line(reply))
                await writer.drain()
    except ConnectionError:
        pass  # the peer went away
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def start_server(
    binding: NdjsonBinding, host: str = "127.0.0.1", port: int = 0, *, max_line_bytes: int = MAX_LINE_BYTES
) -> NdjsonServer:
    """Serve ``binding`` on ``host``; port 0 lets the OS pick a free one."""
    server = await asyncio.start_server(
        lambda r, w: _serve(binding, r, w, max_line_bytes), host, port, limit=max_line_bytes
    )
    return NdjsonServer(binding, server)


async def wire_exchange(url: str, *requests: dict[str, Any] | str, timeout: float = 10.0) -> list[str]:
    """Send request lines (dicts, or raw text for a broken one) on one connection and return
    every reply line as the text that crossed the socket (spec §12.8: sample requests and
    responses)."""
    host, port = split_url(url)

    async def talk() -> list[str]:
        reader, writer = await asyncio.open_connection(host, port, limit=MAX_LINE_BYTES)
        try:
            for request in requests:
                writer.write(request.encode() + b"\n" if isinstance(request, str) else _line(request))
            await writer.drain()
            writer.write_eof()
            return (await reader.read()).decode().splitlines()
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    return await asyncio.wait_for(talk(), timeout)


# --------------------------------------------------------------------------- card


def declare(card: AgentCard, url: str) -> AgentCard:
    """``card`` with this binding's interface first (preferred, spec §8.3.1; §12.7)."""
    first = card.supported_interfaces[0] if card.supported_interfaces else None
    itf = AgentInterface(
        url=url,
        protocol_binding=BINDING_URI,
        protocol_version=first.protocol_version if first else PROTOCOL_VERSION,
        tenant=first.tenant if first else "",
    )
    rest = [i for i in card.supported_interfaces if i.protocol_binding != BINDING_URI]
    return card.model_copy(update={"supported_interfaces": [itf, *rest]})


class DeclaringAgent:
    """An agent whose cards declare the custom binding once it is served (:attr:`url` set)."""

    def __init__(self, agent: Agent) -> None:
        self.inner = agent
        self.name = agent.name
        self.url: str | None = None

    def card(self, url: str) -> AgentCard:
        card = self.inner.card(url)
        return declare(card, self.url) if self.url else card

    def extended_card(self, url: str) -> AgentCard | None:
        card = self.inner.extended_card(url)
        return declare(card, self.url) if card is not None and self.url else card

    def run(self, ctx: Any) -> Any:
        return self.inner.run(ctx)


def create_app_with_binding(
    agent: str | Agent = "travel",
    *,
    clock: Clock | None = None,
    ids: IdSource | None = None,
    authenticate: Authenticate | None = None,
) -> Starlette:
    """The kit's A2A app (card, JSON-RPC, REST) whose lifespan also serves the custom binding
    on a free loopback port, in the app's own event loop (where the service's tasks live).
    ``app.state.custom_binding`` is the :class:`NdjsonServer` while the app runs."""
    declaring = DeclaringAgent(make_agent(agent) if isinstance(agent, str) else agent)
    app = create_a2a_app(agent=declaring, clock=clock, ids=ids)
    service = app.state.a2a.service
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(the_app: Any) -> AsyncIterator[None]:
        server = await start_server(NdjsonBinding(service, authenticate=authenticate))
        declaring.url = server.url
        app.state.custom_binding = server
        try:
            async with inner(the_app):
                yield
        finally:
            declaring.url = None
            await server.close()

    app.router.lifespan_context = lifespan
    return app


# --------------------------------------------------------------------------- client


class NdjsonA2AClient(A2AClient):
    """The kit's client on the custom binding: only ``call`` and ``call_stream`` change, so
    ``send``, ``get_task``, ``stream`` … are the very methods of the JSON-RPC client."""

    def __init__(self, url: str, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.host, self.port = split_url(url)
        self._ids = 0

    async def _service_params(self) -> dict[str, str]:
        params = {"A2A-Version": self._p.version}
        if self._p.extensions:
            params["A2A-Extensions"] = ",".join(self._p.extensions)
        if self.auth is not None:
            params["Authorization"] = await self.auth.aheader()
        return params

    async def _lines(self, method: str, params: dict[str, Any]) -> AsyncGenerator[dict[str, Any], None]:
        """Open a connection, send one request line, yield each reply line until the last."""
        if self._p.tenant and "tenant" not in params:
            params = {"tenant": self._p.tenant, **params}
        self._ids += 1
        self._p.requests_made += 1
        request = {
            "id": self._ids,
            "op": method,
            "params": params,
            "serviceParams": await self._service_params(),
        }
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port, limit=MAX_LINE_BYTES)
        except OSError as exc:
            raise A2AConnectionError(f"{method}: cannot reach {self.url}: {exc}") from exc
        try:
            writer.write(_line(request))
            await writer.drain()
            while raw := await reader.readline():
                yield json.loads(raw)
            raise A2AConnectionError(f"{method}: the connection closed before the reply ended")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    @staticmethod
    def _raise(error: Any) -> None:
        if not isinstance(error, dict):
            raise InvalidResponseError(f"error is not an object: {error!r}")
        if error.get("type") == "Unauthenticated":
            raise Unauthenticated(str(error.get("message", "")), challenge=str(error.get("challenge", "")))
        raise error_from_wire(
            {"code": error.get("code"), "message": error.get("message"), "data": error.get("details")}
        )

    async def call(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        async def one() -> Any:
            lines = self._lines(method, params)
            try:
                reply = await lines.__anext__()
            finally:
                await lines.aclose()
            if "error" in reply:
                self._raise(reply["error"])
            if "result" not in reply:
                raise InvalidResponseError(f"{method}: a reply line needs 'result' or 'error'")
            return reply["result"]

        return await asyncio.wait_for(one(), timeout)

    async def call_stream(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float | None = None,
        no_progress_timeout: float | None = None,
    ) -> AsyncIterator[StreamResponse]:
        lines = self._lines(method, params)
        try:
            async for reply in lines:
                if reply.get("end") is True:
                    return
                if "error" in reply:
                    self._raise(reply["error"])
                yield self._p.parse(StreamResponse, reply.get("event"))
        finally:
            await lines.aclose()


async def connect_from_card(
    card: AgentCard, *, accept: Sequence[str] = (BINDING_URI, JSONRPC_BINDING), **kwargs: Any
) -> A2AClient:
    """A client on the card's first interface whose binding is in ``accept`` (spec §8.3.2):
    a client that does not know :data:`BINDING_URI` simply skips that entry."""
    version = kwargs.get("version", PROTOCOL_VERSION).split(".")[:2]
    for itf in card.supported_interfaces:
        if itf.protocol_binding in accept and itf.protocol_version.split(".")[:2] == version:
            kwargs.setdefault("tenant", itf.tenant)
            cls = NdjsonA2AClient if itf.protocol_binding == BINDING_URI else A2AClient
            return cls(itf.url, card=card, **kwargs)
    offered = ", ".join(i.protocol_binding for i in card.supported_interfaces)
    raise A2AConnectionError(f"no interface in {'/'.join(accept)} (the card offers {offered})")


# --------------------------------------------------------------------------- interoperability


def _normal(wire: Any) -> Any:
    """Ids renamed in order of appearance, timestamps dropped: what two runs can share."""
    norm = IdNormalizer(mode="all")

    def walk(obj: Any, key: str | None = None) -> Any:
        if isinstance(obj, dict):
            return {k: walk(v, k) for k, v in obj.items() if k != "timestamp"}
        if isinstance(obj, list):
            return [walk(v, key) for v in obj]
        if isinstance(obj, str) and key in ("id", "taskId", "contextId", "messageId", "artifactId"):
            return norm.rename(obj)
        return obj

    return walk(wire)


async def _outcome(step: Any) -> Any:
    try:
        out = await step
    except A2AError as exc:
        return {"error": type(exc).__name__, "code": exc.code}
    return out.to_wire() if hasattr(out, "to_wire") else out


async def run_sequence(client: A2AClient) -> list[tuple[str, Any]]:
    """Send, get, list, cancel, cancel again, get an unknown task, stream — each outcome
    normalised (spec §12.8: the same behaviour as a standard binding, errors included)."""
    raw: list[tuple[str, Any]] = []
    sent = await client.send("Plan my trip to Sanya")
    if not isinstance(sent, Task):
        raise InvalidResponseError("the travel desk answers a trip request with a task")
    raw.append(("send", sent.to_wire()))
    raw.append(("get", await _outcome(client.get_task(sent.id))))
    raw.append(("list", await _outcome(client.list_tasks(context_id=sent.context_id))))
    raw.append(("cancel", await _outcome(client.cancel_task(sent.id))))
    raw.append(("cancel again", await _outcome(client.cancel_task(sent.id))))
    raw.append(("get unknown", await _outcome(client.get_task("no-such-task"))))
    events = [e.to_wire() async for e in client.stream("Plan my trip to Sanya from 2026-04-08 to 2026-04-12")]
    raw.append(("stream", events))
    normal = _normal([out for _, out in raw])
    return [(step, out) for (step, _), out in zip(raw, normal, strict=True)]


def _brief(out: Any) -> str:
    if isinstance(out, dict) and "error" in out:
        return f"{out['error']} {out['code']}"
    if isinstance(out, list):
        return f"{len(out)} events"
    task = out.get("task", out) if isinstance(out, dict) else {}
    if isinstance(task, dict) and "tasks" in task:
        return f"{len(task['tasks'])} task(s)"
    state = task.get("status", {}).get("state", "") if isinstance(task, dict) else ""
    return str(state or out)[:40]


def interop_report(
    left: list[tuple[str, Any]],
    right: list[tuple[str, Any]],
    names: tuple[str, str] = ("JSON-RPC", "ndjson-tcp"),
) -> str:
    """One row per step: what each binding answered (briefly) and whether the normalised
    answers are equal."""
    rows = [f"{'step':<13} {names[0]:<32} {names[1]:<32} verdict"]
    for (step, a), (_, b) in zip(left, right, strict=True):
        rows.append(f"{step:<13} {_brief(a):<32} {_brief(b):<32} {'same' if a == b else 'DIFFERENT'}")
    return "\n".join(rows)
