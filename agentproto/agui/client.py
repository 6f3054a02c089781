"""An AG-UI client over HTTP + SSE (httpx): run, approve, recover from a dropped connection.

Usable with top-level ``await`` in a notebook and from tests against a real uvicorn server::

    client = AGUIClient("http://127.0.0.1:8000")
    result = await client.send("t-1", "check order A1024 and refund it if shipped")
    result.outcome                 # 'interrupt'
    result = await client.approve("t-1")
    result.outcome, result.text    # ('success', 'Done: refunded 128.00 USD …')

:class:`SyncAGUIClient` offers the same methods without ``await`` (it runs the async client on
the event-loop thread all sync clients share), for scripts and plain functions.

Theory of operation
-------------------
*One run* is one ``POST /ag-ui/agent`` with a ``RunAgentInput`` built from the client's view of
the thread (its messages and state, plus anything new). The response body is fed, chunk by
chunk as it arrives, through the core consumer pipeline — SSE decoding, parsing, chunk
expansion, verification, state application (:class:`agentproto.agui.pipeline.Pipeline`). A
protocol violation raises the pipeline's error (the stream is *rejected*); a ``RUN_ERROR`` is a
*failed run*, reported in :attr:`RunResult.outcome`, never confused with success.

*Identity and age.* The stream must stay on the input's ``threadId`` (spec 1.1 ``run-input``,
"Identity"): the verifier is told it, so a run on another thread is rejected. An agent pinned
to an older protocol (``max_protocol_version=``) gets the era shims of
:mod:`agentproto.agui._eras` on the input sent and on the events received, before the pipeline;
what they lose is reported in :attr:`RunResult.warnings`.

*Duplicates.* Events repeated by a retrying proxy or a replaying middlebox are dropped before
the pipeline when they are recognisably the same event: a byte-identical repeat of an event
that opens or closes something that is still in that state (``RUN_STARTED`` of the active run,
a ``*_START`` of an id still open, an ``*_END`` of an id already closed and not reopened), a
``TOOL_CALL_RESULT`` whose ``messageId`` was already seen, or a snapshot identical to the one
just applied. Content deltas carry no identity, so they are never dropped — two identical
deltas are two deltas. :attr:`RunResult.duplicates_dropped` counts what was dropped.

*Reconnect (our documented choice).* AG-UI's SSE binding has no resumption: a broken stream
cannot be re-entered and ``Last-Event-ID`` is not used (spec 1.1 ``http-sse``). When the
connection drops before the run's terminal event, the client does **not** replay or patch up
the partial stream. It discards it, asks the server for the thread as stored
(``GET /ag-ui/threads/{id}``, waiting while the run is still executing — a disconnect does not
cancel it) and **replaces** its local state, messages and pending interrupts with that
snapshot. The result says ``recovered=True`` and takes its outcome from the server's run record.
We chose a GET over "start a new run that opens with snapshots" because it is read-only: a
recovery must not be able to act twice. That route is this kit's, not the protocol's: against a
server that answers it with anything but a JSON thread (a 404, a catch-all HTML page, a 5xx),
the client keeps its local thread as it was, reports the run ``truncated`` with what it
delivered in :attr:`RunResult.state` / :attr:`RunResult.messages`, and says why in a warning.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

from agentproto import _loop_thread
from agentproto.agui import events as ev
from agentproto.agui._compat import upgrade_binary_parts
from agentproto.agui._eras import EraDowngrade
from agentproto.agui.errors import AGUIError, PipelineWarning
from agentproto.agui.interrupts import (
    ThreadRecord,
    build_resume,
    cancelled,
    resolved,
    validate_resume,
)
from agentproto.agui.parse import enforce_outgoing_input
from agentproto.agui.sse import SSE_CONTENT_TYPE, SSEDecoder
from agentproto.client_auth import ClientAuth, as_auth
from agentproto.clock import Clock
from agentproto.system import SystemClock, uuid_ids

T = TypeVar("T")

__all__ = [
    "AGUIClient",
    "SyncAGUIClient",
    "ThreadView",
    "RunResult",
    "AGUIHTTPError",
    "Deduplicator",
]


class AGUIHTTPError(AGUIError):
    """The server refused the request before opening a stream (HTTP 4xx/5xx).

    ``status`` is the HTTP status; ``code`` and ``body`` come from the JSON error body the
    agentproto server sends (``{"error": {"code", "message", …}}``).
    """

    rule = "http.error"

    def __init__(self, status: int, body: Any) -> None:
        error = body.get("error") if isinstance(body, dict) else None
        message = error.get("message") if isinstance(error, dict) else str(body)
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.body = body
        self.code = error.get("code") if isinstance(error, dict) else None
        if self.code:  # the server's stable code (e.g. resume.incomplete) is the rule to show
            self.rule = str(self.code)


@dataclass
class RunResult:
    """What one run produced, as the client saw (or recovered) it.

    Attributes:
        thread_id: the thread the run belongs to (the input's ``threadId``).
        run_id: the run's id (the input's ``runId``).
        outcome: how the run ended — ``success`` (``RUN_FINISHED`` without an outcome, or
            ``outcome.type`` ``success``), ``interrupt`` (it paused for a human: see
            ``interrupts``), ``cancelled``, ``failed`` (``RUN_ERROR``: see ``error``), or
            ``truncated`` (the stream ended before a terminal event and the server's record
            could not tell more).
        events: every event accepted, as wire dicts, in arrival order (after chunk expansion).
        interrupts: the open interrupts an ``interrupt`` outcome carries (``outcome.interrupts``).
        result: the ``result`` field of ``RUN_FINISHED`` — whatever the agent chose to return as
            the run's value (any JSON: a dict, a string, ``None`` when it sent none). The spec
            gives it no shape (``events/lifecycle``); the kit's refund agent sends its tool's
            outcome. After a recovery it is the server's stored ``result`` of the run. It is not
            the assistant's text (see :attr:`text`) nor a tool call's result (a
            ``TOOL_CALL_RESULT`` event).
        error: ``{"message", "code"}`` of the ``RUN_ERROR`` of a failed run, else ``None``.
        state: the thread's state after the run (snapshots and deltas applied).
        messages: the thread's messages after the run.
        warnings: what the consumer pipeline noticed without rejecting the run (removed
            unknown material, era shims, a recovery that was not possible …), as
            :class:`~agentproto.agui.errors.PipelineWarning`.
        duplicates_dropped: events dropped as verbatim repeats (see the module docstring).
        keep_alives: SSE comment lines (heartbeats) seen and skipped.
        recovered: ``True`` when the stream broke and the run was read back from the server
            (``GET /ag-ui/threads/{id}``) instead of from the stream.
    """

    thread_id: str
    run_id: str
    outcome: str = "truncated"  #: success | interrupt | cancelled | failed | truncated
    events: list[dict[str, Any]] = field(default_factory=list)
    interrupts: list[dict[str, Any]] = field(default_factory=list)
    result: Any = None
    error: dict[str, Any] | None = None
    state: Any = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[PipelineWarning] = field(default_factory=list)
    duplicates_dropped: int = 0
    keep_alives: int = 0
    recovered: bool = False

    @property
    def ok(self) -> bool:
        return self.outcome == "success"

    @property
    def types(self) -> list[str]:
        """The event types in arrival order — handy for printing a run at a glance."""
        return [e["type"] for e in self.events]

    @property
    def text(self) -> str:
        """The assistant text this run streamed: its messages in order, one per line."""
        parts: dict[str, str] = {}
        for e in self.events:
            if e["type"] == "TEXT_MESSAGE_CONTENT":
                parts[e["messageId"]] = parts.get(e["messageId"], "") + e["delta"]
        return "\n".join(parts.values())


@dataclass
class ThreadView:
    """The client's copy of a thread: what the next input will carry."""

    thread_id: str
    state: Any = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    pending_interrupts: list[dict[str, Any]] = field(default_factory=list)
    interrupted_run_id: str | None = None
    runs: list[RunResult] = field(default_factory=list)

    def replace(self, snapshot: Mapping[str, Any]) -> None:
        """Adopt the server's snapshot wholesale (``GET /ag-ui/threads/{id}``)."""
        self.state = snapshot.get("state")
        self.messages = list(snapshot.get("messages") or [])
        self.pending_interrupts = list(snapshot.get("pendingInterrupts") or [])
        interrupted = [
            r
            for r in snapshot.get("runs") or []
            if r.get("status") == "interrupt" and r.get("kind") != "replay"
        ]
        self.interrupted_run_id = interrupted[-1]["runId"] if interrupted else None


