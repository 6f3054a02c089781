"""AG-UI over HTTP + SSE: the Starlette routes that serve an agent (spec 1.1
``basic/transports/http-sse``).

==========================================  ==============================================
route                                       what it does
==========================================  ==============================================
``POST /ag-ui/agent``                       ``RunAgentInput`` in, ``text/event-stream`` out
``GET  /ag-ui/threads/{threadId}``          the thread as stored: state, messages, pending
                                            interrupts, runs — what a client reloads after
                                            a dropped connection
``GET  /ag-ui/threads/{threadId}/runs/{runId}/events``  the events a run emitted (audit log)
``POST /ag-ui/runs/{runId}/cancel``         stop a running run; it ends ``cancelled``
==========================================  ==============================================

Theory of operation
-------------------
*Before the stream opens* every problem is an HTTP error with a JSON body
``{"error": {"code", "message", …}}`` and no stream — the run never started (spec
``http-sse``, "Errors"): wrong media type → 415, body over ``max_body_bytes`` → 413, not JSON
→ 400, not a valid ``RunAgentInput`` → 422, a readable ``MAJOR.MINOR`` from another major line
→ 400, a resume the interrupt contract refuses (an open interrupt left uncovered, an expired
one resolved, a payload off its ``responseSchema``) → its
:class:`~agentproto.agui.interrupts.ResumeError` status (409/422), a reused ``runId`` → 409,
new messages that would take the thread past ``max_thread_messages`` → 409 ``thread_full``,
``max_active_runs`` runs already executing → 429 ``too_many_runs`` with ``Retry-After``.

What the spec says to *proceed* past is not refused: resume entries naming no open interrupt
(unknown, another thread's, stale, already settled) are dropped and a ``cancelled`` entry's
payload is ignored (spec 1.1 ``basic/patterns/interrupt-resume``, "Resuming": "the run SHOULD
proceed without the entry, and the producer SHOULD surface a warning"); an uninterpretable or
newer ``protocolVersion`` is served (``basic/versioning``, "Version negotiation"). Each such
input gets one structured ``agui_input_warnings`` log line and, in its stream, one
``CUSTOM`` event ``agentproto.input_warnings`` right after ``RUN_STARTED``.

Validation and the claim on the pending interrupts happen in one store transaction, so of
fifty identical resumes racing in, exactly one settles the interrupt and the other forty-nine
are *replays*, answered from the record.

*After the stream opens* the run belongs to a background task, not to the HTTP response: the
:class:`~agentproto.agui.runner.RunDriver` runs to the end and records everything even if the
client goes away — **a disconnect is not a cancel** (the seed's "SSE 断开 ≠ 任务取消"). Only
``POST /ag-ui/runs/{runId}/cancel`` stops a run, which then finishes with
``outcome: {type: "cancelled"}``. Failures after the stream opened travel in-stream as
``RUN_ERROR``. The response carries ``Cache-Control: no-cache`` and ``X-Accel-Buffering: no``
(so nginx-style proxies do not batch events) and a ``: keep-alive`` comment after
``heartbeat_s`` seconds without an event (so idle-timeout proxies do not cut long runs).

*Ids.* AG-UI 1.1 (``basic/run-input``, "Identity") requires ``threadId`` and ``runId`` and
says nothing of their form. This server's own limit, :data:`ID_PATTERN`: 1 to
:data:`MAX_ID_CHARS` (128) characters from ``A-Z a-z 0-9 . _ : ~ -``, and not ``.`` or ``..``
— every such id can be put in a URL path as is, so ``GET /ag-ui/threads/{threadId}`` reaches
every thread a client can create. Anything else (``a/b``, CR/LF, 5,000 characters) is refused
with 422 ``invalid_input`` before anything is stored. Thread ids are the client's choice and so
are kept per caller (:mod:`~agentproto.agui._threadstore_owners`): another subject using the
same ``threadId`` gets a thread of its own.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from agentproto.agui import events as ev
from agentproto.agui._compat import parse_protocol_version
from agentproto.agui._threadstore import RunIdReusedError, ThreadFullError, ThreadStore
from agentproto.agui._threadstore_owners import ThreadOwners, request_subject
from agentproto.agui.errors import DecodeError, MalformedEventError
from agentproto.agui.interrupts import ResumeError, ResumePlan, validate_resume
from agentproto.agui.parse import parse_run_agent_input
from agentproto.agui.runner import AGUIAgent, RunContext, RunDriver, replay_events
from agentproto.agui.sse import KEEP_ALIVE, SSE_CONTENT_TYPE, encode_sse
from agentproto.clock import Clock
from agentproto.limits import DEFAULT_LIMITS, LimitError, Limits
from agentproto.limits import loads as limited_loads
from agentproto.security.client_input import check_client_tool_results
from agentproto.security.errors import ForgedToolResult
from agentproto.server._log import log_event
from agentproto.system import SystemClock, uuid_ids

__all__ = [
    "agui_routes",
    "RunRegistry",
    "ActiveRun",
    "DEFAULT_MAX_BODY_BYTES",
    "MAX_THREAD_MESSAGES",
    "MAX_ACTIVE_RUNS",
    "SUPPORTED_MAJOR",
    "ID_PATTERN",
    "MAX_ID_CHARS",
    "valid_id",
]

#: Default request body limit: generous for a conversation, small enough to refuse abuse.
DEFAULT_MAX_BODY_BYTES = 1_000_000
#: Messages one thread may hold: a run whose input would take it past this is refused with
#: 409 ``thread_full`` (start a new thread). As many as one request may carry
#: (``Limits.max_items``), so a client that sends its whole conversation each run is never
#: refused before one request could no longer hold it; the agent's own messages may pass it by
#: one run. ≈ 1.2 KB of memory per 100-character message for each open run on the thread
#: (benchmarks/bench_memory.py).
MAX_THREAD_MESSAGES = 10_000
#: Runs one server process executes at once, of all callers: a new run beyond it is refused
#: with 429 ``too_many_runs`` and ``Retry-After``. A disconnect is not a cancel, so a run whose
#: client left keeps its place until it ends; no connection limit counts those. ≈ 50 KB per
#: open run (benchmarks/bench_memory.py): about 50 MB at most. Not per caller: every anonymous
#: learner of a classroom is one caller.
MAX_ACTIVE_RUNS = 1_000
#: What a client refused for ``too_many_runs`` is told to wait (``Retry-After``, seconds).
RUNS_RETRY_AFTER_S = 5
#: The protocol major version this server implements (spec ``basic/versioning``).
SUPPORTED_MAJOR = 1
#: Headers on every event stream (the seed's production checklist).
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
#: The longest ``threadId``/``runId`` this server accepts (the kit's limit, not the spec's).
MAX_ID_CHARS = 128
#: What a ``threadId``/``runId`` may be made of here: URL-path-safe characters only, and not
#: the dot segments ``.``/``..`` (a client would normalise them out of the URL).
ID_PATTERN = re.compile(rf"(?!\.\.?\Z)[A-Za-z0-9._:~-]{{1,{MAX_ID_CHARS}}}\Z")


def valid_id(value: str) -> bool:
    """Is ``value`` a ``threadId``/``runId`` this server accepts (:data:`ID_PATTERN`)?"""
    return ID_PATTERN.match(value) is not None


def _id_problem(field_name: str, value: str) -> str | None:
    if valid_id(value):
        return None
    if not value or len(value) > MAX_ID_CHARS:
        return f"{field_name} must be 1 to {MAX_ID_CHARS} characters long (got {len(value)})"
    if value in (".", ".."):
        return f"{field_name} cannot be {value!r}"
    return f"{field_name} may contain only A-Z, a-z, 0-9 and . _ : ~ - (this server's limit)"


#: Our own (MAJOR, MINOR), for comparing a consumer's declaration numerically.
_OUR_VERSION = parse_protocol_version(ev.PROTOCOL_VERSION) or (SUPPORTED_MAJOR, 0)


def _owners(plan: ResumePlan) -> dict[str, Any]:
    """For the server log only: the threads that own foreign interrupt ids a resume named."""
    owners = {n.interrupt_id: n.owner_thread for n in plan.notices if n.owner_thread}
    return {"foreignInterruptOwners": owners} if owners else {}


def _error(status: int, code: str, message: str, **details: Any) -> JSONResponse:
    log_event(
        "agui_refused",
        status=status,
        code=code,
        **{k: v for k, v in details.items() if k in ("threadId", "runId", "path")},
    )
    return JSONResponse({"error": {"code": code, "message": message, **details}}, status_code=status)


@dataclass
class ActiveRun:
    """A run executing in the background, and the queue its HTTP response reads from.

    ``thread_id`` is the client's; ``key`` the thread's storage key (its owner's namespace,
    see :mod:`~agentproto.agui._threadstore_owners`; the thread id itself by default). Once the
    response has ended (its client went away) nothing is queued: the run goes on, recorded in
    the store, without holding its events for a reader that is gone."""

    thread_id: str
    run_id: str
    key: str = ""
    owner: str = ""
    driver: RunDriver | None = None
    queue: asyncio.Queue[ev.BaseEvent | None] = field(default_factory=asyncio.Queue)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    listening: bool = True

    def __post_init__(self) -> None:
        self.key = self.key or self.thread_id

    def deliver(self, item: ev.BaseEvent | None) -> None:
        """Queue ``item`` for the response, while it is still being read."""
        if self.listening:
            self.queue.put_nowait(item)

    def cancel(self) -> None:
        if self.driver is not None:
            self.driver.cancel()


class RunRegistry:
    """The runs this server process is executing, by run id (for cancellation)."""

    def __init__(self) -> None:
        self._runs: dict[tuple[str, str], ActiveRun] = {}

    def add(self, run: ActiveRun) -> None:
        self._runs[(run.key, run.run_id)] = run

    def discard(self, run: ActiveRun) -> None:
        self._runs.pop((run.key, run.run_id), None)

    def find(self, run_id: str, thread_id: str | None = None) -> list[ActiveRun]:
        """Active runs ``run_id`` (on the client's ``thread_id``, if given), of any owner."""
        return [
            r
            for (_, rid), r in self._runs.items()
            if rid == run_id and (thread_id is None or r.thread_id == thread_id)
        ]

    def on_thread(self, key: str) -> list[ActiveRun]:
        """Active runs on the thread stored under ``key``."""
        return [r for (k, _), r in self._runs.items() if k == key]

    def __len__(self) -> int:
        return len(self._runs)


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The request body, or None as soon as it grows past ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _accepts_sse(accept: str | None) -> bool:
    if not accept:
        return True
    ranges = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    return any(r in ("*/*", "text/*", SSE_CONTENT_TYPE) for r in ranges)


class _Refusal(Exception):
    """A request refused before its stream opens; ``response`` is the HTTP error to send."""

    def __init__(self, response: JSONResponse) -> None:
        super().__init__(response.status_code)
        self.response = response


def _check_negotiation(request: Request) -> None:
    """415 unless the body is JSON, 406 unless the client accepts an event stream."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise _Refusal(
            _error(
                415,
                "unsupported_media_type",
                "POST the RunAgentInput as JSON (Content-Type: application/json)",
            )
        )
    if not _accepts_sse(request.headers.get("accept")):
        raise _Refusal(
            _error(406, "not_acceptable", "This endpoint answers with text/event-stream; say so in Accept")
        )


def _parse_body(body: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[Any, list[dict[str, Any]]]:
    """The ``RunAgentInput`` in ``body``, with a warning for each piece of material it drops."""
    try:  # the limits boundary first: depth, string size, surrogates, integer size
        parsed: Any = limited_loads(body, limits)
    except LimitError as exc:
        if exc.kind != "json":
            raise _Refusal(_error(422, "input_limit", exc.message, path=exc.path, limit=exc.kind)) from None
        parsed = body  # not JSON: the parser says why (400 invalid_json)
    try:
        run_input, warnings = parse_run_agent_input(parsed)
    except DecodeError as exc:
        raise _Refusal(_error(400, "invalid_json", exc.message)) from None
    except MalformedEventError as exc:
        raise _Refusal(_error(422, "invalid_input", exc.message, path=exc.path)) from None
    # What the run proceeds without, for the client (one CUSTOM event) and the log (one line).
    input_warnings = [
        {"code": "input.unrecognised-material", "message": w.message, "path": w.path} for w in warnings
    ]
    return run_input, input_warnings


def _version_warning(version: str | None) -> dict[str, Any] | None:
    """The warning a ``protocolVersion`` declaration earns, or a refusal (another major line).

    Spec 1.1 basic/versioning, "Version negotiation": a declaration a party cannot interpret is
    handled like a newer one — proceed, and SHOULD warn; a newer minor of our line MUST be
    served (SHOULD warn); a producer MAY reject, before RUN_STARTED, "only a declaration from a
    major line it does not implement".
    """
    if version is None:
        return None
    declared = parse_protocol_version(version)
    if declared is None:
        return {
            "code": "input.protocol-version-uninterpretable",
            "message": f"Cannot interpret protocolVersion {version!r} (expected MAJOR.MINOR); "
            f"serving the run as AG-UI {ev.PROTOCOL_VERSION}",
            "path": "/protocolVersion",
        }
    if declared[0] != SUPPORTED_MAJOR:
        raise _Refusal(
            _error(
                400,
                "unsupported_protocol_version",
                f"This agent implements AG-UI {SUPPORTED_MAJOR}.x; the input asks for {version}",
            )
        )
    if declared > _OUR_VERSION:
        return {
            "code": "input.protocol-version-newer",
            "message": f"The input speaks AG-UI {version}; this agent speaks "
            f"{ev.PROTOCOL_VERSION} and serves the run in it",
            "path": "/protocolVersion",
        }
    return None


def _check_ids(thread_id: str, run_id: str) -> None:
    """422 for a ``threadId``/``runId`` outside :data:`ID_PATTERN`."""
    for field_name, value in (("threadId", thread_id), ("runId", run_id)):
        problem = _id_problem(field_name, value)
        if problem is not None:
            raise _Refusal(_error(422, "invalid_input", problem, path=f"/{field_name}"))


def _log_input_warnings(
    thread_id: str, run_id: str, input_warnings: list[dict[str, Any]], plan: ResumePlan
) -> None:
    # INFO, like every client-caused refusal: a library stays quiet unless the application
    # configures logging (`agentproto serve` does).
    log_event(
        "agui_input_warnings",
        logging.INFO,
        threadId=thread_id,
        runId=run_id,
        codes=[w["code"] for w in input_warnings],
        paths=[w["path"] for w in input_warnings],
        **_owners(plan),
    )


@dataclass(frozen=True)
class _Admission:
    """A run input the store accepted: where its thread lives, what kind of run it asks for,
    and the thread as the run starts from it."""

    key: str
    plan: ResumePlan
    state: Any
    messages: list[dict[str, Any]]


class _AGUIEndpoints:
    """The four AG-UI endpoints over one store, agent and run registry (see the module docs).

    Built by :func:`agui_routes`, which checks the settings; each ``async`` method is a route.
    """

    def __init__(
        self,
        store: ThreadStore,
        agent: AGUIAgent,
        *,
        clock: Clock,
        ids: Callable[[], str],
        heartbeat_s: float,
        max_body_bytes: int,
        pace_s: float,
        replay_wait_s: float,
        registry: RunRegistry,
        server_tools: frozenset[str],
        input_limits: Limits = DEFAULT_LIMITS,
        max_thread_messages: int = MAX_THREAD_MESSAGES,
        max_active_runs: int = MAX_ACTIVE_RUNS,
    ) -> None:
        self.input_limits, self.max_thread_messages = input_limits, max_thread_messages
        self.max_active_runs = max_active_runs
        self.store, self.agent, self.clock, self.ids = store, agent, clock, ids
        self.heartbeat_s, self.max_body_bytes = heartbeat_s, max_body_bytes
        self.pace_s, self.replay_wait_s = pace_s, replay_wait_s
        self.registry, self.server_tools = registry, server_tools
        # Threads belong to the authenticated subject that created them (threadstore_owners).
        self.owners = ThreadOwners(store)

    # -- POST {prefix}/agent: admit the input, then run it in the background ---------------
    async def post_agent(self, request: Request) -> Any:
        subject = request_subject(request.scope)
        try:
            run_input, input_warnings = await self._read_run_input(request)
            self._check_room()
            admitted = self._admit(run_input, subject)
        except _Refusal as refusal:
            return refusal.response
        # Resume entries dropped and payloads ignored: spec 1.1 basic/patterns/interrupt-resume,
        # "Resuming" — the run SHOULD proceed without an unrecognised entry and the producer
        # SHOULD surface a warning (see validate_resume and runner.INPUT_WARNINGS_EVENT).
        input_warnings += [n.to_json() for n in admitted.plan.notices]
        if input_warnings:
            _log_input_warnings(run_input.thread_id, run_input.run_id, input_warnings, admitted.plan)
        run = self._launch(run_input, admitted, input_warnings, subject)
        response = self._respond(run)
        if input_warnings:
            response.headers["X-AGUI-Input-Warnings"] = str(len(input_warnings))
        return response

    def _check_room(self) -> None:
        """Refuse a new run while ``max_active_runs`` are executing (no await from here to
        the run's registration, so no two requests take the last place)."""
        if len(self.registry) >= self.max_active_runs:
            response = _error(
                429,
                "too_many_runs",
                f"this server is executing {self.max_active_runs} runs, the most it runs at once; "
                f"retry in {RUNS_RETRY_AFTER_S} s",
                max=self.max_active_runs,
            )
            response.headers["Retry-After"] = str(RUNS_RETRY_AFTER_S)
            raise _Refusal(response)

    async def _read_run_input(self, request: Request) -> tuple[Any, list[dict[str, Any]]]:
        """The checked ``RunAgentInput`` and the warnings it earns; refusals before any store."""
        _check_negotiation(request)
        body = await _read_body(request, self.max_body_bytes)
        if body is None:
            raise _Refusal(
                _error(413, "body_too_large", f"Request body is larger than {self.max_body_bytes} bytes")
            )
        run_input, input_warnings = _parse_body(body, self.input_limits)
        warning = _version_warning(run_input.protocol_version)
        if warning is not None:
            input_warnings.append(warning)
        _check_ids(run_input.thread_id, run_input.run_id)
        return run_input, input_warnings

    def _admit(self, run_input: Any, subject: str) -> _Admission:
        """Validate the input against its thread and record it, in one store transaction."""
        store, thread_id, run_id = self.store, run_input.thread_id, run_input.run_id
        wire_messages = [ev.dump_model(m) for m in run_input.messages]
        try:
            with store.transaction():
                # The caller's own thread of that id (a new one if it has none): never another
                # caller's, and no answer says whether another caller uses the id.
                key = self.owners.claim(thread_id, subject)
                if store.run(key, run_id) is not None:  # checked first: most precise
                    raise RunIdReusedError(thread_id, run_id)
                record = dataclasses.replace(store.thread_record(key), thread_id=thread_id)
                plan = validate_resume(
                    record, run_input, self.clock.now_ms(), owner_of=store.interrupt_thread
                )
                store.start_run(key, run_id, kind=plan.kind, replay_of=plan.replay_of)
                if plan.kind == "resume":
                    store.settle_interrupts(key, plan.entries, run_id)
                if plan.kind != "replay":
                    self._record_input(key, run_input, wire_messages, resume=plan.kind == "resume")
                return _Admission(key, plan, store.thread_state(key), store.messages(key))
        except ResumeError as exc:
            log_event(
                "agui_refused",
                status=exc.http_status,
                code="resume_refused",
                threadId=thread_id,
                runId=run_id,
            )
            raise _Refusal(JSONResponse(exc.to_json(), status_code=exc.http_status)) from None
        except ForgedToolResult as exc:
            raise _Refusal(_error(exc.http_status, exc.rule, str(exc), **exc.details)) from None
        except RunIdReusedError as exc:
            raise _Refusal(_error(409, exc.code, str(exc), runId=run_id)) from None
        except ThreadFullError as exc:
            raise _Refusal(_error(409, exc.code, str(exc), threadId=thread_id, max=exc.most)) from None

    def _record_input(
        self, key: str, run_input: Any, wire_messages: list[dict[str, Any]], *, resume: bool
    ) -> None:
        # A new thread starts from the input's state; an existing one from its stored state
        # (the server's record is authoritative). New messages — ids the thread has not seen,
        # such as the user's latest — are appended.
        store = self.store
        store.ensure_thread(key, state=run_input.state if run_input.state is not None else {})
        check_client_tool_results(store.messages(key), wire_messages, server_tools=self.server_tools)
        new = [m for m in wire_messages if m.get("role") != "activity"]
        store.append_messages(key, new, most=self.max_thread_messages, resume=resume)

    def _launch(
        self, run_input: Any, admitted: _Admission, input_warnings: list[dict[str, Any]], subject: str
    ) -> ActiveRun:
        """Start the run's background task: the agent, or a replay answered from the record."""
        plan = admitted.plan
        run = ActiveRun(run_input.thread_id, run_input.run_id, key=admitted.key, owner=subject)
        self.registry.add(run)
        if plan.kind == "replay":
            assert plan.replay_of is not None, "a replay plan names the run it replays"
            run.task = asyncio.create_task(self._replay(run, plan.replay_of, input_warnings))
        else:
            ctx = RunContext.start(
                run_input,
                plan,
                clock=self.clock,
                ids=self.ids,
                state=admitted.state,
                messages=admitted.messages,
            )
            run.driver = RunDriver(
                self.agent,
                ctx,
                self.store,
                kind=plan.kind,
                input_warnings=input_warnings,
                thread_key=admitted.key,
            )
            run.task = asyncio.create_task(self._drive(run))
        return run

    # -- the background task and the stream that reads it ---------------------------------
    async def _drive(self, run: ActiveRun) -> None:
        assert run.driver is not None, "drive() needs a run with a driver"
        try:
            for event in run.driver:  # the agent runs here, whether or not anyone listens
                if isinstance(event, ev.RunErrorEvent):
                    log_event(
                        "agui_run_error",
                        threadId=run.thread_id,
                        runId=run.run_id,
                        code=event.code,
                        message=event.message,
                    )
                run.deliver(event)
                await asyncio.sleep(self.pace_s)
        finally:
            self._finished(run)

    async def _replay(
        self, run: ActiveRun, original_run_id: str, input_warnings: list[dict[str, Any]]
    ) -> None:
        try:
            original = await self._wait_for_run(run.key, original_run_id)
            if original is None or not original.finished:
                self._fail_replay(run, original_run_id)
                return
            events = replay_events(
                run.thread_id,
                run.run_id,
                original,
                self.store.snapshot(run.key),
                timestamp=self.clock.now_ms(),
                input_warnings=input_warnings,
            )
            for event in events:
                self.store.append_event(run.key, run.run_id, ev.dump_event(event))
                run.deliver(event)
            self.store.finish_run(
                run.key,
                run.run_id,
                status=original.status,
                outcome=original.outcome,
                result=original.result,
            )
        finally:
            self._finished(run)

    async def _wait_for_run(self, key: str, run_id: str) -> Any:
        """The stored run ``run_id``, once finished or after ``replay_wait_s`` (None: unknown)."""
        deadline = asyncio.get_running_loop().time() + self.replay_wait_s
        original = self.store.run(key, run_id)
        while original is not None and not original.finished:
            if asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(0.02)
            original = self.store.run(key, run_id)
        return original

    def _fail_replay(self, run: ActiveRun, original_run_id: str) -> None:
        """The replay ends in RUN_ERROR: the run it repeats has not finished."""
        message = (
            f"Run {original_run_id} that first carried these answers is still "
            f"running; ask for the thread snapshot later"
        )
        failed = ev.RunErrorEvent(message=message, code="RESUME_IN_PROGRESS", timestamp=self.clock.now_ms())
        self.store.append_event(run.key, run.run_id, ev.dump_event(failed))
        self.store.finish_run(
            run.key, run.run_id, status="error", error={"message": message, "code": "RESUME_IN_PROGRESS"}
        )
        run.deliver(failed)

    def _finished(self, run: ActiveRun) -> None:
        run.deliver(None)
        run.done.set()
        self.registry.discard(run)

    async def _stream(self, run: ActiveRun) -> AsyncIterator[bytes]:
        try:
            while True:
                try:
                    item = await asyncio.wait_for(run.queue.get(), timeout=self.heartbeat_s)
                except TimeoutError:
                    yield KEEP_ALIVE  # idle: tell proxies the connection is alive
                    continue
                if item is None:
                    return
                yield encode_sse(item)
        finally:  # the end of the stream, or its client gone: stop queueing, drop what waits
            run.listening = False
            while not run.queue.empty():
                run.queue.get_nowait()

    def _respond(self, run: ActiveRun) -> EventSourceResponse:
        return EventSourceResponse(
            self._stream(run), ping=0, sep="\n", headers=STREAM_HEADERS, media_type=SSE_CONTENT_TYPE
        )

    # -- the read and cancel endpoints ------------------------------------------------------
    async def get_thread(self, request: Request) -> JSONResponse:
        thread_id = request.path_params["thread_id"]
        key = self.owners.key(thread_id, request_subject(request.scope))
        snapshot = self.store.snapshot(key) if key is not None else None
        if key is None or snapshot is None:
            return _error(404, "thread_not_found", f"No thread {thread_id!r} on this server")
        body = snapshot.to_json()
        body["threadId"] = thread_id  # the client's id, not the storage key
        body["activeRunIds"] = [r.run_id for r in self.registry.on_thread(key)]
        return JSONResponse(body, headers={"Cache-Control": "no-cache"})

    async def get_run_events(self, request: Request) -> JSONResponse:
        thread_id = request.path_params["thread_id"]
        run_id = request.path_params["run_id"]
        key = self.owners.key(thread_id, request_subject(request.scope))
        record = self.store.run(key, run_id) if key is not None else None
        if key is None or record is None:
            return _error(404, "run_not_found", f"No run {run_id!r} on thread {thread_id!r}")
        return JSONResponse({"run": record.to_json(), "events": self.store.events(key, run_id)})

    async def cancel_run(self, request: Request) -> JSONResponse:
        run_id = request.path_params["run_id"]
        thread_id = request.query_params.get("threadId")
        subject = request_subject(request.scope)
        active = [r for r in self.registry.find(run_id, thread_id) if r.owner == subject]
        if len(active) > 1:
            return _error(
                409, "ambiguous_run_id", f"Run id {run_id!r} is active on several threads; add ?threadId="
            )
        if not active:
            return _error(
                404, "run_not_active", f"Run {run_id!r} is not running on this server (finished, or unknown)"
            )
        run = active[0]
        if run.driver is None:
            return _error(409, "not_cancellable", "A replayed resume cannot be cancelled")
        run.cancel()
        return JSONResponse(
            {"runId": run_id, "threadId": run.thread_id, "status": "cancelling"}, status_code=202
        )


def agui_routes(
    store: ThreadStore,
    agent: AGUIAgent,
    *,
    clock: Clock | None = None,
    ids: Callable[[], str] | None = None,
    heartbeat_s: float = 15.0,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    pace_s: float = 0.0,
    replay_wait_s: float = 30.0,
    registry: RunRegistry | None = None,
    prefix: str = "/ag-ui",
    server_tools: Iterable[str] = (),
    input_limits: Limits = DEFAULT_LIMITS,
    max_thread_messages: int = MAX_THREAD_MESSAGES,
    max_active_runs: int = MAX_ACTIVE_RUNS,
) -> list[Route]:
    """The AG-UI routes serving ``agent`` with threads kept in ``store``.

    ``clock`` and ``ids`` are injected into every run (defaults: wall clock, UUIDs);
    ``heartbeat_s`` is the idle time before a keep-alive comment; ``pace_s`` delays each event
    (0 in production; notebooks slow a stream down to watch it, tests to cancel mid-run);
    ``replay_wait_s`` bounds how long a replayed resume waits for the original run to finish.
    Pass ``registry`` to reach the active runs from outside (``app.state.agui_runs``).
    ``server_tools`` names the tools the agent executes itself: a client message claiming to
    be the result of one of those (or of a call the agent never made, or one already
    answered) is refused with 403 before anything is stored — only frontend tools are
    answered by the client (spec 1.1 ``events/tool-calls``; see ``agentproto.security``).
    ``max_thread_messages`` bounds one thread (:data:`MAX_THREAD_MESSAGES`), ``max_active_runs``
    the runs executing at once (:data:`MAX_ACTIVE_RUNS`).
    """
    if heartbeat_s <= 0:
        raise ValueError("heartbeat_s must be positive: it is the idle time before a keep-alive")
    if pace_s < 0 or replay_wait_s < 0:
        raise ValueError("pace_s and replay_wait_s are durations and cannot be negative")
    if min(max_body_bytes, max_thread_messages, max_active_runs) <= 0:
        raise ValueError(
            "max_body_bytes, max_thread_messages and max_active_runs must be positive "
            "(they would refuse every run)"
        )
    store.abandon_running_runs()  # a run cannot outlive the process that was executing it
    endpoints = _AGUIEndpoints(
        store,
        agent,
        clock=clock or SystemClock(),
        ids=ids or uuid_ids,
        heartbeat_s=heartbeat_s,
        max_body_bytes=max_body_bytes,
        pace_s=pace_s,
        replay_wait_s=replay_wait_s,
        registry=registry if registry is not None else RunRegistry(),
        server_tools=frozenset(server_tools),
        input_limits=input_limits,
        max_thread_messages=max_thread_messages,
        max_active_runs=max_active_runs,
    )
    return [
        Route(f"{prefix}/agent", endpoints.post_agent, methods=["POST"]),
        Route(f"{prefix}/threads/{{thread_id}}", endpoints.get_thread, methods=["GET"]),
        Route(
            f"{prefix}/threads/{{thread_id}}/runs/{{run_id}}/events",
            endpoints.get_run_events,
            methods=["GET"],
        ),
        Route(f"{prefix}/runs/{{run_id}}/cancel", endpoints.cancel_run, methods=["POST"]),
    ]