_OPEN_CLOSE = {
    # type: (id field, "open" | "close", namespace)
    "TEXT_MESSAGE_START": ("messageId", "open", "text"),
    "TEXT_MESSAGE_END": ("messageId", "close", "text"),
    "TOOL_CALL_START": ("toolCallId", "open", "tool"),
    "TOOL_CALL_END": ("toolCallId", "close", "tool"),
    "REASONING_START": ("messageId", "open", "span"),
    "REASONING_END": ("messageId", "close", "span"),
    "REASONING_MESSAGE_START": ("messageId", "open", "reasoning"),
    "REASONING_MESSAGE_END": ("messageId", "close", "reasoning"),
    "STEP_STARTED": ("stepName", "open", "step"),
    "STEP_FINISHED": ("stepName", "close", "step"),
}


class Deduplicator:
    """Recognise events that are verbatim repeats of an event already taken (see module doc)."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._open: dict[tuple[str, str], bool] = {}  # (namespace, id) -> currently open?
        self._results: set[str] = set()
        self._last_snapshot: dict[str, str] = {}
        self._active_run: str | None = None
        self._finished_runs: set[str] = set()
        self.dropped = 0

    def is_duplicate(self, data: Mapping[str, Any]) -> bool:
        """True if ``data`` (a wire event) repeats one already taken; records it otherwise."""
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        kind = data.get("type")
        duplicate = False
        if kind == "RUN_STARTED":
            duplicate = data.get("runId") == self._active_run and text in self._seen
        elif kind == "RUN_FINISHED":
            duplicate = data.get("runId") in self._finished_runs and text in self._seen
        elif kind == "TOOL_CALL_RESULT":
            duplicate = data.get("messageId") in self._results
        elif kind in ("STATE_SNAPSHOT", "MESSAGES_SNAPSHOT"):
            duplicate = self._last_snapshot.get(kind) == text
        elif kind in _OPEN_CLOSE:
            key, action, space = _OPEN_CLOSE[kind]
            is_open = self._open.get((space, str(data.get(key))))
            duplicate = text in self._seen and (
                (action == "open" and is_open is True) or (action == "close" and is_open is False)
            )
        if duplicate:
            self.dropped += 1
            return True
        self._seen.add(text)
        if kind == "RUN_STARTED":
            self._active_run = data.get("runId")
        elif kind == "RUN_FINISHED":
            self._finished_runs.add(str(data.get("runId")))
            self._active_run = None
        elif kind == "TOOL_CALL_RESULT":
            self._results.add(str(data.get("messageId")))
        elif kind in ("STATE_SNAPSHOT", "MESSAGES_SNAPSHOT"):
            self._last_snapshot[kind] = text
        elif kind in _OPEN_CLOSE:
            key, action, space = _OPEN_CLOSE[kind]
            self._open[(space, str(data.get(key)))] = action == "open"
        return False


_DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.ReadTimeout, httpx.StreamClosed)


class AGUIClient:
    """An async AG-UI client for one server (see the module docstring)."""

    def __init__(
        self,
        base_url: str,
        *,
        http: httpx.AsyncClient | None = None,
        ids: Callable[[], str] | None = None,
        clock: Clock | None = None,
        prefix: str = "/ag-ui",
        timeout: float | None = None,
        recover_timeout: float = 10.0,
        max_protocol_version: str | None = None,
        auth: str | ClientAuth | None = None,
        **renamed: Any,
    ) -> None:
        """``timeout`` (seconds, default 30; streams have no read timeout) configures the httpx
        client made here; with ``http=`` given it would do nothing, so passing both raises
        ``ValueError`` — set the timeout on that client instead. ``recover_timeout`` bounds the
        wait for the server's record after a dropped stream. (``timeout_s`` and
        ``recover_timeout_s``, their old names, still work, with a ``DeprecationWarning``.)

        ``auth`` is a bearer token or a :class:`~agentproto.client_auth.ClientCredentials`
        (tokens fetched and renewed): ``Authorization: Bearer`` on every request, as on the A2A
        clients (:mod:`agentproto.client_auth`).

        ``max_protocol_version`` is what you know about the agent's age (``"0.0.39"``,
        ``"0.0.57"``, ``"1.0"``): it selects the era shims of :mod:`agentproto.agui._eras`
        for the input sent and the events received. ``None`` (the default) treats the agent
        as current, as the spec requires when its age is not known (``basic/versioning``)."""
        self.eras = EraDowngrade(max_protocol_version)  # ValueError for a value it cannot read
        timeout, recover_timeout = _renamed(renamed, timeout, recover_timeout)
        if http is not None and timeout is not None:
            raise ValueError(
                "timeout configures the client this object makes; with http= "
                "given, set the timeout on that httpx.AsyncClient instead"
            )
        if (timeout is not None and timeout <= 0) or recover_timeout <= 0:
            raise ValueError("timeout and recover_timeout must be positive")
        self.base_url = base_url.rstrip("/")
        self.prefix = prefix
        self.ids = ids or uuid_ids
        self.clock = clock or SystemClock()
        self.recover_timeout = recover_timeout
        self.auth: ClientAuth | None = as_auth(auth)
        self._own_http = http is None
        self.http = http or httpx.AsyncClient(
            timeout=httpx.Timeout(30.0 if timeout is None else timeout, read=None)
        )
        self.threads: dict[str, ThreadView] = {}

    @property
    def _auth(self) -> Any:  # httpx.Auth, or httpx's "the client's own"
        return self.auth if self.auth is not None else httpx.USE_CLIENT_DEFAULT

    async def aclose(self) -> None:
        if self._own_http:
            await self.http.aclose()

    async def __aenter__(self) -> AGUIClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- threads ----------------------------------------------------------------------------

    def thread(self, thread_id: str | None = None) -> ThreadView:
        """The local view of ``thread_id`` (a new thread with a fresh id when None)."""
        thread_id = thread_id or self.ids()
        if thread_id not in self.threads:
            self.threads[thread_id] = ThreadView(thread_id)
        return self.threads[thread_id]

    async def snapshot(self, thread_id: str) -> dict[str, Any]:
        """``GET /ag-ui/threads/{id}``: the thread as the server stored it."""
        response = await self.http.get(f"{self.base_url}{self.prefix}/threads/{thread_id}", auth=self._auth)
        if response.status_code != 200:
            raise AGUIHTTPError(response.status_code, _json_or_text(response))
        snapshot = _json_or_text(response)
        if not isinstance(snapshot, dict) or not isinstance(snapshot.get("runs", []), list):
            raise AGUIHTTPError(response.status_code, "the answer is not a thread (JSON object)")
        return snapshot

    async def recover(self, thread_id: str, *, run_id: str | None = None) -> dict[str, Any]:
        """Replace the local thread with the server's snapshot; wait for ``run_id`` to end.

        A dropped connection does not stop the run on the server, so the snapshot taken right
        away may still show it running: poll (bounded by ``recover_timeout``) until it is not.
        """
        import anyio

        with anyio.move_on_after(self.recover_timeout):
            while True:
                snap = await self.snapshot(thread_id)
                runs = {r["runId"]: r for r in snap.get("runs", [])}
                if run_id is None or runs.get(run_id, {}).get("status") != "running":
                    break
                await anyio.sleep(0.05)
        self.thread(thread_id).replace(snap)
        return snap

    async def cancel_run(self, run_id: str, thread_id: str | None = None) -> dict[str, Any]:
        """Ask the server to stop a running run (it will finish ``cancelled``)."""
        params = {"threadId": thread_id} if thread_id else None
        response = await self.http.post(
            f"{self.base_url}{self.prefix}/runs/{run_id}/cancel", params=params, auth=self._auth
        )
        if response.status_code >= 400:
            raise AGUIHTTPError(response.status_code, _json_or_text(response))
        answer: dict[str, Any] = response.json()
        return answer

    # -- running ----------------------------------------------------------------------------

    async def send(self, thread_id: str, text: str, **kwargs: Any) -> RunResult:
        """Add a user message to the thread and run the agent on it."""
        message = {"id": self.ids(), "role": "user", "content": text}
        return await self.run(thread_id, new_messages=[message], **kwargs)

    async def run(
        self,
        thread_id: str,
        *,
        new_messages: Iterable[dict[str, Any]] = (),
        resume: list[dict[str, Any]] | None = None,
        run_id: str | None = None,
        forwarded_props: Any = None,
        tools: Iterable[dict[str, Any]] | None = None,
        context: Iterable[dict[str, Any]] | None = None,
        on_event: Callable[[dict[str, Any]], Any] | None = None,
        body_override: Mapping[str, Any] | None = None,
    ) -> RunResult:
        """POST one run and consume its stream; returns when the run ends (or is recovered).

        ``new_messages`` join the thread's messages for this run (and stay in the thread).
        ``tools`` and ``context`` are the input's ``tools`` (the tools the frontend offers)
        and ``context`` lists, sent only when given (absent and empty mean the same, spec
        ``basic/run-input``). A retired ``binary`` content part in a message is upgraded to
        the typed media part that replaced it (:func:`~agentproto.agui._compat.upgrade_binary_parts`).
        ``on_event`` is called with each accepted event (wire dict) as it arrives — a notebook
        uses it to draw live. ``body_override`` replaces fields of the request body verbatim:
        the notebooks use it to send contract-breaking inputs on purpose.

        Before sending, the input goes through outgoing enforcement (spec ``basic/processing``,
        "Outgoing material"): unrecognised material — a property the spec does not describe, a
        content part of an unknown kind — is removed, with a warning in ``result.warnings``;
        a malformed known field raises :class:`~agentproto.agui.errors.MalformedEventError` and
        nothing is sent. ``body_override`` is applied after that, verbatim.
        """
        view = self.thread(thread_id)
        run_id = run_id or self.ids()
        outgoing = [m for m in view.messages if m.get("role") != "activity"]  # spec: strip
        outgoing += list(new_messages)
        outgoing, upgraded = upgrade_binary_parts(outgoing)
        body: dict[str, Any] = {
            "threadId": thread_id,
            "runId": run_id,
            "protocolVersion": ev.PROTOCOL_VERSION,
            "state": view.state,
            "messages": outgoing,
        }
        if tools is not None:
            body["tools"] = list(tools)
        if context is not None:
            body["context"] = list(context)
        if resume is not None:
            body["resume"] = resume
        if forwarded_props is not None:
            body["forwardedProps"] = forwarded_props
        # The era shims reshape only what goes on the wire; the thread keeps its own copy.
        wire, shimmed = self.eras.input(body)
        # "Immediately before transmission": strip unrecognised material (warned), and refuse a
        # malformed known field here, before anything is sent (spec basic/processing).
        wire, stripped = enforce_outgoing_input(wire)
        if body_override:
            body.update(body_override)
            wire.update(body_override)
        result = RunResult(thread_id=thread_id, run_id=run_id)
        result.warnings.extend([*upgraded, *shimmed, *stripped])
        consumer = _Consumer(
            view, result, on_event, baseline=body["messages"], eras=self.eras, thread=wire.get("threadId")
        )
        url = f"{self.base_url}{self.prefix}/agent"
        try:
            async with self.http.stream(
                "POST", url, json=wire, headers={"Accept": SSE_CONTENT_TYPE}, auth=self._auth
            ) as response:
                if response.status_code != 200:
                    await response.aread()
                    raise AGUIHTTPError(response.status_code, _json_or_text(response))
                async for chunk in response.aiter_bytes():
                    await consumer.feed(chunk)
        except _DROPPED:
            pass  # a truncated stream: handled below, like a body that ended early
        if not consumer.complete:
            return await self._recover_run(view, result, consumer)
        consumer.commit()
        view.runs.append(result)
        return result

    async def _recover_run(self, view: ThreadView, result: RunResult, consumer: _Consumer) -> RunResult:
        result.warnings.extend(consumer.pipeline.warnings)  # about what did arrive
        try:
            snap = await self.recover(view.thread_id, run_id=result.run_id)
        except (AGUIHTTPError, httpx.TransportError, ValueError) as exc:
            return self._truncated(view, result, consumer, exc)
        record = next((r for r in snap.get("runs", []) if r["runId"] == result.run_id), None)
        result.recovered = True
        result.state, result.messages = view.state, view.messages
        result.interrupts = list(view.pending_interrupts)
        if record is not None and record.get("status") != "running":
            result.outcome = {"error": "failed"}.get(record["status"], record["status"])
            result.result = record.get("result")
            result.error = record.get("error")
        view.runs.append(result)
        return result

    def _truncated(
        self, view: ThreadView, result: RunResult, consumer: _Consumer, why: Exception
    ) -> RunResult:
        """No recovery from this server: report the run truncated, with what it delivered."""
        reason = str(why) if isinstance(why, AGUIHTTPError) else f"{type(why).__name__}: {why}"
        message = (
            f"the stream ended before the run did, and the server offers no thread recovery "
            f"(GET {self.prefix}/threads/{view.thread_id}: {reason[:120]}); the run is reported "
            f"truncated and the local thread is left as it was"
        )
        report = consumer.pipeline.report()
        result.outcome = "truncated"
        result.warnings.append(PipelineWarning(None, "", message))
        result.state, result.messages = report.state, list(report.messages)
        view.runs.append(result)
        return result

    # -- human in the loop -------------------------------------------------------------------

    async def resume(self, thread_id: str, responses: Mapping[str, Any], **kwargs: Any) -> RunResult:
        """Answer the thread's pending interrupts (``responses``: id → :func:`resolved` /
        :func:`cancelled`) in a new run.

        Checks the consumer's rules before anything is sent, as the spec asks: every open
        interrupt covered, no unknown ids (``buildResumeArray: …``), nothing resolved past its
        ``expiresAt`` — while an expired interrupt may still be cancelled.
        """
        view = self.thread(thread_id)
        entries = build_resume(view.pending_interrupts, responses)
        ledger = ThreadRecord.from_pending(thread_id, view.interrupted_run_id or "", view.pending_interrupts)
        # strict: on the consumer side an entry naming no open interrupt breaks a MUST.
        validate_resume(ledger, {"threadId": thread_id, "resume": entries}, self.clock.now_ms(), strict=True)
        return await self.run(thread_id, resume=entries, **kwargs)

    def proposed_args(self, thread_id: str, interrupt_id: str | None = None) -> dict[str, Any]:
        """The arguments the agent proposed for the call a pending interrupt is about.

        Read from the thread's messages — the ``TOOL_CALL_ARGS`` of the interrupt's
        ``toolCallId`` (the audit trail's part 1, concepts/interrupts, "Tool-bound
        interrupts"); ``interrupt_id`` defaults to the first pending interrupt. The starting
        point for a full-replacement ``edited_args``. ``{}`` if the call or its arguments
        cannot be found.
        """
        view = self.thread(thread_id)
        interrupt = next(
            (i for i in view.pending_interrupts if interrupt_id is None or i.get("id") == interrupt_id), None
        )
        call_id = interrupt.get("toolCallId") if interrupt else None
        for message in view.messages:
            for call in message.get("toolCalls") or []:
                if call_id is not None and call.get("id") == call_id:
                    try:
                        args = json.loads(call["function"]["arguments"])
                    except (KeyError, TypeError, ValueError):
                        return {}
                    return dict(args) if isinstance(args, dict) else {}
        return {}

    def _targets(self, thread_id: str, interrupt_id: str | None) -> list[str]:
        pending = [i["id"] for i in self.thread(thread_id).pending_interrupts]
        return pending if interrupt_id is None else [interrupt_id]

    async def approve(
        self,
        thread_id: str,
        interrupt_id: str | None = None,
        *,
        edited_args: Mapping[str, Any] | None = None,
        comment: str | None = None,
        **kwargs: Any,
    ) -> RunResult:
        """Approve the pending tool call(s), optionally with edited arguments.

        ``edited_args`` is the **complete** argument object the tool should run with, sent as
        ``editedArgs``: a full replacement of the proposed arguments, "not a partial merge"
        (AG-UI concepts/interrupts, "Approve with edits"). Start from the proposal and change
        what the reviewer changed — ``{**client.proposed_args(thread_id), "amountCents": 5000}``
        — rather than sending the changed fields alone. An empty mapping would replace every
        argument with nothing and raises ``ValueError`` (approve without it to keep the proposal).
        """
        if edited_args is not None and not edited_args:
            raise ValueError(
                "edited_args is empty: editedArgs replaces the proposed arguments in full, so this "
                "would run the tool with none; approve without it to keep the proposal"
            )
        payload: dict[str, Any] = {"approved": True}
        if edited_args:
            payload["editedArgs"] = dict(edited_args)
        if comment:
            payload["comment"] = comment
        ids = self._targets(thread_id, interrupt_id)
        return await self.resume(thread_id, {i: resolved(payload) for i in ids}, **kwargs)

    async def deny(
        self, thread_id: str, interrupt_id: str | None = None, *, comment: str | None = None, **kwargs: Any
    ) -> RunResult:
        """Deny: a resolved answer whose payload says no (a denial is a payload)."""
        payload: dict[str, Any] = {"approved": False}
        if comment:
            payload["comment"] = comment
        ids = self._targets(thread_id, interrupt_id)
        return await self.resume(thread_id, {i: resolved(payload) for i in ids}, **kwargs)

    async def cancel(self, thread_id: str, interrupt_id: str | None = None, **kwargs: Any) -> RunResult:
        """Abandon the pending interrupt(s): ``status: "cancelled"``, no payload."""
        ids = self._targets(thread_id, interrupt_id)
        return await self.resume(thread_id, {i: cancelled() for i in ids}, **kwargs)


class _Consumer:
    """Feeds one response body through the core pipeline and fills a :class:`RunResult`."""

    def __init__(
        self,
        view: ThreadView,
        result: RunResult,
        on_event: Callable[[dict[str, Any]], Any] | None,
        baseline: list[dict[str, Any]],
        eras: EraDowngrade | None = None,
        thread: Any = None,
    ) -> None:
        from agentproto.agui.pipeline import Pipeline

        self.view = view
        self.result = result
        self.on_event = on_event
        self.decoder = SSEDecoder()
        self.dedup = Deduplicator()
        # Seeded with what the input carried (the run's baseline: the thread plus the new
        # messages), so applying the run's events yields the thread after it.
        # The era shims are middleware: after the compatibility boundary, before enforcement
        # (spec basic/processing, "Where middleware sits").
        shims = eras.event if eras is not None and eras.active else None
        self.pipeline = Pipeline(state=view.state, messages=baseline, raise_errors=True, middleware=shims)
        if isinstance(thread, str):  # spec basic/run-input "Identity": every run carries it
            self.pipeline.verifier.thread_id = thread
        self.complete = False

    async def feed(self, chunk: bytes) -> None:
        self.result.keep_alives += chunk.count(b": keep-alive")  # comments: counted, skipped
        for data in self.decoder.feed(chunk):
            try:
                wire: Any = json.loads(data)
            except ValueError:
                wire = data  # let the pipeline raise its DecodeError for it
            if isinstance(wire, dict) and self.dedup.is_duplicate(wire):
                self.result.duplicates_dropped = self.dedup.dropped
                continue
            for applied in self.pipeline.feed_event(wire):
                event = ev.dump_event(applied)
                self.result.events.append(event)
                self._observe(event)
                if self.on_event is not None:
                    outcome = self.on_event(event)
                    if isinstance(outcome, Awaitable):
                        await outcome

    def _observe(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "RUN_FINISHED":
            outcome = event.get("outcome") or {}
            self.result.outcome = outcome.get("type", "success")
            self.result.result = event.get("result")
            self.result.interrupts = list(outcome.get("interrupts", []))
            self.complete = True
        elif kind == "RUN_ERROR":
            self.result.outcome = "failed"
            self.result.error = {k: event[k] for k in ("message", "code") if k in event}
            self.complete = True

    def commit(self) -> None:
        """The run ended properly: adopt its state, messages and interrupts locally."""
        report = self.pipeline.finish()
        self.result.warnings.extend(report.warnings)
        self.view.state = report.state
        self.view.messages = list(report.messages)
        if self.result.outcome == "interrupt":
            self.view.pending_interrupts = list(self.result.interrupts)
            self.view.interrupted_run_id = self.result.run_id
        elif self.result.outcome != "failed":
            self.view.pending_interrupts = []
            self.view.interrupted_run_id = None
        self.result.state = self.view.state
        self.result.messages = self.view.messages


def _renamed(renamed: dict[str, Any], timeout: float | None, recover: float) -> tuple[float | None, float]:
    """The old names of ``timeout`` and ``recover_timeout`` (``timeout_s``, ``recover_timeout_s``)."""
    import warnings

    unknown = sorted(set(renamed) - {"timeout_s", "recover_timeout_s"})
    if unknown:
        raise TypeError(f"AGUIClient() got an unexpected keyword argument {unknown[0]!r}")
    for old, new in (("timeout_s", "timeout"), ("recover_timeout_s", "recover_timeout")):
        if old in renamed:
            warnings.warn(f"AGUIClient({old}=…) is now {new}=…", DeprecationWarning, stacklevel=3)
    timeout = renamed.get("timeout_s", timeout)
    return timeout, renamed.get("recover_timeout_s", recover)


def _json_or_text(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


class SyncAGUIClient:
    """The same client without ``await``: each call runs on the loop thread all sync clients share.

    Every method is the :class:`AGUIClient` method of the same name, blocking until it
    returns; keyword arguments are passed through unchanged. Use it in scripts, plain
    functions and widget callbacks (which cannot ``await``)::

        with SyncAGUIClient(url) as client:
            result = client.send("t-1", "refund A1024")   # ends with an interrupt
            result = client.approve("t-1")                # the resumed run
    """

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        """An :class:`AGUIClient` (same arguments), made on the event-loop thread that every
        sync client of the process shares (:mod:`agentproto._loop_thread`)."""

        async def make() -> AGUIClient:
            return AGUIClient(base_url, **kwargs)

        self._client: AGUIClient = self._call(make)

    @staticmethod
    def _call(make: Callable[[], Awaitable[T]]) -> T:
        return _loop_thread.run(make)

    @property
    def client(self) -> AGUIClient:
        """The async client underneath (its methods must be awaited on its own loop)."""
        return self._client

    @property
    def threads(self) -> dict[str, ThreadView]:
        """The local views of every thread this client has used, by id."""
        return self._client.threads

    def thread(self, thread_id: str | None = None) -> ThreadView:
        """The local view of ``thread_id`` (a new thread with a fresh id when None)."""
        return self._client.thread(thread_id)

    # -- running ----------------------------------------------------------------------------

    def send(self, thread_id: str, text: str, **kwargs: Any) -> RunResult:
        """Add a user message to the thread and run the agent on it (:meth:`AGUIClient.send`)."""
        return self._call(lambda: self._client.send(thread_id, text, **kwargs))

    def run(self, thread_id: str, **kwargs: Any) -> RunResult:
        """POST one run and consume its stream (:meth:`AGUIClient.run`: ``new_messages``,
        ``resume``, ``run_id``, ``forwarded_props``, ``tools``, ``context``, ``on_event``,
        ``body_override``)."""
        return self._call(lambda: self._client.run(thread_id, **kwargs))

    # -- human in the loop -------------------------------------------------------------------

    def resume(self, thread_id: str, responses: Mapping[str, Any], **kwargs: Any) -> RunResult:
        """Answer the pending interrupts (id → ``resolved(...)``/``cancelled()``) in a new run,
        after checking them as the spec asks (:meth:`AGUIClient.resume`)."""
        return self._call(lambda: self._client.resume(thread_id, responses, **kwargs))

    def approve(
        self,
        thread_id: str,
        interrupt_id: str | None = None,
        *,
        edited_args: Mapping[str, Any] | None = None,
        comment: str | None = None,
        **kwargs: Any,
    ) -> RunResult:
        """Approve the pending tool call(s), optionally with edited arguments — the complete
        argument object, a full replacement of the proposal (:meth:`AGUIClient.approve`)."""
        return self._call(
            lambda: self._client.approve(
                thread_id, interrupt_id, edited_args=edited_args, comment=comment, **kwargs
            )
        )

    def proposed_args(self, thread_id: str, interrupt_id: str | None = None) -> dict[str, Any]:
        """The proposed arguments of a pending approval (:meth:`AGUIClient.proposed_args`)."""
        return self._client.proposed_args(thread_id, interrupt_id)

    def deny(
        self, thread_id: str, interrupt_id: str | None = None, *, comment: str | None = None, **kwargs: Any
    ) -> RunResult:
        """Deny: a resolved answer whose payload says no (:meth:`AGUIClient.deny`)."""
        return self._call(lambda: self._client.deny(thread_id, interrupt_id, comment=comment, **kwargs))

    def cancel(self, thread_id: str, interrupt_id: str | None = None, **kwargs: Any) -> RunResult:
        """Abandon the pending interrupt(s): ``status: "cancelled"`` (:meth:`AGUIClient.cancel`)."""
        return self._call(lambda: self._client.cancel(thread_id, interrupt_id, **kwargs))

    # -- the server's view -----------------------------------------------------------------

    def snapshot(self, thread_id: str) -> dict[str, Any]:
        """``GET /ag-ui/threads/{id}``: the thread as the server stored it."""
        return self._call(lambda: self._client.snapshot(thread_id))

    def recover(self, thread_id: str, *, run_id: str | None = None) -> dict[str, Any]:
        """Replace the local thread with the server's snapshot, waiting for ``run_id`` to end."""
        return self._call(lambda: self._client.recover(thread_id, run_id=run_id))

    def cancel_run(self, run_id: str, thread_id: str | None = None) -> dict[str, Any]:
        """Ask the server to stop a running run (it will finish ``cancelled``)."""
        return self._call(lambda: self._client.cancel_run(run_id, thread_id))

    def close(self) -> None:
        """Close the HTTP client (if this client made it); the shared loop thread stays."""
        self._call(self._client.aclose)

    def __enter__(self) -> SyncAGUIClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
